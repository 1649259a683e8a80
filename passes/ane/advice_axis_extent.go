package ane

import (
	"fmt"

	"github.com/anefix/anefix/passes/anefacts"
)

// Axis caps of the Neural Engine's own lowering as ANEForge measured them
// (adviceAxisExtent's Evidence).
const (
	axisCapToA15 = 16384
	axisCapA16   = 65536
)

// adviceAxisExtent: an op computes with a tensor one of whose axes is
// longer than the Neural Engine's per-axis cap before A16 (16,384) or from
// A16 (65,536). Advice, because the Core AI compiler tiles such axes.
var adviceAxisExtent = &Rule{
	ID:    "perf.axis-extent",
	Title: "tensor axis longer than the Neural Engine's per-axis cap (16,384 through A15, 65,536 from A16)",
	Message: "an axis longer than 16,384 (the cap through A15) or 65,536 (from A16): advice, not a blocker, because " +
		"the Core AI compiler tiled such an axis in a published compile; tiling may cost time, and a compiler that does " +
		"not tile (Core ML, direct ANE programs) rejects it",
	Evidence: "sbryngelson/ANEForge docs/capabilities.md (Dimension bounds) and docs/cross-chip.md: spatial and contraction " +
		"extents are capped at 16,384 through A15 and 65,536 from A16, the channel axis at 65,536 on both (measured on " +
		"ANEForge's direct e5rt path, M1 equal to A14); docs/developer/op-quirks.md: 65,536 per axis. Against a blocker: " +
		"Apple's dense control (Qwen3-0.6B, vocabulary 151,936, coreai-build 3600.83.1, iOS h18p) got 19/19 regions " +
		"(../shared/docs/seed-qwen35-ane-note.txt arm E), so coreai-build tiles at least the vocabulary axis. Which " +
		"axis is spatial or channel in a Core AI layout is not on record, so the rule reads every axis",
	Severity: advice,
	Run:      runAxisExtent,
}

func runAxisExtent(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term || op.Name == "coreai.constant" {
			continue
		}
		for _, v := range append(op.Operands(), op.Results()...) {
			t := anefacts.DataTensor(v.Type())
			if t == nil || !t.IsStatic() || p.ParamOnly[v] || p.Storage[v] {
				continue
			}
			longest := int64(0)
			for _, d := range t.Shape {
				longest = max(longest, d)
			}
			if longest <= axisCapToA15 {
				continue
			}
			bound := "16,384 (the cap through A15; within A16's 65,536)"
			if longest > axisCapA16 {
				bound = "65,536 (the cap from A16)"
			}
			p.Report(op, "", fmt.Sprintf("%s: an axis of %d, above %s", t.String(), longest, bound))
			break
		}
	}
}
