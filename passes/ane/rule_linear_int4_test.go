package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleLinearInt4(t *testing.T) {
	testRule(t, ruleLinearInt4, []ruleCase{
		{name: "linear si4 weights", build: dequantized(&graph.IntegerType{Width: 4, Signedness: graph.Signed}, false), want: []string{"coreai.blockwise_shift_scale: linear si4 weights tensor<4x4xsi4>"}},
		{name: "linear ui4 weights", build: dequantized(&graph.IntegerType{Width: 4, Signedness: graph.Unsigned}, false), want: []string{"coreai.blockwise_shift_scale: linear ui4 weights tensor<4x4xui4>"}},
		{name: "si8 weights compile", build: dequantized(graph.SI8, false), want: nil},
		{name: "palettized 4-bit indices compile", build: dequantized(&graph.IntegerType{Width: 4, Signedness: graph.Signed}, true), want: nil},
	})
}

// dequantized feeds a matmul weights of element type elem dequantized by
// blockwise_shift_scale, through a lut_to_dense when palettized.
func dequantized(elem graph.Type, palettized bool) func() *graph.Module {
	return func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""})
		w := g.constant(tensor(elem, 4, 4))
		if palettized {
			ui4 := &graph.IntegerType{Width: 4, Signedness: graph.Unsigned}
			w = g.op("coreai.lut_to_dense", "lut", 1, []*graph.Value{g.constant(tensor(ui4, 4, 4)), g.constant(tensor(graph.SI32, 1, 1, 16, 1)), g.constant(tensor(graph.SI16))}, tensor(elem, 4, 4))
		}
		d := g.op("coreai.blockwise_shift_scale", "bss", 2, []*graph.Value{w, g.constant(tensor(graph.F16, 1, 1)), g.constant(tensor(elem, 1, 1)), g.constant(tensor(graph.F16, 1, 1))}, tensor(graph.F16, 4, 4))
		g.out(g.op("coreai.decomposable.broadcasting_batch_matmul", "mm", 3, []*graph.Value{g.arg(0), d}, tensor(graph.F16, 1, 4)), "y")
		return g.m
	}
}
