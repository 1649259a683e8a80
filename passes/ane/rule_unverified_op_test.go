package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleUnverifiedOp(t *testing.T) {
	testRule(t, ruleUnverifiedOp, []ruleCase{
		{name: "an op the table has not seen compile", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
			g.out(g.op("coreai.frobnicate", "frob", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4)), "y")
			return g.m
		}, want: []string{"coreai.frobnicate: "}},
		{name: "seen ops, a foreign op (no-lowering's) and blockwise_shift_scale (linear-int4's)", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
			a := g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4))
			b := g.op("arith.negf", "neg", 2, []*graph.Value{a}, tensor(graph.F16, 4))
			g.out(b, "y")
			return g.m
		}, want: nil},
		{name: "blockwise_shift_scale is linear-int4's", build: dequantized(graph.SI8, false), want: nil},
	})
}
