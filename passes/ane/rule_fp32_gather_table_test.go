package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleFp32GatherTable(t *testing.T) {
	testRule(t, RuleFp32GatherTable, []ruleCase{
		{name: "f32 table", build: gatherTable(graph.F32, 1), want: []string{"coreai.gather_nd: table tensor<16x4xf32>"}},
		{name: "f16 table", build: gatherTable(graph.F16, 1), want: nil},
		{name: "si8 table", build: gatherTable(graph.SI8, 1), want: nil},
	})
}

// gatherTable gathers rows of a constant [16, 4] table of element type
// elem with [1, k, 1] indices.
func gatherTable(elem graph.Type, k int64) func() *graph.Module {
	return func() *graph.Module {
		g := newGraph(nil, "main", "", port{"ids", tensor(graph.SI32, 1, k, 1), ""})
		table := g.constant(tensor(elem, 16, 4))
		g.out(g.op("coreai.gather_nd", "embedding", 1, []*graph.Value{table, g.arg(0)}, tensor(elem, 1, k, 4)), "h")
		return g.m
	}
}
