package pbprint

import (
	"encoding/json"
	"math"
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

// TestMarshalAlwaysPresent: a script can test every field of a report,
// also when it is false, zero, empty or an unset message (issue 32: an
// illegal check had no "legal" key); optional fields stay absent when
// unset (there absent means unknown) and present when set, 0 included.
func TestMarshalAlwaysPresent(t *testing.T) {
	out, err := Marshal(&pb.CheckReport{Graphs: []*pb.GraphCheck{{Name: "a", PredictedRegions: proto.Int32(0)}, {Name: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Legal     *bool            `json:"legal"`
		Functions *int             `json:"functions"`
		Groups    []any            `json:"groups"`
		Input     *json.RawMessage `json:"input"`
		Graphs    []map[string]any `json:"graphs"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Legal == nil || *got.Legal || got.Functions == nil || got.Groups == nil || len(got.Groups) != 0 {
		t.Errorf("false, 0 and [] not printed:\n%s", out)
	}
	if !strings.Contains(string(out), `"input": null`) {
		t.Errorf("unset message not null:\n%s", out)
	}
	if strings.Contains(string(out[:strings.Index(string(out), `"graphs"`)]), `"predictedRegions"`) {
		t.Errorf("unset optional printed:\n%s", out)
	}
	if v, ok := got.Graphs[0]["predictedRegions"]; !ok || v != 0.0 {
		t.Errorf("optional set to 0: %v %v", v, ok)
	}
	if _, ok := got.Graphs[1]["predictedRegions"]; ok {
		t.Errorf("optional unset printed in graph b:\n%s", out)
	}
}

// TestMarshalNonFinite: doubles that are NaN or ±inf print as null, where
// protojson prints the strings "NaN", "Infinity" and "-Infinity"; a
// string field holding such a word is kept, and so are the other values
// and the order of the keys.
func TestMarshalNonFinite(t *testing.T) {
	in := &pb.VerifyReport{
		Function: "NaN", LogitsPsnrDb: math.Inf(1), LogitsIdentical: true, MeanKld: proto.Float64(math.NaN()),
		Notes:     []string{"Infinity", "<&>"},
		Positions: []*pb.VerifyStep{{Cosine: 0.5, MaxAbsDiff: math.Inf(-1)}, {Cosine: math.NaN(), MaxAbsDiff: 2}},
	}
	raw, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(in)
	if err != nil || !strings.Contains(string(raw), `"Infinity"`) {
		t.Fatalf("protojson no longer prints Infinity as a string (%v); the test shows nothing:\n%s", err, raw)
	}
	out, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{`"function": "NaN"`, `"logitsPsnrDb": null`, `"logitsIdentical": true`, `"meanKld": null`,
		`"Infinity",`, `"<&>"`, `"cosine": 0.5`, `"maxAbsDiff": null`, `"cosine": null`, `"maxAbsDiff": 2`} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %s:\n%s", want, s)
		}
	}
	var keys []string
	d := json.NewDecoder(strings.NewReader(s))
	d.Token()
	for d.More() {
		k, _ := d.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		d.Decode(&skip)
	}
	if len(keys) < 3 || keys[0] != "schemaVersion" || keys[1] != "reference" || keys[2] != "candidate" {
		t.Errorf("key order changed: %v", keys)
	}
	// The same report without a non-finite value is protojson's own bytes,
	// re-indented.
	finite := proto.Clone(in).(*pb.VerifyReport)
	finite.LogitsPsnrDb, finite.MeanKld, finite.Positions = 3, proto.Float64(1), nil
	out, err = Marshal(finite)
	if err != nil || !json.Valid(out) || !strings.Contains(string(out), `"logitsPsnrDb": 3,`) || !strings.Contains(string(out), `"meanKld": 1,`) {
		t.Errorf("finite report: %v\n%s", err, out)
	}
}

// FuzzMarshalDoubles: whatever doubles and strings a report holds, the
// JSON is valid, a double is its own number or null when not finite, and
// a string is kept as it is, even one spelling "NaN" (finite.go tells the
// two apart by field, not by text).
func FuzzMarshalDoubles(f *testing.F) {
	f.Add(1.5, math.Inf(1), "NaN")
	f.Add(math.NaN(), math.Inf(-1), "Infinity")
	f.Add(0.0, -0.0, `"}{\"a`)
	f.Add(math.MaxFloat64, math.SmallestNonzeroFloat64, "\xff\x7f")
	f.Fuzz(func(t *testing.T, x, y float64, s string) {
		in := &pb.VerifyReport{Function: s, LogitsPsnrDb: x, MeanKld: proto.Float64(y), Notes: []string{s},
			Positions: []*pb.VerifyStep{{Cosine: y, MaxAbsDiff: x}}}
		out, err := Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Function     string
			LogitsPsnrDb *float64
			MeanKld      *float64
			Notes        []string
			Positions    []struct{ Cosine, MaxAbsDiff *float64 }
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		same := func(p *float64, want float64) bool {
			if math.IsNaN(want) || math.IsInf(want, 0) {
				return p == nil
			}
			return p != nil && *p == want
		}
		if !same(got.LogitsPsnrDb, x) || !same(got.MeanKld, y) || len(got.Positions) != 1 || !same(got.Positions[0].Cosine, y) || !same(got.Positions[0].MaxAbsDiff, x) {
			t.Errorf("doubles %v %v:\n%s", x, y, out)
		}
		if want := EscapeInvalid(s); got.Function != want || len(got.Notes) != 1 || got.Notes[0] != want {
			t.Errorf("string %q became %q, %q", s, got.Function, got.Notes)
		}
	})
}
