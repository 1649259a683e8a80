package ane

import (
	"fmt"

	"github.com/anefix/anefix/graph"
)

// AdviceAlignment: an entry graph's input or output whose last axis is not
// a multiple of 64 bytes (a last axis of 1 is AdviceSingletonLast's).
var AdviceAlignment = &Rule{
	ID:       "perf.io-alignment",
	Title:    "graph input/output whose last axis is not a multiple of 64 bytes",
	Message:  "the Neural Engine pads the last axis of inputs and outputs to 64 bytes; a last axis that is not a multiple of 64 bytes costs padding",
	Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (tensor memory alignment); performance only",
	Severity: advice,
	Run:      runAlignment,
}

func runAlignment(p *Pass) {
	p.EachPortLastAxis(func(what string, t *graph.TensorType, last int64) {
		if last == 1 && t.Rank() >= 2 {
			return // AdviceSingletonLast
		}
		if b := int64(graph.ElemBytes(t.Elem)); b > 0 && last*b%64 != 0 {
			p.ReportPort(what, fmt.Sprintf("%s: last axis %d bytes", t.String(), last*b))
		}
	})
}
