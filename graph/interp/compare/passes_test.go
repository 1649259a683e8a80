package compare

import (
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
	// strip-fp32-casts' default (islands=blockers) asks the Neural
	// Engine rule model, which registers itself from its init.
	_ "github.com/anefix/anefix/passes/ane"
)

// rewrite applies a pipeline of named passes to a fresh tiny arm A.
func rewrite(t *testing.T, names ...string) (*graph.Module, *graph.Module) {
	t.Helper()
	return rewriteSet(t, names, "")
}

// rewriteSet is rewrite with strip-fp32-casts.islands set (when non-empty).
func rewriteSet(t *testing.T, names []string, islands string) (*graph.Module, *graph.Module) {
	t.Helper()
	ref, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Skipf("synth: %v", err)
	}
	cand, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	spec := passes.Spec{Passes: names}
	if islands != "" {
		spec.Set = []string{"strip-fp32-casts.islands=" + islands}
	}
	p, err := passes.Build(spec)
	if err != nil {
		t.Skipf("pipeline %v not available: %v", names, err)
	}
	if _, err := p.Run(cand, passes.RunOptions{}); err != nil {
		t.Skipf("pipeline %v failed on arm A (owned by the passes package): %v", names, err)
	}
	return ref, cand
}

// Structural passes must not change a single computed bit over 24 steps
// on tiny arm A: outputs and every state.
func TestStructuralPassesBitIdentical(t *testing.T) {
	for _, name := range []string{"fold-io-unsqueeze", "promote-states", "dce", "fold-casts"} {
		t.Run(name, func(t *testing.T) {
			ref, cand := rewrite(t, name)
			r, err := Compare(ref, cand, Options{Steps: 24, Prompt: []int64{1, 2, 3}})
			if err != nil {
				t.Fatalf("verify after %s: %v", name, err)
			}
			if !r.Identical || r.Agree != r.N {
				t.Errorf("%s changed the numbers: top-1 %d/%d, PSNR %.1f dB, states %+v", name, r.Agree, r.N, r.PSNR, r.States)
			}
			t.Logf("%s: top-1 agreement %d/%d, bit-identical %v, notes %v", name, r.Agree, r.N, r.Identical, r.Notes)
		})
	}
}

// strip-fp32-casts changes precision: its drift on tiny arm A with seeded
// weights is measured and logged, whatever it is (not asserted), for all
// islands, the default (the islands check flags: the recurrence), the
// recurrence islands by source glob and the RMSNorm islands only.
func TestStripFP32CastsDrift(t *testing.T) {
	for _, c := range []struct{ name, islands string }{
		{"all islands", "all"},
		{"default (blockers)", ""},
		{"recurrence only", "*qwen3_5.py:199*"},
		{"RMSNorm only", "*qwen3_5_ios.py:58*"},
	} {
		for _, prompt := range [][]int64{{1}, {1, 2, 3}} {
			ref, cand := rewriteSet(t, []string{"strip-fp32-casts"}, c.islands)
			r, err := Compare(ref, cand, Options{Steps: 24, Prompt: prompt})
			if err != nil {
				t.Fatalf("verify after strip-fp32-casts (%s): %v", c.name, err)
			}
			t.Logf("strip-fp32-casts, %s, tiny arm A seed 0, prompt %v: top-1 agreement: %d/%d, first divergence %d, logits PSNR %.1f dB",
				c.name, prompt, r.Agree, r.N, r.FirstDivergence, r.PSNR)
			for _, s := range r.States {
				t.Logf("    state %s: max|Δ| %.3g, relative RMS %.3g", s.Name, s.MaxAbs, s.RelRMS)
			}
			if r.Identical {
				t.Errorf("%s: reported bit-identical: the fp32 islands were not changed", c.name)
			}
		}
	}
}
