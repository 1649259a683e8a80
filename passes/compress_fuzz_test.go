package passes_test

import (
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
// module verifiable, and every new blob gives its declared size. Seeds:
// testdata/passes, the compressed-weight test modules.
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
		if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
			return // a refusal is fine; it must name the problem (tested elsewhere)
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
