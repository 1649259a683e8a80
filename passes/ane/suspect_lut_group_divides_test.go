package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// lutOver is a lut_to_dense of a [rows, 16] 4-bit weight with a
// [groups, 1, 16, 1] LUT (a palette per rows/groups output channels),
// multiplied into the input.
func lutOver(rows, groups int64) *graph.Module {
	idx := &graph.IntegerType{Width: 4, Signedness: graph.Unsigned}
	g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, rows, 16), ""})
	w := g.op("coreai.lut_to_dense", "lut", 1, []*graph.Value{g.constant(tensor(idx, rows, 16)),
		g.constant(tensor(graph.F16, groups, 1, 16, 1)), g.constant(tensor(graph.SI16))}, tensor(graph.F16, rows, 16))
	g.out(g.op("coreai.decomposable.broadcasting_mul", "mul", 2, []*graph.Value{g.arg(0), w}, tensor(graph.F16, rows, 16)), "y")
	return g.m
}

func TestSuspectLUTGroup(t *testing.T) {
	testRule(t, suspectLUTGroup, []ruleCase{
		{name: "120 channels in 16 palettes (7.5 each; PR 2777's 120 channels, group 16)", build: func() *graph.Module { return lutOver(120, 16) },
			want: []string{"coreai.lut_to_dense: dimension 0: 16 palettes over 120 indices (indices tensor<120x16xui4>, lut tensor<16x1x16x1xf16>)"}},
		{name: "120 channels in 15 palettes of 8", build: func() *graph.Module { return lutOver(120, 15) }, want: nil},
		{name: "120 channels in 8 palettes of 15", build: func() *graph.Module { return lutOver(120, 8) }, want: nil},
		{name: "128 channels in 8 palettes of 16", build: func() *graph.Module { return lutOver(128, 8) }, want: nil},
	})
}
