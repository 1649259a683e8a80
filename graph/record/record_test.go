package record

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseRecordErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"tool": "x",`, "byte offset"},
		{`[1]`, "not anefix's record"},
		{`{"constantInputs": [{"graph": "main"}]}`, "constantInputs[0] names no input"},
		{`{"constantInputs": [{"input": "w"}]}`, "neither a resource nor an op id"},
		// What no rewrite writes (issue 21): repeats, and scales past f32.
		{`{"constantInputs": [{"graph": "main", "input": "w", "opId": "e"}, {"graph": "main", "input": "w", "opId": "e"}]}`, `constantInputs[1] repeats "w" of graph "main" (first at constantInputs[0])`},
		{`{"stateScales": [{"graph": "g", "state": "s", "log2": 9223372036854775807}, {"graph": "g", "state": "s", "log2": 9223372036854775807}]}`, "log2 9223372036854775807 of state \"s\" is outside -149…127"},
		{`{"stateScales": [{"graph": "g", "state": "s", "log2": 100}, {"graph": "g", "state": "s", "log2": 100}]}`, `the scales of state "s" of graph "g" add up to 2^200`},
		{`{"stateScales": [{"graph": "g", "state": "s", "log2": -150}]}`, "log2 -150"},
		{`{"stateScales": [{"graph": "g", "state": "s", "log2": 128}]}`, "log2 128"},
		{`{"stateScales": [{"graph": "g", "state": "s", "log2": 9223372036854775808}]}`, "not anefix's record"},
		{`{"passes": [` + strings.Repeat(`"dce",`, maxEntries) + `"dce"]}`, "passes has 65537 entries"},
	} {
		_, err := Parse([]byte(c.in), "m.aimodel/anefix.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "m.aimodel/anefix.json") {
			t.Errorf("%s: err = %v, want %q and the file name", c.in, err, c.want)
		}
	}
}

// The same port in two lists, or in two graphs, is no repeat; a state
// promoted or scaled again by a later rewrite (Record.Then) is kept; the
// bounds of a scale are accepted.
func TestParseRecordAccepts(t *testing.T) {
	for _, in := range []string{
		`{"states": [{"graph": "g", "input": "s", "output": "s"}, {"graph": "g", "input": "s", "output": "s"}]}`,
		`{"stateScales": [{"graph": "g", "state": "s", "log2": 2}, {"graph": "g", "state": "s", "log2": 3}]}`,
		`{"states": [{"graph": "g", "input": "s", "output": "s"}], "plainStates": [{"graph": "g", "input": "s", "output": "s_out"}]}`,
		`{"constantInputs": [{"graph": "a", "input": "w", "opId": "e"}, {"graph": "b", "input": "w", "opId": "e"}]}`,
		`{"stateScales": [{"graph": "a", "state": "s", "log2": -149}, {"graph": "b", "state": "s", "log2": 127}]}`,
	} {
		if _, err := Parse([]byte(in), "anefix.json"); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// 60,000 copies of one constant input made verify take 22 s (issue 21);
// they are refused when the record is read.
func TestParseRecordRefusesRepeatedConstants(t *testing.T) {
	one := `{"graph": "main", "input": "model.embed_tokens.weight", "opId": "embedding", "resource": "model.embed_tokens.weight", "type": "tensor<256x32xf16>", "bytes": 16384}`
	b := []byte(`{"constantInputs": [` + strings.TrimSuffix(strings.Repeat(one+",", 60000), ",") + `]}`)
	if _, err := Parse(b, "anefix.json"); err == nil || !strings.Contains(err.Error(), "constantInputs[1] repeats") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"tool":"anefix","passes":[],"ioChanges":[],"states":[],"constantInputs":[{"graph":"main","input":"w","opId":"embedding","resource":"w","type":"tensor<2xf16>","bytes":4}]}`))
	f.Add([]byte(`{"plainStates":[{"graph":"main","input":"conv_state","output":"conv_state_out"}]}`))
	f.Add([]byte(`{`))
	f.Add([]byte(`{"version":2,"zz":{"a":[1,{"b":null}]},"states":[{"graph":"g","input":"s","output":"t","x":"<>"}]}`))
	f.Add([]byte(`{"version":3}`))
	f.Add([]byte(`{"version":1e400}`))
	f.Add([]byte(`{"Version":2,"TOOL":"x","tool":"y","ioChanges":[{"Pass":"p","pass":"q","\u0070ass":"r"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b, "anefix.json")
		if err == nil && r == nil {
			t.Fatal("nil record without an error")
		}
		if err != nil {
			return
		}
		// Written and read again, the record writes the same bytes: what
		// anefix writes is a fixed point (unknown members included).
		w, err := r.Encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		r2, err := Parse(w, "again")
		if err != nil {
			t.Fatalf("what Encode wrote does not read back: %v\n%s", err, w)
		}
		if w2, err := r2.Encode(); err != nil || !bytes.Equal(w, w2) {
			t.Fatalf("read and written again: %v\n%s\nwas\n%s", err, w2, w)
		}
		// What a reader may rely on: bounded scales, summed without wrapping.
		for _, fn := range []string{"", "main"} {
			for s, k := range r.StateLog2(fn) {
				if k < minStateLog2*len(r.StateScales) || k > maxStateLog2*len(r.StateScales) {
					t.Fatalf("state %q: log2 sum %d out of bounds", s, k)
				}
			}
		}
	})
}

func TestStateScales(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		want    map[string]int
		errWant string
	}{
		{name: "no scales", text: `{"tool": "anefix x", "passes": ["dce"], "ioChanges": [], "states": []}`, want: map[string]int{}},
		{name: "two scales", text: `{"tool": "anefix x", "stateScales": [{"graph": "main", "state": "rec_state", "log2": 3, "form": "attribute"}, {"graph": "other", "state": "s", "log2": -1, "form": "handle"}]}`,
			want: map[string]int{"rec_state": 3, "s": -1}},
		{name: "syntax error", text: `{"tool": `, errWant: "rec.json"},
		{name: "wrong type", text: `{"stateScales": [{"log2": "three"}]}`, errWant: "rewrite the model again"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse([]byte(tc.text), "rec.json")
			if tc.errWant != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWant) {
					t.Fatalf("err = %v, want one containing %q", err, tc.errWant)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := r.StateLog2("")
			if len(got) != len(tc.want) {
				t.Fatalf("StateLog2 = %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("StateLog2[%s] = %d, want %d", k, got[k], v)
				}
			}
			// Encode round-trips.
			b, err := r.Encode()
			if err != nil {
				t.Fatal(err)
			}
			r2, err := Parse(b, "again")
			if err != nil || len(r2.StateScales) != len(r.StateScales) {
				t.Errorf("round trip: %v, %+v", err, r2)
			}
		})
	}
}

func TestRecordThen(t *testing.T) {
	first := Record{Tool: "anefix a", Passes: []string{"strip-fp32-casts", "promote-states"}, Entries: Entries{IOChanges: []IOChange{{Pass: "promote-states", Port: "s"}}, States: []State{{Input: "s", Output: "s_out"}}, StateScales: []StateScale{{State: "s", Log2: 1}}}}
	// A run that changed nothing keeps the record.
	same := first.Then(Record{Tool: "anefix a", Passes: []string{"strip-fp32-casts", "promote-states"}, Entries: Entries{IOChanges: []IOChange{}, States: []State{}}})
	a, _ := first.Encode()
	b, _ := same.Encode()
	if string(a) != string(b) {
		t.Errorf("no-op run changed the record:\n%s\n%s", a, b)
	}
	// A run that changed something adds its entries and new passes.
	more := first.Then(Record{Tool: "anefix b", Passes: []string{"scale-state"}, Entries: Entries{StateScales: []StateScale{{State: "s", Log2: 2}}}})
	if more.Tool != "anefix b" || len(more.Passes) != 3 || more.Passes[2] != "scale-state" || more.StateLog2("")["s"] != 3 || len(more.IOChanges) != 1 {
		t.Errorf("composed record: %+v", more)
	}
	var none *Record
	if got := none.Then(first); got.Tool != first.Tool || len(got.Passes) != 2 {
		t.Errorf("nil.Then = %+v", got)
	}
}
