package ane

import (
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// AdviceLinear: a matmul against a constant weight (a linear layer), which
// Apple advises writing as a 1×1 conv2d.
var AdviceLinear = &Rule{
	ID:       "perf.linear-not-conv",
	Title:    "matmul against a constant weight (a linear layer) instead of a 1×1 conv2d",
	Message:  "a linear layer is decomposed into less efficient ops; a 1×1 conv2d maps to the Neural Engine's convolution engine",
	Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (Conv2d instead of Linear); performance only",
	Severity: advice,
	Run:      runLinear,
}

func runLinear(p *Pass) {
	for _, op := range p.Ops {
		if op != p.Term && strings.HasSuffix(anefacts.BaseOpName(op.Name), "matmul") && constWeightOperand(op) {
			p.Report(op, "", "")
		}
	}
}

// constWeightOperand reports whether a matmul operand is a weight: a
// constant, or a decompressed constant, through data-movement ops.
func constWeightOperand(op *graph.Operation) bool {
	for i := 0; i < op.NumOperands(); i++ {
		v := op.Operand(i)
		for hops := 0; v != nil && hops < 64; hops++ {
			d := v.DefiningOp()
			if d == nil {
				break
			}
			switch b := anefacts.BaseOpName(d.Name); {
			case b == "coreai.constant" || b == "coreai.lut_to_dense" || b == "coreai.dequantize" || b == "coreai.blockwise_shift_scale":
				return true
			case anefacts.MoveOps[b] && d.NumOperands() > 0:
				v = d.Operand(0)
				continue
			}
			break
		}
	}
	return false
}
