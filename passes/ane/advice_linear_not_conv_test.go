package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestAdviceLinear(t *testing.T) {
	testRule(t, AdviceLinear, []ruleCase{
		{name: "matmul against a constant weight", build: func() *graph.Module { return lutGraph(8, 32) }, want: []string{"coreai.decomposable.broadcasting_batch_matmul: "}},
		{name: "matmul of two inputs", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"a", tensor(graph.F16, 4, 4), ""}, port{"b", tensor(graph.F16, 4, 4), ""})
			g.out(g.op("coreai.decomposable.broadcasting_batch_matmul", "mm", 1, []*graph.Value{g.arg(0), g.arg(1)}, tensor(graph.F16, 4, 4)), "y")
			return g.m
		}, want: nil},
	})
}
