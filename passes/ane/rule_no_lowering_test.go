package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleNoLowering(t *testing.T) {
	testRule(t, ruleNoLowering, []ruleCase{
		{name: "an arith op", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
			g.out(g.op("arith.negf", "neg", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4)), "y")
			return g.m
		}, want: []string{"arith.negf: dialect arith"}},
		{name: "coreai ops and the terminator", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4)), "y")
			return g.m
		}, want: nil},
	})
}
