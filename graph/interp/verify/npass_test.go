package verify

import (
	"os"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// npLoad parses a testdata module twice (reference and candidate).
func npLoad(t *testing.T, path string) (*graph.Module, *graph.Module) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ms [2]*graph.Module
	for i := range ms {
		m, _, err := mlirtext.Parse(path, string(b))
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		ms[i] = m
	}
	return ms[0], ms[1]
}

// npApply runs the named passes (with --set assignments) on m.
func npApply(t *testing.T, m *graph.Module, names []string, set ...string) {
	t.Helper()
	p, err := passes.Build(passes.Spec{Passes: names, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
}

// finite-masks on the done-when module (a -inf causal mask added to the
// scores before a softmax) must not change one output bit over 24 steps of
// random scores.
func TestFiniteMasksVerify(t *testing.T) {
	for _, value := range []string{"-40000", "-30000", "-65504"} {
		ref, cand := npLoad(t, "../../../testdata/hazards/finite_mask_softmax.mlir")
		npApply(t, cand, []string{"finite-masks"}, "finite-masks.value="+value)
		r, err := Compare(ref, cand, Options{Steps: 24})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Identical || r.Agree != r.N {
			t.Errorf("finite-masks value=%s changed the results: %d/%d, identical %v, PSNR %.1f", value, r.Agree, r.N, r.Identical, r.PSNR)
		}
	}
}
