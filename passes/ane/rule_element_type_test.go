package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleElementType(t *testing.T) {
	testRule(t, RuleElementType, []ruleCase{
		{name: "fp32 input read by an add", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F32, 1, 4), ""})
			c := g.constant(tensor(graph.F32))
			g.out(g.op("coreai.decomposable.broadcasting_add", "add", 1, []*graph.Value{g.arg(0), c}, tensor(graph.F32, 1, 4)), "y")
			return g.m
		}, want: []string{"coreai.decomposable.broadcasting_add: opens a f32 chain of 2 ops that holds graph input \"x\"", "[2 ops illegal]"}},
		{name: "fp32 round trip through a state, at the opening casts", build: stateRoundTrip, want: []string{"coreai.cast: opens a f32 chain of 4 ops that is a round trip through input \"s\" (read, updated in fp32, written back)", "coreai.cast: opens a f32 chain of 4 ops that is a round trip through input \"s\" (read, updated in fp32, written back)", "[4 ops illegal]"}},
		{name: "inline chain between casts is not cited", build: inlineChain, want: nil},
		{name: "fp16 throughout", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 4)), "y")
			return g.m
		}, want: nil},
		{name: "position ids cast to fp16 are exempt", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"pos", tensor(graph.SI32, 1, 4), ""})
			c := g.op("coreai.cast", "_to_copy", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 4))
			g.out(g.op("coreai.cos", "cos", 2, []*graph.Value{c}, tensor(graph.F16, 1, 4)), "y")
			return g.m
		}, want: nil},
	})
}

// stateRoundTrip reads state s and x into fp32, adds them and writes the
// sum back into s: the gated-delta recurrence's shape.
func stateRoundTrip() *graph.Module {
	g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""}, port{"s", tensor(graph.F16, 1, 4), "s"})
	xs := g.op("coreai.cast", "_to_copy", 199, []*graph.Value{g.arg(0)}, tensor(graph.F32, 1, 4))
	ss := g.op("coreai.cast", "_to_copy_1", 199, []*graph.Value{g.arg(1)}, tensor(graph.F32, 1, 4))
	n := g.op("coreai.decomposable.broadcasting_add", "add", 200, []*graph.Value{xs, ss}, tensor(graph.F32, 1, 4))
	g.out(g.op("coreai.cast", "_to_copy_2", 201, []*graph.Value{n}, tensor(graph.F16, 1, 4)), "s")
	return g.m
}

// inlineChain is an fp32 rsqrt between two casts inside an fp16 graph (a
// norm's shape).
func inlineChain() *graph.Module {
	g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""})
	a := g.op("coreai.cast", "_to_copy", 10, []*graph.Value{g.arg(0)}, tensor(graph.F32, 1, 4))
	b := g.op("coreai.rsqrt", "rsqrt", 11, []*graph.Value{a}, tensor(graph.F32, 1, 4))
	c := g.op("coreai.cast", "_to_copy_1", 12, []*graph.Value{b}, tensor(graph.F16, 1, 4))
	g.out(g.op("coreai.exp", "exp", 13, []*graph.Value{c}, tensor(graph.F16, 1, 4)), "y")
	return g.m
}
