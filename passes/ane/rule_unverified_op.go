package ane

import (
	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/passes/anefacts"
)

// ruleUnverifiedOp: a coreai op the op table (graph/coreaiop) does not
// record as seen in a graph that compiled for the Neural Engine (Apple's
// iOS builders, the seed's graphs; testdata/mlir/coreai/README.md). Info,
// not a blocker. blockwise_shift_scale is judged by ruleLinearInt4 alone.
var ruleUnverifiedOp = &Rule{
	ID:       "unverified-op",
	Title:    "coreai op not seen in a graph that compiled for the Neural Engine",
	Message:  "no record either way of this op on the Neural Engine",
	Evidence: "the op table's rows marked seen (graph/coreaiop: Op.Seen) were seen in Apple's iOS builders (arm E compiles 19/19) or in the seed's graphs",
	Severity: info,
	Run:      runUnverifiedOp,
}

func runUnverifiedOp(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term || isPlumbing(op) || op.Dialect() != "coreai" || anefacts.BaseOpName(op.Name) == "coreai.blockwise_shift_scale" {
			continue
		}
		if o := coreaiop.Lookup(op.Name); o == nil || !o.Seen {
			p.Report(op, "", "")
		}
	}
}
