package ane

import (
	"fmt"
	"strings"

	"github.com/anefix/anefix/passes/anefacts"
)

// axisCap is the longest axis the Neural Engine's own lowering took on
// architecture arch, as ANEForge measured it (adviceAxisExtent's
// Evidence): 16,384 on its families through A15 (M1–M3: h13, h14, h15 by
// its M(n) = H(n+12) ladder, and any older name), 65,536 from its A16
// family (H16 and later: M4, M5, A17, A18; h16g and h18p).
func axisCap(arch string) (int64, string) {
	if n, ok := hNumber(arch); ok && n >= 16 {
		return 65536, "65,536 (the cap of ANEForge's A16 family, H16 and later, which " + arch + " is)"
	}
	return 16384, "16,384 (the cap through ANEForge's A15 family, H13–H15: M1–M3, which " + arch + " is)"
}

// hNumber is the generation in a coreai-build architecture name: 18 for
// h18p.
func hNumber(arch string) (int, bool) {
	var n int
	if !strings.HasPrefix(arch, "h") {
		return 0, false
	}
	_, err := fmt.Sscanf(arch[1:], "%d", &n)
	return n, err == nil
}

// adviceAxisExtent: an op computes with a tensor one of whose axes is
// longer than the Neural Engine's per-axis cap on the architecture.
// Advice, because the Core AI compiler tiles such axes.
var adviceAxisExtent = &Rule{
	ID:    "perf.axis-extent",
	Title: "tensor axis longer than the Neural Engine's per-axis cap (16,384 through H15, 65,536 from H16)",
	Message: "an axis longer than the Neural Engine's per-axis cap on this architecture (16,384 up to M3, 65,536 from " +
		"M4/H16): advice, not a blocker, because the Core AI compiler tiled such an axis in a published compile; the " +
		"tiling may cost time, and a path that does not tile (direct ANE programs) rejects it",
	Evidence: "sbryngelson/ANEForge docs/capabilities.md (Dimension bounds) and docs/cross-chip.md: spatial and contraction " +
		"extents are capped at 16,384 through its A15 family and 65,536 at its A16 family, the channel axis at 65,536 on " +
		"both (measured on ANEForge's direct e5rt path; M1 equal to A14). ANEForge's family names are capability tiers, " +
		"not chips: its A15 family is M3 (H15), its A16 family M4, M5 and every A17/A18 die (H16 and later), so h16g and " +
		"h18p take 65,536 and names h13–h15 16,384; docs/developer/op-quirks.md: 65,536 per axis. Against a blocker: " +
		"Apple's dense control (Qwen3-0.6B, vocabulary 151,936, coreai-build 3600.83.1, iOS h18p) got 19/19 regions " +
		"(../shared/docs/seed-qwen35-ane-note.txt arm E), so coreai-build tiles at least the vocabulary axis. Which " +
		"axis is spatial or channel in a Core AI layout is not on record, so the rule reads every axis",
	Severity: advice,
	Requires: []*fact{factArchitecture},
	Run:      runAxisExtent,
}

func runAxisExtent(p *Pass) {
	limit, says := axisCap(p.architecture().Name)
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
			if longest > limit {
				p.Report(op, "", fmt.Sprintf("%s: an axis of %d, above %s", t.String(), longest, says))
				break
			}
		}
	}
}
