package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestRuleMetalKernel(t *testing.T) {
	testRule(t, RuleMetalKernel, []ruleCase{
		{name: "a Metal kernel between adds", build: metalGraph, want: []string{"coreai.metal4_kernel: "}},
		{name: "no kernel", build: func() *graph.Module { return softmaxChains(1) }, want: nil},
	})
}
