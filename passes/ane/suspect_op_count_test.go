package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// expChain is a graph @name of n ops in a chain (exps) over a [1, 8]
// input; when extras, two of the n ops are adds of a decompressed
// weight (lut_to_dense) and of a data constant, which the count must skip.
func expChain(m *graph.Module, name, vis string, n int, extras bool) *tg {
	x := tensor(graph.F16, 1, 8)
	g := newGraph(m, name, vis, port{"x", x, ""})
	h := g.arg(0)
	if extras {
		idx := &graph.IntegerType{Width: 4, Signedness: graph.Unsigned}
		w := g.op("coreai.lut_to_dense", "lut", 1, []*graph.Value{g.constant(tensor(idx, 1, 8)),
			g.constant(tensor(graph.F16, 1, 1, 16, 1)), g.constant(tensor(graph.SI16))}, x)
		h = g.op("coreai.decomposable.broadcasting_add", "add", 1, []*graph.Value{h, w}, x)
		h = g.op("coreai.decomposable.broadcasting_add", "add_1", 1, []*graph.Value{h, g.constant(x)}, x)
		n -= 2
	}
	for i := 0; i < n; i++ {
		h = g.op("coreai.exp", "exp", 2, []*graph.Value{h}, x)
	}
	g.out(h, "y")
	return g
}

// TestSuspectOpCount: the source's pass is 18,101 MIL ops; the rule
// reports a function above it, counting through calls and not counting
// constants or weight decompression (built here, not committed).
func TestSuspectOpCount(t *testing.T) {
	testRule(t, suspectOpCount, []ruleCase{
		{name: "18,102 ops", build: func() *graph.Module { return expChain(nil, "main", "", 18102, false).m },
			want: []string{"function @main: 18102 compute ops, above 18101"}},
		{name: "18,101 ops (the measured pass)", build: func() *graph.Module { return expChain(nil, "main", "", 18101, false).m }, want: nil},
		{name: "18,101 ops beside constants and a lut_to_dense", build: func() *graph.Module { return expChain(nil, "main", "", 18101, true).m }, want: nil},
		{name: "a composite of 9,051 ops called twice", build: func() *graph.Module {
			f := expChain(nil, "body", "private", 9051, false)
			g := newGraph(f.m, "main", "", port{"x", tensor(graph.F16, 1, 8), ""})
			a := g.invoke("body", []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 8))
			g.out(g.invoke("body", []*graph.Value{a}, tensor(graph.F16, 1, 8)), "y")
			return g.m
		}, want: []string{"function @main: 18102 compute ops, above 18101"}},
		{name: "a composite of 9,050 ops called twice", build: func() *graph.Module {
			f := expChain(nil, "body", "private", 9050, false)
			g := newGraph(f.m, "main", "", port{"x", tensor(graph.F16, 1, 8), ""})
			a := g.invoke("body", []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 8))
			g.out(g.invoke("body", []*graph.Value{a}, tensor(graph.F16, 1, 8)), "y")
			return g.m
		}, want: nil},
	})
}
