package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// lastAxisExp is an exp over a [1, n] input.
func lastAxisExp(n int64) *graph.Module {
	g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, n), ""})
	g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, n)), "y")
	return g.m
}

func TestAdviceAxisExtent(t *testing.T) {
	const h18p = "65,536 (the cap of ANEForge's A16 family, H16 and later, which h18p is)"
	const h14g = "16,384 (the cap through ANEForge's A15 family, H13–H15: M1–M3, which h14g is)"
	testRule(t, adviceAxisExtent, []ruleCase{
		{name: "65,537 on h18p", build: func() *graph.Module { return lastAxisExp(65537) },
			want: []string{"coreai.exp: tensor<1x65537xf16>: an axis of 65537, above " + h18p}},
		{name: "65,536 on h18p", build: func() *graph.Module { return lastAxisExp(65536) }, want: nil},
		{name: "65,537 on h16g (M4)", arch: "h16g", build: func() *graph.Module { return lastAxisExp(65537) },
			want: []string{"coreai.exp: tensor<1x65537xf16>: an axis of 65537, above 65,536 (the cap of ANEForge's A16 family, H16 and later, which h16g is)"}},
		{name: "16,385 on h14g (M2)", arch: "h14g", build: func() *graph.Module { return lastAxisExp(16385) },
			want: []string{"coreai.exp: tensor<1x16385xf16>: an axis of 16385, above " + h14g}},
		{name: "16,384 on h14g (M2)", arch: "h14g", build: func() *graph.Module { return lastAxisExp(16384) }, want: nil},
		{name: "a vocabulary of 151,936 read by a gather (Apple's dense control's)", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"ids", tensor(graph.SI32, 1, 4), ""})
			table := g.constant(tensor(graph.F16, 151936, 8))
			g.out(g.op("coreai.gather_nd", "embedding", 1, []*graph.Value{table, g.arg(0)}, tensor(graph.F16, 1, 4, 8)), "y")
			return g.m
		}, want: []string{"coreai.gather_nd: tensor<151936x8xf16>: an axis of 151936, above " + h18p}},
		{name: "the constant itself is not judged", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 8), ""})
			g.constant(tensor(graph.F16, 151936, 8))
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 8)), "y")
			return g.m
		}, want: nil},
	})
}
