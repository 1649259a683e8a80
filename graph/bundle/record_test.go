package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecord(t *testing.T) {
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
			r, err := ParseRecord("rec.json", []byte(tc.text))
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
			r2, err := ParseRecord("again", b)
			if err != nil || len(r2.StateScales) != len(r.StateScales) {
				t.Errorf("round trip: %v, %+v", err, r2)
			}
		})
	}
}

func TestReadRecordAbsent(t *testing.T) {
	dir := t.TempDir()
	if r, err := ReadRecord(dir); r != nil || err != nil {
		t.Fatalf("ReadRecord of a directory without anefix.json = %v, %v; want nil, nil", r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, RecordFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecord(dir); err == nil || !strings.Contains(err.Error(), RecordFile) {
		t.Fatalf("ReadRecord of a broken anefix.json: %v, want an error naming the file", err)
	}
}

func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"tool": "anefix x", "stateScales": [{"graph": "main", "state": "rec_state", "log2": 3, "form": "attribute"}]}`))
	f.Add([]byte(`{"passes": null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRecord("fuzz.json", b)
		if err != nil {
			return
		}
		_ = r.StateLog2("main")
		if _, err := r.Encode(); err != nil {
			t.Fatalf("a parsed record does not encode: %v", err)
		}
	})
}
