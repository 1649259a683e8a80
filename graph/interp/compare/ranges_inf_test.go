package compare

import (
	"math"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

// --ranges gives an op that went inf the magnitude inf, not the 0 of a
// finite-only peak it never reached (issue 28, item 18), and an op whose
// values were all NaN the magnitude NaN. By hand: in f16, 60000 + 60000 =
// 120000 rounds past 65504 to inf; inf − inf is NaN; [60000, 1] + [60000,
// 1] = [inf, 2].
func TestRangesInfMagnitude(t *testing.T) {
	const text = `module {
  coreai.graph @main(%arg0: tensor<2xf16> {coreai.name = "hidden"}) -> (tensor<2xf16> {coreai.name = "logits"}, tensor<2xf16> {coreai.name = "n"}, tensor<2xf16> {coreai.name = "m"}) {
    %a = coreai.constant dense<6.000000e+04> : tensor<2xf16> loc("a"("/m.py":1:0))
    %s = coreai.decomposable.broadcasting_add %a, %a : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16> loc("s"("/m.py":2:0))
    %n = coreai.decomposable.broadcasting_sub %s, %s : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16> loc("n"("/m.py":3:0))
    %b = coreai.constant dense<[6.000000e+04, 1.000000e+00]> : tensor<2xf16> loc("b"("/m.py":4:0))
    %m = coreai.decomposable.broadcasting_add %b, %b : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16> loc("m"("/m.py":5:0))
    coreai.output %arg0, %n, %m : tensor<2xf16>, tensor<2xf16>, tensor<2xf16>
  }
}
`
	m, _, err := mlirtext.Parse("inf.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(m, m, Options{Steps: 1, Ranges: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Range{}
	for _, r := range res.Ranges {
		if r.Graph == "reference" {
			got[r.OpID] = r
		}
	}
	for _, w := range []struct {
		id   string
		want float64
	}{{"s", math.Inf(1)}, {"n", math.NaN()}, {"m", math.Inf(1)}} {
		r, ok := got[w.id]
		if !ok {
			t.Errorf("op %s not listed (ranges %+v)", w.id, res.Ranges)
			continue
		}
		if !(r.MaxAbs == w.want || math.IsNaN(w.want) && math.IsNaN(r.MaxAbs)) {
			t.Errorf("op %s: max magnitude %v, want %v (flags %v)", w.id, r.MaxAbs, w.want, r.Flags)
		}
	}
}
