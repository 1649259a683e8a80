package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestAppleGatherRoPE(t *testing.T) {
	testRule(t, AppleGatherRoPE, []ruleCase{
		{name: "2-D table, rank-3 result", build: gatherTable(graph.F16, 1), want: []string{"coreai.gather_nd: tensor<16x4xf16> → tensor<1x1x4xf16>"}},
		{name: "3-D table", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"ids", tensor(graph.SI32, 1, 1), ""})
			table := g.constant(tensor(graph.F16, 2, 16, 4))
			g.out(g.op("coreai.gather_nd", "embedding", 1, []*graph.Value{table, g.arg(0)}, tensor(graph.F16, 1, 16, 4)), "h")
			return g.m
		}, want: nil},
	})
}
