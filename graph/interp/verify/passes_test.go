package verify

import (
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// rewrite applies a pipeline of named passes to a fresh tiny arm A.
func rewrite(t *testing.T, names ...string) (*graph.Module, *graph.Module) {
	t.Helper()
	ref, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Skipf("synth: %v", err)
	}
	cand, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	p, err := passes.Build(passes.Spec{Passes: names})
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
// weights is measured and logged, whatever it is (not asserted).
func TestStripFP32CastsDrift(t *testing.T) {
	ref, cand := rewrite(t, "strip-fp32-casts")
	r, err := Compare(ref, cand, Options{Steps: 24, Prompt: []int64{1, 2, 3}})
	if err != nil {
		t.Fatalf("verify after strip-fp32-casts: %v", err)
	}
	t.Logf("strip-fp32-casts on tiny arm A (seed 0, prompt 1,2,3): top-1 agreement: %d/%d, first divergence %d, logits PSNR %.1f dB", r.Agree, r.N, r.FirstDivergence, r.PSNR)
	for _, s := range r.States {
		t.Logf("  state %s: max|Δ| %.3g, relative RMS %.3g, identical %v", s.Name, s.MaxAbs, s.RelRMS, s.Identical)
	}
	if r.Identical {
		t.Error("strip-fp32-casts reported bit-identical: the fp32 island was not changed")
	}
}
