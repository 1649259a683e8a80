package ane

import (
	"github.com/anefix/anefix/passes/anefacts"
)

// RuleMetalKernel: a custom Metal kernel (coreai.metal4_kernel).
var RuleMetalKernel = &Rule{
	ID:       "metal4-kernel",
	Title:    "custom Metal kernel (metal4_kernel)",
	Message:  "coreai.metal4_kernel runs Metal shader code, which only the GPU executes: the function is predicted GPU-only (0 regions)",
	Evidence: "john-rocky/coreai-model-zoo cli/DOCTOR_RULES.md GRAPH-CUSTOM-METAL-KERNEL (custom MSL is GPU-only by construction; no build or region count given). Guess: that the whole function, not only the kernel, leaves the Neural Engine; no compile of a function mixing both is on record",
	Severity: blocker,
	Run:      runMetalKernel,
}

func runMetalKernel(p *Pass) {
	for _, op := range p.Ops {
		if op != p.Term && anefacts.BaseOpName(op.Name) == "coreai.metal4_kernel" {
			p.Report(op, "", "")
		}
	}
}
