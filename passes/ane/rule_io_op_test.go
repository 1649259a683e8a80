package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleIOOp(t *testing.T) {
	testRule(t, ruleIOOp, []ruleCase{
		{name: "expand_dims on an input", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
			e := g.op("coreai.expand_dims", "unsqueeze", 1, []*graph.Value{g.arg(0), g.constant(tensor(graph.SI32, 1))}, tensor(graph.F16, 1, 4))
			g.out(g.op("coreai.exp", "exp", 2, []*graph.Value{e}, tensor(graph.F16, 1, 4)), "y")
			return g.m
		}, want: []string{"coreai.expand_dims: rank change on input \"x\" [fix fold-io-unsqueeze]"}},
		{name: "add on an fp32 input and output", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F32, 1, 4), ""})
			g.out(g.op("coreai.decomposable.broadcasting_add", "add", 1, []*graph.Value{g.arg(0), g.arg(0)}, tensor(graph.F32, 1, 4)), "y")
			return g.m
		}, want: []string{"coreai.decomposable.broadcasting_add: non-ANE element type on input \"x\", input \"x\", output \"y\" [fix strip-fp32-casts]"}},
		{name: "integer ids that only index are no port", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"ids", tensor(graph.SI32, 1, 1, 1), ""})
			table := g.constant(tensor(graph.F16, 16, 4))
			g.out(g.op("coreai.gather_nd", "embedding", 1, []*graph.Value{table, g.arg(0)}, tensor(graph.F16, 1, 1, 4)), "h")
			return g.m
		}, want: nil},
		{name: "a private composite has no ports", build: func() *graph.Module {
			g := newGraph(nil, "helper", "private", port{"x", tensor(graph.F16, 4), ""})
			g.out(g.op("coreai.expand_dims", "unsqueeze", 1, []*graph.Value{g.arg(0), g.constant(tensor(graph.SI32, 1))}, tensor(graph.F16, 1, 4)), "y")
			return g.m
		}, want: nil},
	})
}
