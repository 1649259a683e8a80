package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// lutScaled is a 4-bit lut_to_dense of a [64, 16] weight; when scaled, its
// result (cast to si8 first when viaCast) goes through a
// blockwise_shift_scale with a [64, 1] scale.
func lutScaled(scaled, viaCast bool) *graph.Module {
	idx := &graph.IntegerType{Width: 4, Signedness: graph.Unsigned}
	x := tensor(graph.F16, 64, 16)
	g := newGraph(nil, "main", "", port{"x", x, ""})
	lutElem := graph.Type(graph.F16)
	if viaCast {
		lutElem = graph.SI8
	}
	w := g.op("coreai.lut_to_dense", "lut", 1, []*graph.Value{g.constant(tensor(idx, 64, 16)),
		g.constant(tensor(lutElem, 1, 1, 16, 1)), g.constant(tensor(graph.SI16))}, tensor(lutElem, 64, 16))
	if viaCast {
		w = g.op("coreai.cast", "cast", 1, []*graph.Value{w}, x)
	}
	if scaled {
		w = g.op("coreai.blockwise_shift_scale", "scale", 1, []*graph.Value{w, g.constant(tensor(graph.F16, 64, 1))}, x)
	}
	g.out(g.op("coreai.decomposable.broadcasting_mul", "mul", 2, []*graph.Value{g.arg(0), w}, x), "y")
	return g.m
}

func TestSuspectLUTChannelScale(t *testing.T) {
	testRule(t, suspectLUTChannelScale, []ruleCase{
		{name: "per-channel scales over an fp16 LUT's weight (PR 2688's form)", build: func() *graph.Module { return lutScaled(true, false) },
			want: []string{"coreai.blockwise_shift_scale: scales tensor<64x1xf16> over lut_to_dense tensor<64x16xf16>"}},
		{name: "the LUT's weight unscaled", build: func() *graph.Module { return lutScaled(false, false) }, want: nil},
		{name: "an int8 LUT cast to fp16 before the scale (not in the record)", build: func() *graph.Module { return lutScaled(true, true) }, want: nil},
	})
}
