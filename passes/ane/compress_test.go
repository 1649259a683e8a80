package ane

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// check names legalize-weights for linear INT4 weights only where the pass
// rewrites them: constant data yes; data that is a graph input no, and the
// finding says why and what would.
func TestLinearInt4Fix(t *testing.T) {
	for _, c := range []struct {
		name, data, arg string
		fix             string
		detail          string
	}{
		{"constant", `%d = coreai.constant dense<3> : tensor<64x2xsi4>`, "", "legalize-weights", ""},
		{"input", "", `, %d: tensor<64x2xsi4> {coreai.name = "q"}`, "", "not a constant"},
	} {
		src := `module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "ids"}` + c.arg + `) -> (tensor<1x2xf16> {coreai.name = "x"}) {
    ` + c.data + `
    %s = coreai.constant dense<1.250000e-02> : tensor<1x1xf16>
    %w = coreai.blockwise_shift_scale %d, %s : (tensor<64x2xsi4>, tensor<1x1xf16>) -> tensor<64x2xf16>
    %g = coreai.gather_nd %w at %arg0 : (tensor<64x2xf16>, tensor<1x1xsi32>) to tensor<1x2xf16>
    coreai.output %g : tensor<1x2xf16>
  }
}`
		m, _, err := mlirtext.Parse(c.name+".mlir", src)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rep, err := Check(m)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range rep.AllFindings() {
			if f.Rule != ruleLinearInt4 {
				continue
			}
			n++
			if f.FixPass() != c.fix || !strings.Contains(f.Detail, c.detail) {
				t.Errorf("%s: fix %q, detail %q; want fix %q, detail with %q", c.name, f.FixPass(), f.Detail, c.fix, c.detail)
			}
		}
		if n != 1 {
			t.Fatalf("%s: %d linear-int4 findings", c.name, n)
		}
		if c.fix == "" {
			continue
		}
		p, _ := passes.Build(passes.Spec{Passes: []string{c.fix}})
		if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
			t.Fatal(err)
		}
		after, _ := Check(m)
		for _, f := range after.AllFindings() {
			if f.Rule == ruleLinearInt4 || f.Rule == RuleLUT4SmallGroup {
				t.Errorf("%s: after %s: %s %s", c.name, c.fix, f.Rule.ID, f.Detail)
			}
		}
	}
}
