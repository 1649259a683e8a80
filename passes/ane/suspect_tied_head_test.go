package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestSuspectTiedHead(t *testing.T) {
	testRule(t, suspectTiedHead, []ruleCase{
		{name: "table feeding the embedding and the head", build: tiedHead, want: []string{"coreai.constant: table tensor<16x4xf16>"}},
		{name: "embedding table alone", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"ids", tensor(graph.SI32, 1, 1, 1), ""})
			table := g.constant(tensor(graph.F16, 16, 4))
			g.out(g.op("coreai.gather_nd", "embedding", 1, []*graph.Value{table, g.arg(0)}, tensor(graph.F16, 1, 1, 4)), "h")
			return g.m
		}, want: nil},
	})
}

// tiedHead uses one constant table for the embedding and, transposed, for
// the head.
func tiedHead() *graph.Module {
	g := newGraph(nil, "main", "", port{"ids", tensor(graph.SI32, 1, 1, 1), ""})
	table := g.constant(tensor(graph.F16, 16, 4))
	h := g.op("coreai.gather_nd", "embedding", 1, []*graph.Value{table, g.arg(0)}, tensor(graph.F16, 1, 1, 4))
	tt := g.op("coreai.transpose", "t", 2, []*graph.Value{table, g.constant(tensor(graph.UI32, 2))}, tensor(graph.F16, 4, 16))
	g.out(g.op("coreai.decomposable.broadcasting_batch_matmul", "matmul", 3, []*graph.Value{h, tt}, tensor(graph.F16, 1, 1, 16)), "logits")
	return g.m
}
