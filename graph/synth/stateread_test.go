package synth

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// The gated-delta step reads its state with multiply-and-sum by default
// (two reduce_sums per step, coreai-torch's composite) and with three batch
// matmuls per step under StateReadMatmul; both forms build the same
// module otherwise.
func TestStateRead(t *testing.T) {
	count := func(m *graph.Module) map[string]int {
		out := map[string]int{}
		m.Walk(func(op *graph.Operation) bool {
			out[op.Name]++
			return true
		})
		return out
	}
	sum, err := Generate(Options{Arm: ArmA})
	if err != nil {
		t.Fatal(err)
	}
	mm, err := Generate(Options{Arm: ArmA, StateRead: StateReadMatmul})
	if err != nil {
		t.Fatal(err)
	}
	nLin, _ := Options{Arm: ArmA}.hybridDims().Counts()
	cs, cm := count(sum), count(mm)
	cases := []struct {
		op   string
		diff int // sum form minus matmul form
	}{
		{"coreai.reduce_sum", 2 * nLin},
		{"coreai.decomposable.broadcasting_batch_matmul", -3 * nLin},
		{"coreai.transpose", nLin}, // q joins k as a column
	}
	for _, c := range cases {
		if got := cs[c.op] - cm[c.op]; got != c.diff {
			t.Errorf("%s: sum form %d, matmul form %d, difference %d, want %d", c.op, cs[c.op], cm[c.op], got, c.diff)
		}
	}
	if _, err := Generate(Options{Arm: ArmA, StateRead: "conv"}); err == nil {
		t.Error("an unknown state-read form was accepted")
	}
}
