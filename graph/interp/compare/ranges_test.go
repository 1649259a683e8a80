package compare

import (
	"slices"
	"testing"

	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/mlirtext"
)

// A matmul whose output (32760 → half 32768) passes the profile's cliff
// is flagged matmul-saturation under both numerics: past the cliff under
// IEEE, turned into inf (and flagged inf) under the ane profile. A slice
// with a nonzero last-axis begin over 5000 is flagged on pre-A16 only.
func TestRangesCliffs(t *testing.T) {
	const text = `module {
  coreai.graph @main(%arg0: tensor<1x2xf16> {coreai.name = "hidden"}) -> (tensor<1x2xf16> {coreai.name = "logits"}) {
    %a = coreai.constant dense<[[1.638000e+04, 1.638000e+04]]> : tensor<1x2xf16> loc("big"("/m.py":1:0))
    %w = coreai.constant dense<1.000000e+00> : tensor<2x1xf16> loc("ones"("/m.py":2:0))
    %y = "coreai.matmul"(%a, %w) : (tensor<1x2xf16>, tensor<2x1xf16>) -> tensor<1x1xf16> loc("mm"("/m.py":3:0))
    %c = coreai.constant dense<[[0.000000e+00, 5.000000e+03, 1.000000e+00]]> : tensor<1x3xf16> loc("row"("/m.py":4:0))
    %b = coreai.constant dense<[0, 1]> : tensor<2xsi32> loc("b"("/m.py":5:0))
    %e = coreai.constant dense<[1, 3]> : tensor<2xsi32> loc("e"("/m.py":5:0))
    %s = coreai.constant dense<[1, 1]> : tensor<2xsi32> loc("s"("/m.py":5:0))
    %sl = "coreai.slice"(%c, %b, %e, %s) : (tensor<1x3xf16>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<1x2xf16> loc("sl"("/m.py":6:0))
    %z = coreai.decomposable.broadcasting_add %arg0, %y : (tensor<1x2xf16>, tensor<1x1xf16>) -> tensor<1x2xf16> loc("add"("/m.py":7:0))
    %o = coreai.decomposable.broadcasting_add %z, %sl : (tensor<1x2xf16>, tensor<1x2xf16>) -> tensor<1x2xf16> loc("out"("/m.py":8:0))
    coreai.output %o : tensor<1x2xf16>
  }
}
`
	m, _, err := mlirtext.Parse("cliffs.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	flags := func(rs []Range, graphName, id string) []string {
		for _, r := range rs {
			if r.Graph == graphName && r.OpID == id {
				return r.Flags
			}
		}
		return nil
	}
	for _, c := range []struct {
		name        string
		cand        interp.Options
		fam         interp.Family
		mm, sl      []string
		refMM, refS []string
	}{
		{"ieee pre-a16", interp.Options{}, interp.PreA16, []string{"matmul-saturation"}, []string{"slice-saturation"}, []string{"matmul-saturation"}, []string{"slice-saturation"}},
		{"ane pre-a16", interp.Options{ANE: &interp.ANE{Family: interp.PreA16}}, interp.PreA16, []string{"inf", "matmul-saturation"}, []string{"inf", "slice-saturation"}, []string{"matmul-saturation"}, []string{"slice-saturation"}},
		{"ane a16", interp.Options{ANE: &interp.ANE{Family: interp.A16}}, interp.A16, []string{"inf", "matmul-saturation"}, nil, []string{"matmul-saturation"}, nil},
	} {
		res, err := Compare(m, m, Options{Steps: 1, Cand: c.cand, Ranges: true, Family: c.fam})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range []struct {
			graph, id string
			want      []string
		}{{"candidate", "mm", c.mm}, {"candidate", "sl", c.sl}, {"reference", "mm", c.refMM}, {"reference", "sl", c.refS}} {
			if got := flags(res.Ranges, w.graph, w.id); !slices.Equal(got, w.want) {
				t.Errorf("%s: %s %s flags %v, want %v (all: %+v)", c.name, w.graph, w.id, got, w.want, res.Ranges)
			}
		}
	}
}
