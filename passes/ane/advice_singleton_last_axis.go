package ane

import (
	"github.com/anefix/anefix/graph"
)

// AdviceSingletonLast: an entry graph's input or output of rank ≥ 2 whose
// last axis is 1.
var AdviceSingletonLast = &Rule{
	ID:       "perf.singleton-last-axis",
	Title:    "graph input/output whose last axis is 1",
	Message:  "a last axis of size 1 is padded to 64 bytes (32× the memory at fp16); move a larger dimension last",
	Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (tensor memory alignment); checked on graph inputs and outputs of rank ≥ 2 only (the guide lets intermediates that stay in L2 be narrower); performance only",
	Severity: advice,
	Run:      runSingletonLast,
}

func runSingletonLast(p *Pass) {
	p.EachPortLastAxis(func(what string, t *graph.TensorType, last int64) {
		if last == 1 && t.Rank() >= 2 {
			p.ReportPort(what, t.String())
		}
	})
}
