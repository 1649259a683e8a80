package ane

import (
	"github.com/anefix/anefix/passes/anefacts"
)

// ruleRank: a tensor an op computes with has more than 5 dimensions.
var ruleRank = &Rule{
	ID:       "rank",
	Title:    "tensor rank above 5",
	Message:  "tensor of rank > 5: the Neural Engine takes at most 5 dimensions",
	Evidence: "coreai-facts §4 (Apple's iOS builders keep every tensor at rank ≤ 5, e.g. the 5-D KV cache); no compiler message on record. Apple's authoring guide states the limit (apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md: intermediates of rank 6 or more are rejected). sbryngelson/ANEForge docs/developer/op-quirks.md (Global constraints) measured it on the engine's own compiler: its dimension model is rank 0 to 5 and a rank-6 tensor fails ANECCompile (ANEForge's direct e5rt path, not coreai-build); no coreai-build compile of a rank-6 graph is on record. Compressed-weight storage (a lut_to_dense LUT, rank + 2 of its weight) is not judged",
	Severity: blocker,
	Run:      runRank,
}

// runRank reports the first data tensor of rank > 5 among an op's operands
// and results. Settings and compressed storage are skipped: a palette's
// storage (lut_to_dense's LUT has the weight's rank + 2 dimensions,
// coreai-torch custom_layers.py) is not a tensor the engine computes with:
// palettized conv2d weights (rank 4, so rank-6 LUTs) are what Apple's iOS
// builders' 4-bit exports hold, and those compiled 31/31 (inferred:
// RuleLUT4SmallGroup's records do not print the LUT shape).
func runRank(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term {
			continue
		}
		for _, v := range append(op.Operands(), op.Results()...) {
			if t := anefacts.DataTensor(v.Type()); t != nil && t.Rank() > 5 && !p.ParamOnly[v] && !p.Storage[v] {
				p.Report(op, "", t.String())
				break
			}
		}
	}
}
