package compare

import (
	"fmt"
	"math"
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
// Every pass named here accepts tiny arm A (none documents refusing it), so
// a pipeline that cannot be built or fails on it fails the test: a skip
// here once kept TestStructuralPassesBitIdentical green while
// fold-io-unsqueeze errored on every model.
func rewriteSet(t *testing.T, names []string, islands string) (*graph.Module, *graph.Module) {
	t.Helper()
	ref, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatalf("synth: %v", err)
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
		t.Fatalf("pipeline %v: %v", names, err)
	}
	if _, err := p.Run(cand, passes.RunOptions{}); err != nil {
		t.Fatalf("pipeline %v failed on tiny arm A: %v", names, err)
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

// driftWant is what TestStripFP32CastsDrift measured for one islands
// setting and prompt (tiny arm A seed 0, 24 steps; the interpreter is
// deterministic, so top-1 agreement and first divergence are exact, PSNR
// within 0.05 dB and the worst state's relative RMS within 1 %, the
// rounding of the figures below).
type driftWant struct {
	agree, firstDiv int
	psnr            float64 // dB
	worstRelRMS     float64
}

// strip-fp32-casts changes precision: its drift on tiny arm A with seeded
// weights is measured for all islands, the default (the islands check
// flags: the recurrence), the recurrence islands by source glob and the
// RMSNorm islands only. The numerics table of testdata/measurements.md
// (rows "default pipeline" and "islands=all (norms in fp16)": every
// position's top-1 lost, the states destroyed, drift 1) measures the same contrast over 256
// positions; here it is asserted over 24 steps: with the norms in fp16 no
// step agrees and the worst state's relative RMS is at least 0.99 ("drift
// 1"), with the default the [1 2 3] prompt keeps every step. The exact
// figures are pinned too (re-measure with -v and update them with the
// change that moves them, saying why).
func TestStripFP32CastsDrift(t *testing.T) {
	normsFP16 := map[string]driftWant{
		"[1]":     {agree: 0, firstDiv: 0, psnr: 1.1, worstRelRMS: 1.07},
		"[1 2 3]": {agree: 0, firstDiv: 0, psnr: 1.1, worstRelRMS: 1.13},
	}
	recurrence := map[string]driftWant{
		"[1]":     {agree: 14, firstDiv: 12, psnr: 23.8, worstRelRMS: 1.46},
		"[1 2 3]": {agree: 24, firstDiv: -1, psnr: 70.8, worstRelRMS: 0.00198},
	}
	for _, c := range []struct {
		name, islands string
		want          map[string]driftWant
	}{
		{"all islands", "all", normsFP16},
		{"default (blockers)", "", recurrence},
		{"recurrence only", "*qwen3_5.py:199*", recurrence},
		{"RMSNorm only", "*qwen3_5_ios.py:58*", normsFP16},
	} {
		for _, prompt := range [][]int64{{1}, {1, 2, 3}} {
			ref, cand := rewriteSet(t, []string{"strip-fp32-casts"}, c.islands)
			r, err := Compare(ref, cand, Options{Steps: 24, Prompt: prompt})
			if err != nil {
				t.Fatalf("verify after strip-fp32-casts (%s): %v", c.name, err)
			}
			t.Logf("strip-fp32-casts, %s, tiny arm A seed 0, prompt %v: top-1 agreement: %d/%d, first divergence %d, logits PSNR %.1f dB",
				c.name, prompt, r.Agree, r.N, r.FirstDivergence, r.PSNR)
			worst := 0.0
			for _, s := range r.States {
				t.Logf("    state %s: max|Δ| %.3g, relative RMS %.3g", s.Name, s.MaxAbs, s.RelRMS)
				worst = max(worst, s.RelRMS)
			}
			if r.Identical {
				t.Errorf("%s: reported bit-identical: the fp32 islands were not changed", c.name)
			}
			w := c.want[fmt.Sprint(prompt)]
			if r.Agree != w.agree || r.N != 24 || r.FirstDivergence != w.firstDiv ||
				math.Abs(r.PSNR-w.psnr) > 0.05 || math.Abs(worst-w.worstRelRMS) > 0.01*w.worstRelRMS || len(r.States) != 4 {
				t.Errorf("%s, prompt %v: top-1 %d/%d, first divergence %d, PSNR %.2f dB, worst state relative RMS %.4g over %d states; want %d/24, %d, %.1f dB, %.3g over 4",
					c.name, prompt, r.Agree, r.N, r.FirstDivergence, r.PSNR, worst, len(r.States), w.agree, w.firstDiv, w.psnr, w.worstRelRMS)
			}
			if w.agree == 0 && worst < 0.99 {
				t.Errorf("%s, prompt %v: norms in fp16 left the worst state at relative RMS %.3g, the numerics table measures drift 1 (testdata/measurements.md)", c.name, prompt, worst)
			}
		}
	}
}
