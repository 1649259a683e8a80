package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleStatic(t *testing.T) {
	testRule(t, ruleStatic, []ruleCase{
		{name: "dynamic dimension", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, graph.Dynamic, 4), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, graph.Dynamic, 4)), "y")
			return g.m
		}, want: []string{"coreai.exp: tensor<?x4xf16>"}},
		{name: "static", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 2, 4), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 2, 4)), "y")
			return g.m
		}, want: nil},
	})
}
