package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// stateWidth is a graph with a [1, 4, 2, w] state returned unchanged beside
// an exp of its input.
func stateWidth(w int64) *graph.Module {
	st := tensor(graph.F16, 1, 4, 2, w)
	g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 8), ""}, port{"hidden", st, "hidden"})
	g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 8)), "y")
	g.out(g.arg(1), "hidden")
	return g.m
}

func TestSuspectStateLastAxis(t *testing.T) {
	testRule(t, suspectStateLastAxis, []ruleCase{
		{name: "width 270 (the issue's failing state)", build: func() *graph.Module { return stateWidth(270) },
			want: []string{"state \"hidden\": tensor<1x4x2x270xf16>: last axis 270"}},
		{name: "width 256 (the issue's passing state)", build: func() *graph.Module { return stateWidth(256) }, want: nil},
		{name: "width 288 (a multiple of 32, not of 64)", build: func() *graph.Module { return stateWidth(288) }, want: nil},
		{name: "width 31", build: func() *graph.Module { return stateWidth(31) },
			want: []string{"state \"hidden\": tensor<1x4x2x31xf16>: last axis 31"}},
		{name: "a handle state of width 270 (the form after Core AI's optimize)", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 8), ""}, port{"hidden", graph.HandleOf(tensor(graph.F16, 1, 270)), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 8)), "y")
			return g.m
		}, want: []string{"state \"hidden\": tensor<1x270xf16>: last axis 270"}},
		{name: "a handle state of width 256", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 8), ""}, port{"hidden", graph.HandleOf(tensor(graph.F16, 1, 256)), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 8)), "y")
			return g.m
		}, want: nil},
		{name: "a plain input of width 270 is no state", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 270), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 270)), "y")
			return g.m
		}, want: nil},
	})
}
