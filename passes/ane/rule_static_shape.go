package ane

import (
	"github.com/anefix/anefix/passes/anefacts"
)

// ruleStatic: an op reads or writes a tensor whose shape is dynamic or
// unranked.
var ruleStatic = &Rule{
	ID:       "static-shape",
	Title:    "dynamic or unranked shape",
	Message:  "dynamic shape: the Neural Engine compiles only fully static shapes (one function per shape)",
	Evidence: "coreai-facts §4 (Apple's iOS export writes one static function per (context, query) shape); no compiler message on record",
	Severity: blocker,
	Run:      runStatic,
}

// runStatic reports the first non-static data tensor among an op's
// operands and results.
func runStatic(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term {
			continue
		}
		for _, v := range append(op.Operands(), op.Results()...) {
			if t := anefacts.DataTensor(v.Type()); t != nil && !t.IsStatic() {
				p.Report(op, "", t.String())
				break
			}
		}
	}
}
