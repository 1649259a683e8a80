package plist

import (
	"errors"
	"testing"
)

// FuzzDecode: any bytes give a value within the limits or an *Error, never
// a panic, a hang or unbounded memory. Seeds: the hostile shapes of
// TestHostile (deep "(", the doubling DAG, deep one-element chains, huge
// counts, truncated offset tables), small forms of each, every
// hand-written case of TestForms and TestErrorsNamePositions, and the
// corpus's manifests at test time.
func FuzzDecode(f *testing.F) {
	for _, c := range hostileScaled(256) {
		f.Add(c.in)
	}
	for _, s := range []string{"((((((((", "{a={a={a={a=", "<plist><array><array><array>"} {
		f.Add([]byte(s))
	}
	f.Add(doublingDAG(8))
	f.Add(chainBinary(8))
	f.Add([]byte(`<plist><dict><key>Entry Function Attributes</key><dict><key>f_0</key><array><string>mps.disablePreAllocate</string>` +
		`<dict><key>mps.stateInputIndices</key><array><integer>0</integer><integer>1</integer></array></dict></array></dict></dict></plist>`))
	f.Add([]byte(`{ i = <*I-7>; r = <*R2.5>; y = <*BY>; d = <*D2024-05-06 07:08:09 +0000>; b = <[AAEC]>; h = <0a0b>; s = "\U00e9\101"; }`))
	f.Add([]byte("a = b;\nkeyonly;\n"))
	for _, b := range corpusManifestsF(f) {
		f.Add(b)
	}
	// The default depth and byte limits, fewer values (at 1<<20 a mutated
	// doubling DAG takes a fuzzer's second each), and tiny limits.
	lims := []Limits{{MaxValues: 1 << 14}, {MaxDepth: 4, MaxValues: 64, MaxBytes: 4096}}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, lim := range lims {
			v, r, err := Decode(in, lim)
			if err != nil {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("error of type %T: %v", err, err)
				}
				continue
			}
			l := newBudget(lim).lim
			if d := depthOf(v); d > l.MaxDepth {
				t.Fatalf("depth %d over MaxDepth %d", d, l.MaxDepth)
			}
			if n := countOf(v); n != r.Values || n > l.MaxValues {
				t.Fatalf("%d values in the tree, %d counted, MaxValues %d", n, r.Values, l.MaxValues)
			}
			if r.Bytes > l.MaxBytes {
				t.Fatalf("estimate %d over MaxBytes %d", r.Bytes, l.MaxBytes)
			}
			_ = Describe(v, 200)
		}
	})
}

// depthOf is the nesting of arrays, sets and dictionaries in v.
func depthOf(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depthOf(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, depthOf(e))
		}
		return d + 1
	case set:
		for _, e := range x {
			d = max(d, depthOf(e))
		}
		return d + 1
	}
	return 0
}

// countOf counts the values of v as the budget does: each container, each
// scalar, and each dictionary key.
func countOf(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 1
		for _, e := range x {
			n += 1 + countOf(e)
		}
		return n
	case []any:
		n := 1
		for _, e := range x {
			n += countOf(e)
		}
		return n
	case set:
		n := 1
		for _, e := range x {
			n += countOf(e)
		}
		return n
	}
	return 1
}
