package ane

// RuleElementType: a value whose element type the Neural Engine cannot
// hold, in an fp32 island the compiler is modelled to cite (it holds a
// graph port, or is a round trip through a buffer the graph is given).
// The islands and why each is cited are anefacts.Graph.Islands, which
// strip-fp32-casts' islands=blockers asks too (anefacts.ElementTypeBlockers).
var RuleElementType = &Rule{
	ID:             "element-type",
	Title:          "element type the Neural Engine cannot hold",
	Message:        "Incompatible element type for ANE: expected fp16, f8E4M3, si8, ui8, si16, or ui16",
	CompilersWords: true,
	Evidence: "coreai-build 3600.83.1 ane_validation_message (coreai-facts §1, §4). Calibrated on the seed: " +
		"arms A–C cite the casts that open the gated-delta recurrence (models/macos/qwen3_5.py:199 via " +
		"qwen3_5_ios.py:290; arm C: 5 layers, 30 warnings = 6 per layer); the builder's fp32 norms and RoPE are " +
		"never cited and arm D, which kept them, had 0 warnings; arm D's si32 in_step was not cited. So: an fp32 " +
		"island is reported (at the ops that open it) when it holds a graph port or is a round trip through a " +
		"buffer the graph is given (read, updated in fp32, written back); other fp32 chains are suspects; integer " +
		"values that only feed axes/shape/index operands or casts are skipped",
	Fix:      "strip-fp32-casts",
	Severity: blocker,
	Requires: []*fact{factIslands},
	Run:      runElementType,
}

// runElementType places a finding on the ops that open each cited island
// (casts into fp32, ops reading an fp32 input: what the compiler cites and
// what strip-fp32-casts removes) and makes every op of it illegal.
func runElementType(p *Pass) {
	for _, is := range p.Islands() {
		if is.Why == "" {
			continue
		}
		for _, op := range is.All {
			p.MarkIllegal(op)
		}
		for _, op := range is.Roots {
			p.ReportVals(op, "", is.Detail+" that "+is.Why, is.Vals)
		}
	}
}
