package ane

import (
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// RuleFp32GatherTable: a gather_nd / gather_along_axis from a table held
// in a float type the Neural Engine does not list (fp32).
var RuleFp32GatherTable = &Rule{
	ID:    "fp32-gather-table",
	Title: "fp32 embedding/gather table",
	Message: "gather from a table held in fp32: with the embedding table kept in float32 the published compile " +
		"wrote 0 Neural Engine regions and ran the whole graph on the GPU",
	Evidence: "4rg0naut/coreai-model-zoo knowledge/ane-vs-gpu-iphone-2026-09.md §5 and §7 (Qwen3-1.7B, coreai-build 3600.83.1, " +
		"iOS h18p, --disable-embedding-quantization-ios): 0 regions; the same export with the table quantized (int8) 31/31. " +
		"Under h16g's partitioning model the gather is one more fp32 island",
	Severity:   blocker,
	Experiment: "keep the table quantized (the iOS export's int8 default) or fp16; no anefix pass rewrites a constant table's type",
	Run:        runFp32GatherTable,
}

func runFp32GatherTable(p *Pass) {
	for _, op := range p.Ops {
		if op == p.Term || op.NumOperands() == 0 || op.NumResults() == 0 {
			continue
		}
		if b := anefacts.BaseOpName(op.Name); b != "coreai.gather_nd" && b != "coreai.gather_along_axis" {
			continue
		}
		t := anefacts.DataTensor(op.Operand(0).Type())
		if t == nil {
			continue
		}
		if f, ok := t.Elem.(*graph.FloatType); ok && !anefacts.AneElem(f) {
			p.Report(op, "", "table "+t.String())
		}
	}
}
