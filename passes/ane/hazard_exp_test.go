package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestHazardExp(t *testing.T) {
	testRule(t, HazardExp, []ruleCase{
		{name: "exp of x clamped to [-4, 12]", file: "hazards/exp_bounded.mlir", want: []string{"coreai.exp: op_id 5: input range [-4, 12] from minimum of maximum of constant lo (op_id 1) [-4, -4] [-4, ?] and constant hi (op_id 2) [12, 12]: exp(12) = 162755, above ln(65504) ≈ 11.0899, so the result is +inf in fp16"}},
		{name: "exp of an unbounded input", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4)), "y")
			return g.m
		}, want: nil},
		{name: "exp of a clamp below ln(65504)", text: `module {
  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<1.000000e+01> : tensor<f16>
    %1 = coreai.decomposable.broadcasting_minimum %arg0, %0 : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
    %2 = coreai.exp %1 : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}`, want: nil},
	})
}
