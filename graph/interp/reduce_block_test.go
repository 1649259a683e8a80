package interp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// reduce's block path (reduceBlock, for reduced axes that are one run of
// adjacent axes) gives reduceWalk's bits, NaN payloads and signed zeros
// included, over generated shapes, runs of axes, every reduction and both
// accumulators; and other axis sets are left to the walk.
func TestReduceBlockMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	ops := []string{"reduce_sum", "reduce_mean", "reduce_product", "reduce_max", "reduce_min"}
	cases := 0
	for trial := range 400 {
		rank := 1 + r.IntN(4)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1 + r.IntN(5)
			if r.IntN(8) == 0 {
				shape[i] = 0 // an empty axis
			}
		}
		lo := r.IntN(rank)
		hi := lo + r.IntN(rank-lo)
		red := make([]bool, rank)
		for i := lo; i <= hi; i++ {
			red[i] = true
		}
		n := numel(shape)
		src := make([]float32, n)
		for i := range src {
			if trial%2 == 0 {
				src[i] = randAct(r)
			} else {
				src[i] = float32(r.NormFloat64())
			}
		}
		kshape := make([]int, rank)
		for i, d := range shape {
			kshape[i] = d
			if red[i] {
				kshape[i] = 1
			}
		}
		ostr := bstrides(kshape, shape)
		outer, rr, inner, ok := reducedBlock(shape, red)
		if !ok {
			t.Fatalf("shape %v, axes %d..%d: a run of axes not taken as a block", shape, lo, hi)
		}
		for _, op := range ops {
			for _, narrow := range []bool{false, true} {
				init, step, _ := reduceStep(op)
				want := make([]float32, numel(kshape))
				got := make([]float32, len(want))
				for i := range want {
					want[i], got[i] = init, init
				}
				reduceWalk(src, want, shape, ostr, step, narrow)
				reduceBlock(op, src, got, outer, rr, inner, step, narrow)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s narrow=%v shape %v axes %d..%d, output %d: block %#08x (%g), walk %#08x (%g)",
							op, narrow, shape, lo, hi, i, math.Float32bits(got[i]), got[i], math.Float32bits(want[i]), want[i])
					}
				}
				cases++
			}
		}
	}
	if _, _, _, ok := reducedBlock([]int{2, 3, 4}, []bool{true, false, true}); ok {
		t.Error("axes 0 and 2 taken as one block")
	}
	t.Logf("%d cases", cases)
}
