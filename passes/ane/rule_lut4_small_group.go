package ane

import (
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/anefacts"
)

// RuleLUT4SmallGroup: 4-bit palettized weights whose palettes each cover
// fewer than 32 channels (the group is passes.LUT4SmallGroup's, the
// definition palettize uses too).
var RuleLUT4SmallGroup = &Rule{
	ID:    "lut4-small-group",
	Title: "4-bit palettized weights with fewer than 32 channels per palette",
	Message: "4-bit lut_to_dense whose palettes each cover fewer than 32 channels: published compiles of such " +
		"weights wrote no Neural Engine region at all (ANECCompileOffline() failed … CompilationFailure; coreai-build exits 0)",
	Evidence: "4rg0naut/coreai-model-zoo knowledge/ane-vs-gpu-iphone-2026-09.md §9 (MiniCPM5-2B, coreai-build 3600.83.1, " +
		"iOS h18p): 4-bit group 8 and mixed 4-bit g8 + 8-bit → 0 regions; 4-bit g32, mixed 4-bit g32 + 8-bit, 6-bit g8 and " +
		"8-bit g32 → 31/31. 4rg0naut/silicon-ledger-public results/EXP-005-ane-residency/README.md step 7 (Granite-Embedding-97M, " +
		"3600.83.1, macOS h16g): 4-bit group 16 → 0, 6-bit 14, 8-bit 13. The group is read from lut_to_dense's operand shapes " +
		"by passes.LUTGroup, the definition palettize uses too (indices [d…], lut [g…, P, V]: the decompressed weight's dim / lut dim " +
		"channels share a palette, apple/coreai-torch coreai_torch/_compression/custom_layers.py); P = 16 is 4-bit. Guess: a per-tensor palette (no dimension split) is " +
		"not reported, no record covers it; the g32 boundary is measured on h18p only",
	Fix:      "",
	Severity: blocker,
	Experiment: "re-export with 32 or more channels per 4-bit palette (coreai.llm.export --compression " +
		"4bit_weight_palettized_group32) or 6/8 bits, or palettize the fp16 export with anefix rewrite --enable palettize " +
		"(its defaults are 4-bit, 32 channels), then `anefix compile --require-ane`",
	Run: runLUT4SmallGroup,
}

func runLUT4SmallGroup(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term || anefacts.BaseOpName(op.Name) != "coreai.lut_to_dense" {
			continue
		}
		if d, _, ok := passes.LUT4SmallGroup(op); ok {
			p.Report(op, "", d)
		}
	}
}
