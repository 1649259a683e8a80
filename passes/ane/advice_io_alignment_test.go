package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestAdviceAlignment(t *testing.T) {
	testRule(t, AdviceAlignment, []ruleCase{
		{name: "last axis of 6 bytes", build: ioLast(3), want: []string{"input \"x\": tensor<4x3xf16>: last axis 6 bytes", "output \"y\": tensor<4x3xf16>: last axis 6 bytes"}},
		{name: "last axis of 64 bytes", build: ioLast(32), want: nil},
		{name: "last axis of 1 is singleton-last-axis's", build: ioLast(1), want: nil},
	})
}

// ioLast is an fp16 graph whose input and output are [4, last].
func ioLast(last int64) func() *graph.Module {
	return func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4, last), ""})
		g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4, last)), "y")
		return g.m
	}
}
