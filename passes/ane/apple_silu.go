package ane

import (
	"github.com/anefix/anefix/passes/anefacts"
)

// AppleSilu: a coreai.silu, which Apple's authoring guide advises against
// and Apple's own iOS model uses (info only).
var AppleSilu = &Rule{
	ID:    "apple.silu",
	Title: "silu (Apple's guidance: write x·sigmoid(x))",
	Message: "Apple's authoring guide says silu lowers to ops the Neural Engine refuses and to write x·sigmoid(x); " +
		"CONTRADICTED on h18p: Apple's own iOS MLP uses silu and that model compiled 19/19 regions",
	Evidence: "apple/coreai-models skills/skills/model-authoring/references/common_issues.md (silu → mps.cast + mps.swish f32 + " +
		"mps.cast). Contradicting measurement: apple/coreai-models python/src/coreai_models/primitives/ios/mlp.py calls " +
		"nn.functional.silu, and the seed note's arm E (Apple's stock Qwen3-0.6B iOS, coreai-build 3600.83.1, h18p) got 19/19 " +
		"regions. Kept as info: no verdict rests on it",
	Severity: info,
	Run:      runSilu,
}

func runSilu(p *Pass) {
	for _, op := range p.Ops {
		if op != p.Term && anefacts.BaseOpName(op.Name) == "coreai.silu" {
			p.Report(op, "", "")
		}
	}
}
