package ane

import (
	"fmt"

	"github.com/anefix/anefix/passes/anefacts"
)

// softplusCliff is where the Neural Engine's fp16 softplus stops following
// softplus(x) → x and drops to 0 (coremltools issue 2687, measured on M4;
// its lowering computes exp(x) in fp16).
const softplusCliff = 10.4

// hazardSoftplus: a softplus computed in fp16 whose input is proven able to
// pass the cliff. Like hazard_exp.go it reports proven bounds only; an input
// derived from a state or the residual stream is hazard_unbounded.go's.
var hazardSoftplus = &Rule{
	ID:    "fp16.softplus-cliff",
	Title: "fp16 softplus of an input proven able to pass x ≈ 10.4",
	Message: "softplus in fp16 whose input can exceed ≈ 10.4: on the Neural Engine the result drops to 0 there instead of " +
		"following x; write it as max(x, 0) + log(1 + exp(−|x|)), whose exp never overflows",
	Evidence: "coremltools issue 2687 (Neural Engine, fp16: softplus output 0 for x > 10.4; M4, coremltools 9.0); " +
		"the bound is proven from the graph as fp16.exp-overflow proves it",
	Severity: hazard,
	Requires: []*fact{factFP16Scan},
	Run:      runSoftplus,
}

func runSoftplus(p *Pass) {
	for _, op := range p.Ops {
		if anefacts.BaseOpName(op.Name) != "coreai.softplus" || op.NumOperands() == 0 || op.NumResults() == 0 || !isF16Value(op.Result(0)) {
			continue
		}
		iv := p.bound(op.Operand(0))
		if iv.hiOpen || iv.hi <= softplusCliff {
			continue
		}
		p.Report(op, "", fmt.Sprintf("%sinput range %s from %s: above the cliff at x ≈ %g, where the Neural Engine's fp16 softplus returns 0%s",
			numLabel(op), iv, iv.how, softplusCliff, userLabel(op)))
	}
}
