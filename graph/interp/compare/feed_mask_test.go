package compare

import (
	"fmt"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

// A mask input of rank 0 has no position axis to open: its one element
// is fed as "attention allowed" (0 for an additive mask, true for a
// boolean one) at every position, instead of a panic in feed (issue 28,
// item 1: slice bounds out of range [1:0]).
func TestFeedRankZeroMask(t *testing.T) {
	for _, c := range []struct {
		elem string
		want float64
	}{{"f16", 0}, {"f32", 0}, {"i1", 1}} {
		t.Run(c.elem, func(t *testing.T) {
			text := fmt.Sprintf(`module {
  coreai.graph @main(%%arg0: tensor<1xsi32> {coreai.name = "input_ids"}, %%arg1: tensor<%[1]s> {coreai.name = "causal_mask"}) -> (tensor<4xf32> {coreai.name = "logits"}) {
    %%0 = coreai.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
    coreai.output %%0 : tensor<4xf32>
  }
}
`, c.elem)
			m, _, err := mlirtext.Parse("t.mlir", text)
			if err != nil {
				t.Fatal(err)
			}
			s, err := newSide(m, "", Options{}.Ref)
			if err != nil {
				t.Fatal(err)
			}
			defer s.in.Close()
			for _, pos := range []int{0, 1, 7} {
				if err := s.feed(1, pos, nil); err != nil {
					t.Fatal(err)
				}
				if got := s.args[1].Float64At(0); got != c.want {
					t.Errorf("position %d: mask fed %v, want %v", pos, got, c.want)
				}
			}
			res, err := Compare(m, m, Options{Steps: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Identical || res.Agree != 3 {
				t.Errorf("identical %v, agree %d/3", res.Identical, res.Agree)
			}
		})
	}
}
