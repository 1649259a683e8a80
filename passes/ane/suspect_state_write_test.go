package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestSuspectStateWrite(t *testing.T) {
	testRule(t, suspectStateWrite, []ruleCase{
		{name: "slice_update of a state returned as its new value", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 8), ""}, port{"cache", tensor(graph.F16, 1, 8), "new_cache"})
			b := g.constant(tensor(graph.SI32, 2))
			g.out(g.op("coreai.slice_update", "slice_update", 2, []*graph.Value{g.arg(1), g.arg(0), b, b, b}, tensor(graph.F16, 1, 8)), "new_cache")
			return g.m
		}, want: []string{"coreai.slice_update: slice_update writes state \"cache\" tensor<1x8xf16>, then the graph returns it as output \"new_cache\""}},
		{name: "slice_update not stored back", build: stateNotStoredBack, want: nil},
		{name: "the rank-5 KV cache Apple's control compiles", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 1, 8, 1, 1), ""}, port{"k", tensor(graph.F16, 2, 1, 8, 1, 4), "k"})
			b := g.constant(tensor(graph.SI32, 5))
			g.out(g.op("coreai.slice_update", "slice_update", 2, []*graph.Value{g.arg(1), g.arg(0), b, b, b}, tensor(graph.F16, 2, 1, 8, 1, 4)), "k")
			return g.m
		}, want: nil},
	})
}

// stateNotStoredBack writes a state with slice_update but returns the
// state's input unchanged: no state write.
func stateNotStoredBack() *graph.Module {
	g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 8), ""}, port{"cache", tensor(graph.F16, 1, 8), "cache"})
	b := g.constant(tensor(graph.SI32, 2))
	u := g.op("coreai.slice_update", "peek", 1, []*graph.Value{g.arg(1), g.arg(0), b, b, b}, tensor(graph.F16, 1, 8))
	g.out(g.op("coreai.exp", "exp", 2, []*graph.Value{u}, tensor(graph.F16, 1, 8)), "y")
	g.out(g.arg(0), "cache")
	return g.m
}
