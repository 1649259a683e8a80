package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestAppleSilu(t *testing.T) {
	testRule(t, AppleSilu, []ruleCase{
		{name: "silu", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""})
			g.out(g.op("coreai.silu", "silu", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 4)), "y")
			return g.m
		}, want: []string{"coreai.silu: "}},
		{name: "sigmoid", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""})
			g.out(g.op("coreai.sigmoid", "sigmoid", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 4)), "y")
			return g.m
		}, want: nil},
	})
}
