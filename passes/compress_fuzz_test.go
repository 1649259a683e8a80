package passes_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// FuzzCompressionPasses runs legalize-weights, palettize and
// quantize-weights (with min-elements 0, so that any float constant is a
// candidate) on any text that parses and verifies, then reads every blob
// they made, as a writer does: no panic, a pass that succeeds leaves the
// module verifiable, reports a finite error for every weight it compressed
// (a weight that became inf or NaN must be left as it was), and every new
// blob gives its declared size. Seeds: testdata/passes, the
// compressed-weight test modules, and testdata/fuzz (weights at ±65504 and
// all-subnormal weights, issue 28).
func FuzzCompressionPasses(f *testing.F) {
	for _, glob := range []string{"../testdata/passes/*.mlir", "../testdata/rules/compressed.mlir", "../testdata/mlir/coreai/compression.mlir"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b), uint8(0))
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string, choice uint8) {
		m, _, err := mlirtext.Parse("fuzz.mlir", text)
		if err != nil || graph.Verify(m) != nil {
			return
		}
		sets := [][]string{
			{"palettize.min-elements=0"},
			{"palettize.min-elements=0", "palettize.granularity=per-channel", "palettize.bits=2"},
			{"palettize.min-elements=0", "palettize.lut-dtype=si8", "palettize.per-channel-scale=true"},
			{"palettize.min-elements=0", "palettize.cluster-dim=2"},
			{"quantize-weights.min-elements=0", "quantize-weights.dtype=si4", "quantize-weights.granularity=per-block", "quantize-weights.block-size=2"},
			{"quantize-weights.min-elements=0", "quantize-weights.qscheme=asymmetric"},
		}
		set := sets[int(choice)%len(sets)]
		old := map[*graph.Resource]bool{}
		for _, r := range m.Resources {
			old[r] = true
		}
		p, err := passes.Build(passes.Spec{Passes: []string{"legalize-weights", "palettize", "quantize-weights"}, Set: set})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
		if err != nil {
			return // a refusal is fine; it must name the problem (tested elsewhere)
		}
		for _, st := range res.Steps {
			for _, cw := range st.Change.Compressed {
				if math.IsInf(cw.ErrorPower, 0) || math.IsNaN(cw.ErrorPower) {
					t.Fatalf("%s compressed %s (%s) with error power %v\ninput:\n%s", st.Pass, cw.Op.OpName, cw.Form, cw.ErrorPower, text)
				}
			}
		}
		if err := graph.Verify(m); err != nil {
			t.Fatalf("left an unverifiable module: %v\ninput:\n%s", err, text)
		}
		for _, r := range m.Resources {
			if old[r] || r.Blob == nil {
				continue
			}
			if _, err := r.Bytes(); err != nil {
				t.Fatalf("blob %s: %v\ninput:\n%s", r.Key, err, text)
			}
		}
	})
}
