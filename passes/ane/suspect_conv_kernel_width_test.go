package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// convKernel is a conv2d over a [1, 4, 8, 32] input with a [4, 4, kh, kw]
// weight.
func convKernel(kh, kw int64) *graph.Module {
	g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4, 8, 32), ""})
	w := g.constant(tensor(graph.F16, 4, 4, kh, kw))
	s := g.constant(tensor(graph.UI32, 2))
	d := g.constant(tensor(graph.UI32))
	g.out(g.op("coreai.conv2d", "conv", 1, []*graph.Value{g.arg(0), w, s, s, d}, tensor(graph.F16, 1, 4, 9-kh, 33-kw)), "y")
	return g.m
}

func TestSuspectConvKernelWidth(t *testing.T) {
	testRule(t, suspectConvKernelWidth, []ruleCase{
		{name: "width 16", build: func() *graph.Module { return convKernel(3, 16) },
			want: []string{"coreai.conv2d: kernel width 16 (weight tensor<4x4x3x16xf16>), above 15"}},
		{name: "width 15", build: func() *graph.Module { return convKernel(3, 15) }, want: nil},
		{name: "16 high, 3 wide (the height is not limited)", build: func() *graph.Module { return convKernel(8, 3) }, want: nil},
		{name: "width 14 on M1 (h13g)", arch: "h13g", build: func() *graph.Module { return convKernel(3, 14) },
			want: []string{"coreai.conv2d: kernel width 14 (weight tensor<4x4x3x14xf16>), above 13 (h13g: M1)"}},
		{name: "width 13 on M1 (h13g)", arch: "h13g", build: func() *graph.Module { return convKernel(3, 13) }, want: nil},
		{name: "width 14 on h16g", arch: "h16g", build: func() *graph.Module { return convKernel(3, 14) }, want: nil},
		{name: "width 14 on h14g (M2: unmeasured, 15 applies)", arch: "h14g", build: func() *graph.Module { return convKernel(3, 14) }, want: nil},
	})
}
