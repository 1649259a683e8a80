package ane

import "github.com/anefix/anefix/graph"

// RuleNoLowering: an op of a dialect other than coreai (builtin ops,
// func.call and func.return excepted).
var RuleNoLowering = &Rule{
	ID:       "no-lowering",
	Title:    "op outside the coreai dialect",
	Message:  "op has no Neural Engine lowering: coreai-build compiles coreai dialect ops",
	Evidence: "coreai-facts §2 (the coreai op set coreai-torch and mlx2coreai emit); no compiler message on record",
	Severity: Blocker,
	Run:      runNoLowering,
}

func runNoLowering(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term || isPlumbing(op) {
			continue
		}
		if d := op.Dialect(); d != "coreai" {
			p.Report(op, "", "dialect "+d)
		}
	}
}

// isPlumbing reports the ops no lowering rule judges: builtin ops,
// func.call and func.return.
func isPlumbing(op *graph.Operation) bool {
	return op.Dialect() == "builtin" || op.Name == "func.call" || op.Name == "func.return"
}
