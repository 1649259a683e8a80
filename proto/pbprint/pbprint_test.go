package pbprint

import (
	"encoding/json"
	"strings"
	"testing"

	pb "github.com/anefix/anefix/proto/anefixpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestMarshalAnyBytes: strings that are not UTF-8 (MLIR names may hold any
// byte) no longer fail the whole report; each bad byte prints as \xNN,
// valid text (a backslash, a multi-byte rune) stays as it is, and the
// caller's message is left unchanged. protojson alone refuses it.
func TestMarshalAnyBytes(t *testing.T) {
	in := &pb.CheckReport{
		Groups: []*pb.FindingGroup{{
			OpName: "t.\xffop",                      // singular, nested in a list
			Graphs: []string{"ok", "g\xc3", "é\\x"}, // repeated; a truncated rune
			Detail: "é",
		}},
	}
	orig := proto.Clone(in)
	if _, err := protojson.Marshal(in); err == nil {
		t.Fatal("protojson accepted invalid UTF-8; the test no longer shows the fault")
	}
	out, err := Marshal(in)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	var got struct {
		Groups []struct {
			OpName string   `json:"opName"`
			Graphs []string `json:"graphs"`
			Detail string   `json:"detail"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.Groups) != 1 {
		t.Fatalf("output is not the report's JSON (%v):\n%s", err, out)
	}
	g := got.Groups[0]
	if g.OpName != `t.\xffop` || g.Detail != "é" || len(g.Graphs) != 3 || g.Graphs[0] != "ok" || g.Graphs[1] != `g\xc3` || g.Graphs[2] != `é\x` {
		t.Errorf("got %+v", g)
	}
	if !proto.Equal(in, orig) {
		t.Error("Marshal modified its argument")
	}
	// DEL and C1 controls, which JSON allows raw, come out as \u escapes:
	// no terminal control in the output, and the same string decoded.
	out, err = Marshal(&pb.FindingGroup{OpName: "a\x7fb\u0085c\u009f"})
	if err != nil || !json.Valid(out) || strings.ContainsAny(string(out), "\x7f\u0085\u009f") || !strings.Contains(string(out), `a\u007fb\u0085c\u009f`) {
		t.Errorf("DEL and C1: %v\n%q", err, out)
	}
}

func TestEscapeInvalid(t *testing.T) {
	for in, want := range map[string]string{
		"":             "",
		"plain":        "plain",
		"\x80":         `\x80`,
		"a\xe2\x82":    `a\xe2\x82`, // a rune cut short: each byte
		"€\xfe€":       `€\xfe€`,
		"\xed\xa0\x80": `\xed\xa0\x80`, // a surrogate is not UTF-8
	} {
		if got := EscapeInvalid(in); got != want {
			t.Errorf("EscapeInvalid(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestForText: a string with a newline, a terminal escape or bytes that are
// not UTF-8 comes back Go-quoted, on one line; plain strings as they were;
// map keys and values too (structpb's map stands in for a future report
// map, none of the schema's has one yet).
func TestForText(t *testing.T) {
	in := &pb.FindingGroup{OpName: "t.x\nPrediction: LEGAL", Graphs: []string{"main", "g\x1b[31m", "\xff"}, Detail: "plain"}
	got := ForText(in)
	if got.OpName != `"t.x\nPrediction: LEGAL"` || got.Graphs[0] != "main" || got.Graphs[1] != `"g\x1b[31m"` || got.Graphs[2] != `"\xff"` || got.Detail != "plain" {
		t.Errorf("got %v", got)
	}
	if in.OpName != "t.x\nPrediction: LEGAL" {
		t.Error("ForText modified its argument")
	}
	if plain := (&pb.FindingGroup{OpName: "a"}); ForText(plain) != plain {
		t.Error("a report with nothing to quote was copied")
	}
	s, err := structpb.NewStruct(map[string]any{"k\n": "v\x1b", "ok": map[string]any{"in\n": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	st := ForText(s)
	if v, ok := st.Fields[`"k\n"`]; !ok || v.GetStringValue() != `"v\x1b"` {
		t.Errorf("map entry: %v", st)
	}
	if _, ok := st.Fields["ok"].GetStructValue().GetFields()[`"in\n"`]; !ok {
		t.Errorf("nested map entry: %v", st)
	}
}
