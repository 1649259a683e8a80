package ane

import "testing"

func TestHazardSoftplus(t *testing.T) {
	clamped := func(hi string) string {
		return `module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %lo = coreai.constant dense<-4.0> : tensor<f16>
    %hi = coreai.constant dense<` + hi + `> : tensor<f16>
    %a = coreai.decomposable.broadcasting_maximum %x, %lo : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
    %b = coreai.decomposable.broadcasting_minimum %a, %hi : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
    %y = coreai.softplus %b : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %y : tensor<4xf16>
  }
}`
	}
	testRule(t, hazardSoftplus, []ruleCase{
		{name: "softplus of x clamped to [-4, 12]", text: clamped("12.0"),
			want: []string{"coreai.softplus: input range [-4, 12] from minimum of maximum of constant  [-4, -4] [-4, ?] and constant  [12, 12]: above the cliff at x ≈ 10.4, where the Neural Engine's fp16 softplus returns 0; used by coreai.output"}},
		{name: "softplus of x clamped to [-4, 10]", text: clamped("10.0"), want: nil},
		{name: "softplus of an unbounded input", text: `module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %y = coreai.softplus %x : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %y : tensor<4xf16>
  }
}`, want: nil},
	})
}
