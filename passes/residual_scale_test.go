package passes

import (
	"math"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
)

// residual-scale's k: auto (the default, 0 in the struct) or 1..14, and
// nothing else.
func TestResidualScaleK(t *testing.T) {
	for _, c := range []struct {
		set     string
		want    int
		wantErr string
	}{
		{"", 0, ""},
		{"k=auto", 0, ""},
		{"k=5", 5, ""},
		{"k=14", 14, ""},
		{"k=0", 0, `option k: "0" is not auto or 1..14`},
		{"k=15", 0, `option k: "15" is not auto or 1..14`},
		{"k=-1", 0, `option k: "-1" is not auto or 1..14`},
		{"k=six", 0, `option k: "six" is not auto or 1..14`},
	} {
		var sets []string
		if c.set != "" {
			sets = []string{c.set}
		}
		o, err := ParseOptions[residualScaleOptions](sets...)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: err %v, want one saying %q", c.set, err, c.wantErr)
			}
			continue
		}
		if err != nil || o.K != c.want {
			t.Errorf("%q: k %v, err %v; want %d", c.set, o, err, c.want)
		}
	}
}

// On tiny synth arm A (width 32, testdata/synth) k=auto divides the stream
// by 2^6 and the norms' epsilon by 2^12: anefacts.StreamSafeK's hand
// derivation, (4·4096² + 28)·2^-12 = 16384.007 ≤ 32752 while ·2^-10 =
// 65536.03 is not (passes/anefacts/stream_test.go).
func TestResidualScaleAutoOnSynth(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseOptions[residualScaleOptions]("k=auto")
	if err != nil {
		t.Fatal(err)
	}
	before := map[*graph.Operation]bool{}
	m.Walk(func(op *graph.Operation) bool { before[op] = true; return true })
	ch, err := residualScale(m, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Notes) != 1 || !strings.Contains(ch.Notes[0], "divided by 2^6 ") || !strings.Contains(ch.Notes[0], "k=auto") {
		t.Fatalf("notes %q, want one stream divided by 2^6 by k=auto", ch.Notes)
	}
	// Every new splat constant is 2^-6 (the multiplies) or ε·2^-12.
	scales, eps := 0, 0
	m.Walk(func(op *graph.Operation) bool {
		if before[op] || !hasOpSuffix(op.Name, "constant") {
			return true
		}
		x, ok := rsScalar(op.Result(0))
		switch {
		case ok && x == math.Ldexp(1, -6):
			scales++
		case ok && x > 0 && x < 1e-8:
			eps++ // synth's ε (1e-6) times 2^-12 ≈ 2.4e-10
		default:
			t.Errorf("new constant %v (%v)", x, ok)
		}
		return true
	})
	if scales == 0 || eps == 0 {
		t.Errorf("%d multipliers of 2^-6, %d scaled epsilons; want some of each", scales, eps)
	}
}
