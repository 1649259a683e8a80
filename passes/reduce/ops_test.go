package reduce

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/bisect"
)

const binary = "../../testdata/mlir/coreai/binary.mlir"

// Each step kind on testdata/mlir/coreai/binary.mlir: what it may act on,
// and that acting on every target leaves a valid, smaller model of the same
// kind (MLIR text here).
func TestStepKinds(t *testing.T) {
	src := bisect.Source{Path: binary}
	before, err := countOps(src)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind    string
		targets int
		shrinks bool
	}{
		// One entry graph: it stays.
		{kindDropGraph, 0, false},
		// Every op but the terminator has static int/float/i1 results,
		// except the cast to tensor<?x3xsi32>.
		{kindToConstant, 6, true},
		// add and where (an operand of x's type) and and (an i1 operand);
		// greater and the casts change the type.
		{kindPassThrough, 3, true},
		// No constants.
		{kindShrinkConstant, 0, false},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			idx, err := eligible(src, c.kind)
			if err != nil {
				t.Fatal(err)
			}
			if len(idx) != c.targets {
				t.Fatalf("%d targets, want %d", len(idx), c.targets)
			}
			if len(idx) == 0 {
				return
			}
			out := filepath.Join(t.TempDir(), "out.mlir")
			names, n, err := apply(src, c.kind, idx, out)
			if err != nil {
				t.Fatal(err)
			}
			if len(names) != len(idx) || c.shrinks && n >= before {
				t.Errorf("names %v, %d ops (before %d)", names, n, before)
			}
			o, err := bisect.Source{Path: out}.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			if err := graph.Verify(o.Module); err != nil {
				t.Fatal(err)
			}
			if o.Module.NumOps() != n {
				t.Errorf("written %d ops, reported %d", o.Module.NumOps(), n)
			}
		})
	}
	// Nothing to act on is not a candidate.
	if _, _, err := apply(src, kindToConstant, nil, filepath.Join(t.TempDir(), "x.mlir")); !errors.Is(err, bisect.ErrSkipCandidate) {
		t.Errorf("empty target list: %v", err)
	}
}

func TestSplitN(t *testing.T) {
	for n := 1; n <= 5; n++ {
		parts := bisect.Split([]int{0, 1, 2, 3, 4}, n)
		total := 0
		for _, p := range parts {
			total += len(p)
		}
		if len(parts) != n || total != 5 {
			t.Errorf("n=%d: %v", n, parts)
		}
	}
}
