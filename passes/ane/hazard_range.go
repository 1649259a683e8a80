package ane

import (
	"fmt"
	"strings"

	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/passes/anefacts"
)

// HazardRange: a float constant holding ±inf or a magnitude past 65504
// (fp16's largest finite value). The condition is
// anefacts.ConstStats.OutOfRange, which finite-masks reads too
// (anefacts.RangeHazardConstants); the fix is named only when the negative
// side is what is out of range (a mask, what finite-masks rewrites).
var HazardRange = &Rule{
	ID:    "fp16.out-of-range",
	Title: "constant that is ±inf or beyond the fp16 range (|x| > 65504)",
	Message: "constant holds -inf/+inf or a magnitude past 65504, fp16's largest finite value (e.g. an attention " +
		"mask written as -inf or -1e9): in fp16 it is ±inf (or saturates to ±65504), and inf - inf = NaN, as in a " +
		"softmax's max subtraction over a row that is masked throughout",
	Evidence: "IEEE 754 binary16 (graph/f16): largest finite value 65504; |x| >= 65520 rounds to ±inf. f16 " +
		"constants are checked for ±inf, wider ones also for finite values past 65504",
	Severity: hazard,
	Requires: []*fact{factFP16Scan},
	Run:      runRange,
}

func runRange(p *Pass) {
	for _, op := range p.Ops {
		if anefacts.BaseOpName(op.Name) != "coreai.constant" {
			continue
		}
		s := p.Scan().FloatConstStats(op)
		if s == nil || s.N == 0 || !s.OutOfRange() {
			continue
		}
		var parts []string
		if s.NegInf > 0 {
			parts = append(parts, fmt.Sprintf("%d × -inf", s.NegInf))
		}
		if s.PosInf > 0 {
			parts = append(parts, fmt.Sprintf("%d × +inf", s.PosInf))
		}
		if s.Overflow > 0 {
			parts = append(parts, fmt.Sprintf("%d finite beyond ±65504 (first %s; %d of them round to ±inf in fp16)",
				s.Overflow, fmtVal(s.FirstOver), s.ToInf))
		}
		fix := ""
		if s.HaveMin && s.Min < -f16.MaxHalf { // -inf or below -65504: a mask finite-masks rewrites
			fix = "finite-masks"
		}
		p.Report(op, fix, hazardWhat(op, s)+strings.Join(parts, ", ")+"; "+constRange(s)+userLabel(op))
	}
}
