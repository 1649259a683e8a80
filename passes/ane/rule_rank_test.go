package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleRank(t *testing.T) {
	testRule(t, ruleRank, []ruleCase{
		{name: "rank 6", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 1, 1, 1, 2, 2), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 1, 1, 1, 2, 2)), "y")
			return g.m
		}, want: []string{"coreai.exp: tensor<1x1x1x1x2x2xf16>"}},
		{name: "rank 5", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 1, 1, 2, 2), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 1, 1, 2, 2)), "y")
			return g.m
		}, want: nil},
		{name: "a rank-6 palette (lut_to_dense storage) is not judged", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4, 1, 1), ""})
			idx := &graph.IntegerType{Width: 4, Signedness: graph.Unsigned}
			w := g.op("coreai.lut_to_dense", "lut", 1, []*graph.Value{g.constant(tensor(idx, 4, 4, 1, 1)),
				g.constant(tensor(graph.F16, 1, 1, 1, 1, 16, 1)), g.constant(tensor(graph.SI16))}, tensor(graph.F16, 4, 4, 1, 1))
			g.out(g.op("coreai.exp", "exp", 2, []*graph.Value{w}, tensor(graph.F16, 4, 4, 1, 1)), "y")
			return g.m
		}, want: nil},
	})
}
