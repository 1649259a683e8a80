package ane

import (
	"fmt"

	"github.com/anefix/anefix/passes/anefacts"
)

// suspectConvKernelWidth: a convolution whose kernel is wider than the
// Neural Engine compiler accepted in ANEForge's measurements: 15 columns,
// 13 on M1.
var suspectConvKernelWidth = &Rule{
	ID:    "suspect.conv-kernel-width",
	Title: "convolution kernel wider than 15 (13 on M1)",
	Message: "UNCONFIRMED: the convolution's kernel is wider than the Neural Engine compiler accepted in third-party " +
		"measurements (15 columns; 13 on M1); the kernel's height is not limited",
	Evidence: "sbryngelson/ANEForge docs/developer/op-quirks.md (conv, conv_transpose: kernel width at most 15, a 16×3 " +
		"kernel compiles where 3×16 fails ANECCompile) and docs/capabilities.md, docs/cross-chip.md (width ≤ 13 on M1, ≤ 15 " +
		"on its A16 family, which holds M4, M5, A17 and A18; M2 and M3 unmeasured). Apple's authoring guide advises against large kernels along the width without a number (apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md, strides and kernels). Measured through ANEForge's direct e5rt " +
		"path, not coreai-build, which may split a wide kernel: no coreai-build compile of one is on record. Architecture: " +
		"13 applies to names starting h13, M1 by ANEForge's M(n) = H(n+12) ladder (its compiler targets h13, h13g); every " +
		"other name gets 15. The width is the last dimension of the weight (conv2d [O, I, kH, kW], conv3d, conv_transpose2d)",
	Severity: suspect,
	Experiment: "compile on a Mac (anefix compile --require-ane): if the function gets no region, split the kernel " +
		"into column blocks of at most 15 (convolutions summed) or fold width into channels (space_to_depth)",
	Requires: []*fact{factArchitecture},
	Run:      runConvKernelWidth,
}

// convKernelWidthCap is the widest kernel accepted on architecture name.
func convKernelWidthCap(arch string) (int64, string) {
	if n, ok := hNumber(arch); ok && n == 13 {
		return 13, "13 (" + arch + ": M1)"
	}
	return 15, "15"
}

func runConvKernelWidth(p *Pass) {
	limit, says := convKernelWidthCap(p.architecture().Name)
	for _, op := range p.Ops {
		switch anefacts.BaseOpName(op.Name) {
		case "coreai.conv2d", "coreai.conv3d", "coreai.conv_transpose2d":
		default:
			continue
		}
		if op.NumOperands() < 2 {
			continue
		}
		w := anefacts.DataTensor(op.Operand(1).Type())
		if w == nil || !w.IsStatic() || w.Rank() < 3 {
			continue
		}
		if kw := w.Shape[w.Rank()-1]; kw > limit {
			p.Report(op, "", fmt.Sprintf("kernel width %d (weight %s), above %s", kw, w.String(), says))
		}
	}
}
