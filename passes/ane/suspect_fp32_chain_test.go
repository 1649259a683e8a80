package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestSuspectFp32Chain(t *testing.T) {
	testRule(t, SuspectFp32Chain, []ruleCase{
		{name: "inline chain between casts", build: inlineChain, want: []string{"coreai.cast: opens a f32 chain of 3 ops that ends in casts inside the graph"}},
		{name: "a cited round trip is element-type's, not a suspect", build: stateRoundTrip, want: nil},
		{name: "scatter_nd with f32 updates between casts", build: scatterF32Updates, want: []string{"coreai.cast: opens a f32 chain of 4 ops that ends in casts inside the graph", "coreai.cast: opens a f32 chain of 4 ops that ends in casts inside the graph"}},
	})
}

// scatterF32Updates is a scatter_nd computing in f32 between casts of its
// f16 data and updates.
func scatterF32Updates() *graph.Module {
	g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 5, 3), ""}, port{"idx", tensor(graph.SI32, 2, 1), ""}, port{"vals", tensor(graph.F16, 2, 3), ""})
	v := g.op("coreai.cast", "_to_copy", 1, []*graph.Value{g.arg(2)}, tensor(graph.F32, 2, 3))
	x := g.op("coreai.cast", "_to_copy_1", 1, []*graph.Value{g.arg(0)}, tensor(graph.F32, 5, 3))
	r := g.op("coreai.scatter_nd", "index_put", 2, []*graph.Value{x, v, g.arg(1)}, tensor(graph.F32, 5, 3))
	g.out(g.op("coreai.cast", "_to_copy_2", 3, []*graph.Value{r}, tensor(graph.F16, 5, 3)), "y")
	return g.m
}
