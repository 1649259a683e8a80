package ane

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// AdviceSoftmaxAxis: a softmax over a rank-4 input whose constant axis is
// not 1 (the channel axis of B,C,H,W).
var AdviceSoftmaxAxis = &Rule{
	ID:    "perf.softmax-axis",
	Title: "softmax over a spatial axis of a rank-4 tensor",
	Message: "softmax over a spatial axis (not axis 1, the channel axis of B,C,H,W) limits how the compiler splits " +
		"large tensors; Apple advises the channel axis",
	Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (softmax placement); the same " +
		"guide's per-head attention example applies softmax on the last axis, so this is advice for large tensors only",
	Severity: advice,
	Run:      runSoftmaxAxis,
}

func runSoftmaxAxis(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term || anefacts.BaseOpName(op.Name) != "coreai.softmax" {
			continue
		}
		if d, ok := softmaxSpatial(op); ok {
			p.Report(op, "", d)
		}
	}
}

func softmaxSpatial(op *graph.Operation) (string, bool) {
	if op.NumOperands() < 2 {
		return "", false
	}
	t := anefacts.DataTensor(op.Operand(0).Type())
	if t == nil || t.Rank() != 4 {
		return "", false
	}
	ax, ok := anefacts.ConstScalarInt(op.Operand(1))
	if !ok {
		return "", false
	}
	if ax < 0 {
		ax += 4
	}
	if ax == 1 {
		return "", false
	}
	return fmt.Sprintf("axis %d of %s", ax, t.String()), true
}
