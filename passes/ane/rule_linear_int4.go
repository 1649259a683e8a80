package ane

import (
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// ruleLinearInt4: a blockwise_shift_scale that dequantizes linear 4-bit
// integer weights (not palettized ones).
var ruleLinearInt4 = &Rule{
	ID:    "linear-int4",
	Title: "linear blockwise INT4 weights (blockwise_shift_scale)",
	Message: "ANECCompileOffline() failed: OSStatus=0, aneCompileStatus=1 (empty ErrorList) for linear-INT4 weights; " +
		"the palettized (lut_to_dense) program of the same structure compiles",
	CompilersWords: false,
	Evidence:       "apple/coreai-models #55 (SIGSEGV in 3600.67) and #205 (exit 0, GPU-only .aimodelc, 3600.82.1)",
	Fix:            "legalize-weights",
	Severity:       blocker,
	Run:            runLinearInt4,
}

func runLinearInt4(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term || anefacts.BaseOpName(op.Name) != "coreai.blockwise_shift_scale" {
			continue
		}
		if detail, ok := linearInt4(op); ok {
			p.Report(op, "", detail)
		}
	}
}

// linearInt4 reports whether a blockwise_shift_scale dequantizes linear
// 4-bit integer weights (its data operand is si4/ui4/i4 and does not come
// from a lut_to_dense): the case ruleLinearInt4's Evidence cites.
// si8, f8E4M3FN and palettized (lut_to_dense) inputs are not.
func linearInt4(op *graph.Operation) (string, bool) {
	if op.NumOperands() == 0 {
		return "", false
	}
	v := op.Operand(0)
	t := anefacts.DataTensor(v.Type())
	if t == nil {
		return "", false
	}
	it, ok := t.Elem.(*graph.IntegerType)
	if !ok || it.Width != 4 {
		return "", false
	}
	for hops := 0; hops < 64; hops++ {
		d := v.DefiningOp()
		if d == nil || d.NumOperands() == 0 {
			break
		}
		if anefacts.BaseOpName(d.Name) == "coreai.lut_to_dense" {
			return "", false
		}
		if !anefacts.MoveOps[anefacts.BaseOpName(d.Name)] {
			break
		}
		v = d.Operand(0)
	}
	return "linear " + t.Elem.String() + " weights " + t.String(), true
}
