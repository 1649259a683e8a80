package ane

import (
	"fmt"

	"github.com/anefix/anefix/passes/anefacts"
)

// hazardFlush: a float constant wider than f16 holding nonzero values
// that round to ±0 in fp16.
var hazardFlush = &Rule{
	ID:       "fp16.flush-to-zero",
	Title:    "nonzero constant that rounds to zero in fp16",
	Message:  "constant holds nonzero values whose fp16 rounding is ±0 (|x| < 2^-25): converted to fp16 they vanish",
	Evidence: "IEEE 754 binary16 (graph/f16): smallest subnormal 2^-24 ≈ 5.96e-08, so nonzero |x| < 2^-25 rounds to ±0; checked on constants wider than f16",
	Severity: hazard,
	Requires: []*fact{factFP16Scan},
	Run:      runFlush,
}

func runFlush(p *Pass) {
	for _, op := range p.Ops {
		if anefacts.BaseOpName(op.Name) != "coreai.constant" {
			continue
		}
		s := p.Scan().FloatConstStats(op)
		if s == nil || s.N == 0 || s.Flush == 0 {
			continue
		}
		p.Report(op, "", fmt.Sprintf("%s%d nonzero value(s) round to 0 in fp16 (first %s; fp16's smallest subnormal is 2^-24 ≈ 5.96e-08); %s%s",
			hazardWhat(op, s), s.Flush, fmtVal(s.FirstFlush), constRange(s), userLabel(op)))
	}
}
