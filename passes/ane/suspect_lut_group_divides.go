package ane

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// suspectLUTGroup: a lut_to_dense whose palettes do not divide the
// weight: some dimension of the LUT's grid does not divide the indices'.
var suspectLUTGroup = &Rule{
	ID:    "suspect.lut-group-divides",
	Title: "LUT palettes that do not divide the weight's channels",
	Message: "UNCONFIRMED: the lut_to_dense's palettes do not divide the weight (a dimension of the LUT's grid does not " +
		"divide the indices' dimension), so which palette an index reads is not defined; anefix verify's CPU interpreter " +
		"refuses it, and what the Neural Engine compiler does with it is not on record",
	Evidence: "the decompression's definition: lut [g_0…g_{K-1}, P, V] over indices [d_0…d_{K-1}], each g_d dividing d_d " +
		"(apple/coreai-torch coreai_torch/_compression/custom_layers.py, as passes.LUTGroup and graph/interp's lutToDense " +
		"read it). Why it matters: apple/coremltools PR 2777 (open) shows a palettizer declining a group size that does " +
		"not divide the channel count (group 16 over 120 output channels) and leaving the weight silently wrong (divided " +
		"by its per-channel scale, max error 16.9); that PR is about coremltools' palettize_weights, not about the Neural " +
		"Engine, and no compile of such a lut_to_dense is on record; anefix's own palettize declines such a weight without touching it (passes/palettize.go)",
	Severity: suspect,
	Experiment: "re-export with a group size that divides the channel count, or palettize the fp16 export with anefix " +
		"rewrite --enable palettize (a weight its group size does not divide it leaves unpalettized and unchanged, with a " +
		"note), then anefix verify against the fp16 export",
	Run: runLUTGroupDivides,
}

func runLUTGroupDivides(p *Pass) {
	for _, op := range p.Ops {
		if anefacts.BaseOpName(op.Name) != "coreai.lut_to_dense" || op.NumOperands() < 2 {
			continue
		}
		it, _ := op.Operand(0).Type().(*graph.TensorType)
		lt, _ := op.Operand(1).Type().(*graph.TensorType)
		if it == nil || lt == nil || !it.IsStatic() || !lt.IsStatic() || lt.Rank() != it.Rank()+2 {
			continue
		}
		for d := 0; d < it.Rank(); d++ {
			if g := lt.Shape[d]; g > 0 && it.Shape[d]%g != 0 {
				p.Report(op, "", fmt.Sprintf("dimension %d: %d palettes over %d indices (indices %s, lut %s)",
					d, g, it.Shape[d], it.String(), lt.String()))
				break
			}
		}
	}
}
