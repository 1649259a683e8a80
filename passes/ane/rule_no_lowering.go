package ane

import "github.com/anefix/anefix/graph"

// ruleNoLowering: an op of a dialect other than coreai (builtin ops,
// func.call and func.return excepted).
var ruleNoLowering = &Rule{
	ID:       "no-lowering",
	Title:    "op outside the coreai dialect",
	Message:  "op has no Neural Engine lowering: coreai-build compiles coreai dialect ops",
	Evidence: "coreai-facts §2 (the coreai op set coreai-torch and mlx2coreai emit); no compiler message on record",
	Severity: blocker,
	Run:      runNoLowering,
}

func runNoLowering(p *Pass) {
	lowered := func(op *graph.Operation) bool {
		return op == p.Term || isPlumbing(op) || op.Dialect() == "coreai"
	}
	// Counted first, so the findings' list grows once (Reserve), and the
	// detail made once per dialect: a graph of unregistered ops has a
	// finding per op.
	n := 0
	for _, op := range p.Ops {
		if !lowered(op) {
			n++
		}
	}
	p.Reserve(n)
	details := map[string]string{}
	for _, op := range p.Ops {
		if lowered(op) {
			continue
		}
		d := op.Dialect()
		detail, ok := details[d]
		if !ok {
			detail = "dialect " + d
			details[d] = detail
		}
		p.Report(op, "", detail)
	}
}

// isPlumbing reports the ops no lowering rule judges: builtin ops,
// func.call and func.return.
func isPlumbing(op *graph.Operation) bool {
	return op.Dialect() == "builtin" || op.Name == "func.call" || op.Name == "func.return"
}
