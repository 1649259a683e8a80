package compare

import (
	"math"
	"testing"

	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// rsRun rewrites a fresh tiny arm A (massive activations and trained gates,
// synth's defaults) with spec and compares it with the export fed the same
// 40-token prompt (teacher-forced: both graphs read the same tokens), under
// cand's numerics. It returns the worst cosine and max |Δ| of the logits
// over the prompt positions, and whether any was non-finite.
func rsRun(t *testing.T, spec passes.Spec, cand interp.Options) (cos, maxAbs float64) {
	t.Helper()
	return rsRunRef(t, spec, interp.Options{}, cand)
}

// rsRunRef is rsRun with the reference's numerics too.
func rsRunRef(t *testing.T, spec passes.Spec, refOpts, cand interp.Options) (cos, maxAbs float64) {
	t.Helper()
	ref, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	p, err := passes.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(m, passes.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	prompt := make([]int64, 40)
	for i := range prompt {
		prompt[i] = int64((i*97 + 13) % 256) // a fixed spread of ids
	}
	r, err := Compare(ref, m, Options{Steps: 1, Prompt: prompt, Ref: refOpts, Cand: cand})
	if err != nil {
		t.Fatal(err)
	}
	cos = 1
	for _, s := range r.Steps {
		if !s.Prompt {
			continue
		}
		c := s.Cosine
		if math.IsNaN(c) {
			c = -1 // a non-finite logit
		}
		cos = math.Min(cos, c)
		if math.IsNaN(s.MaxAbs) || math.IsInf(s.MaxAbs, 0) {
			maxAbs = math.Inf(1)
		} else {
			maxAbs = math.Max(maxAbs, s.MaxAbs)
		}
	}
	return cos, maxAbs
}

// Synth's massive residual channels (hundreds on tiny arm A) overflow the
// squares of an RMSNorm retyped to fp16 (|x| > 256): islands=all breaks
// the logits, as it would a trained model's, and residual-scale (stream
// divided by 2^6 at its default k=auto, epsilon by 2^12) brings them back to the level of the
// default pipeline, which keeps the norms in f32. Both numerics profiles.
func TestResidualScaleIslandsAll(t *testing.T) {
	base := []string{"strip-fp32-casts", "fold-casts", "dce"}
	withRS := []string{"strip-fp32-casts", "residual-scale", "fold-casts", "dce"}
	for _, nm := range []struct {
		name string
		opts interp.Options
	}{{"ieee", interp.Options{}}, {"ane", interp.Options{ANE: &interp.ANE{Family: interp.PreA16}}}} {
		t.Run(nm.name, func(t *testing.T) {
			defCos, defMax := rsRun(t, passes.Spec{Passes: base}, nm.opts)
			allCos, allMax := rsRun(t, passes.Spec{Passes: base, Set: []string{"strip-fp32-casts.islands=all"}}, nm.opts)
			rsCos, rsMax := rsRun(t, passes.Spec{Passes: withRS, Set: []string{"strip-fp32-casts.islands=all"}}, nm.opts)
			t.Logf("%s, tiny arm A, 40 teacher-forced positions: default pipeline worst cosine %.6f max|Δ| %.4g; islands=all %.6f, %.4g; islands=all + residual-scale %.6f, %.4g",
				nm.name, defCos, defMax, allCos, allMax, rsCos, rsMax)
			if allCos > 0.9 {
				t.Errorf("islands=all kept the logits (worst cosine %.4f): the massive channels no longer overflow the fp16 norms", allCos)
			}
			if rsCos < 0.999 || math.IsInf(rsMax, 0) || rsMax > 4*defMax+0.01 {
				t.Errorf("islands=all + residual-scale: worst cosine %.6f, max|Δ| %.4g; want ≥ 0.999 and within 4× the default pipeline's %.4g", rsCos, rsMax, defMax)
			}
		})
	}
}

// RMSNorm(x·2^-k) with ε·2^-2k is RMSNorm(x) (hand derivation: the mean of
// squares scales by 2^-2k, its rsqrt by 2^k), and multiplying by a power of
// two is exact in binary floating point away from the subnormals: on the
// export as written (norms in f32), residual-scale alone leaves the logits
// equal to within float32 rounding when both graphs compute in f32
// (interp's Wide: the f16 stream kept in float32, so no scaled value is
// subnormal). In f16 (ieee) the stream's small entries do go subnormal
// below 2^-14·2^k; that loss is logged, not asserted.
func TestResidualScaleExact(t *testing.T) {
	wide := interp.Options{Wide: true}
	for _, k := range []string{"1", "4", "8"} {
		spec := passes.Spec{Passes: []string{"residual-scale"}, Set: []string{"residual-scale.k=" + k}}
		cos, maxAbs := rsRunRef(t, spec, wide, wide)
		_, f16Max := rsRun(t, spec, interp.Options{})
		t.Logf("k=%s: f32 worst cosine %.9f, max|Δ| %.3g; f16 ieee max|Δ| %.3g", k, cos, maxAbs, f16Max)
		if maxAbs > 1e-5 {
			t.Errorf("k=%s: in f32 the logits moved by %.3g, more than float32 rounding of logits of size ~10 (1e-6 each op)", k, maxAbs)
		}
	}
}
