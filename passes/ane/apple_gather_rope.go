package ane

import (
	"github.com/anefix/anefix/passes/anefacts"
)

// AppleGatherRoPE: a gather_nd of a 2-D table giving a rank-3 result
// (Apple's RoPE guidance; contradicted by Apple's own compile, info only).
var AppleGatherRoPE = &Rule{
	ID:    "apple.gather-rope",
	Title: "in-graph gather_nd of a 2-D table giving a rank-3 result (Apple's RoPE guidance)",
	Message: "Apple's authoring guide says indexing a 2-D cos/sin table with position ids (gather_nd, rank-3 result) is " +
		"rejected; CONTRADICTED on h18p: Apple's own iOS RoPE gathers exactly so and that model compiled 19/19 regions",
	Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (RoPE) and common_issues.md. " +
		"Contradicting measurement: apple/coreai-models python/src/coreai_models/export/mlir_ops.py lowers " +
		"rope_gather_cached_cos_sin to gather_nd of the 2-D cache with [B, S, 1] indices, and the seed note's arm E " +
		"(coreai-build 3600.83.1, h18p) got 19/19. Kept as info: no verdict rests on it",
	Severity: info,
	Run:      runGatherRoPE,
}

func runGatherRoPE(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term || anefacts.BaseOpName(op.Name) != "coreai.gather_nd" || op.NumOperands() == 0 || op.NumResults() == 0 {
			continue
		}
		t := anefacts.DataTensor(op.Operand(0).Type())
		r := anefacts.DataTensor(op.Result(0).Type())
		if t != nil && t.Rank() == 2 && r != nil && r.Rank() == 3 {
			p.Report(op, "", t.String()+" → "+r.String())
		}
	}
}
