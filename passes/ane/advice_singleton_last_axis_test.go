package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestAdviceSingletonLast(t *testing.T) {
	testRule(t, AdviceSingletonLast, []ruleCase{
		{name: "last axis 1", build: ioLast(1), want: []string{"input \"x\": tensor<4x1xf16>", "output \"y\": tensor<4x1xf16>"}},
		{name: "last axis 32", build: ioLast(32), want: nil},
		{name: "rank 1 of size 1", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1)), "y")
			return g.m
		}, want: nil},
	})
}
