package ane

import (
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// suspectLUTChannelScale: a blockwise_shift_scale that scales the float
// output of a lut_to_dense: palettized weights with per-channel scales.
var suspectLUTChannelScale = &Rule{
	ID:    "suspect.lut-channel-scale",
	Title: "per-channel scales applied to a LUT's decompressed weight",
	Message: "UNCONFIRMED: a blockwise_shift_scale scales the float weight a lut_to_dense decompresses (per-channel " +
		"scales on palettized weights); Core ML's Neural Engine load crashed on this form, and folding the scales into " +
		"the LUT avoided it",
	Evidence: "apple/coremltools PR 2688 (open): palettize_weights with enable_per_channel_scale on the iOS 18 target " +
		"emits constexpr_blockwise_shift_scale over the constexpr_lut_to_dense result; loading it on the Neural Engine " +
		"(Core ML, macOS 26) fails MPSGraph's verification ('mps.dequantize' wants quantized data, gets fp16) while CPU " +
		"and GPU run it; a comment reproduces it on an M4 (macOS 26.6.2) and without the flag on the same target. A Core " +
		"AI module carries no deployment target (coreai-build takes --platform and --architecture at compile time), so " +
		"the rule cannot tell the iOS 18 target from another: it reads the form alone, under every architecture. Guess: " +
		"only a lut_to_dense feeding the scale directly is reported (a cast between, as in joint int8 LUTs, is not in the " +
		"record). No coreai-build compile of the form is on record",
	Severity: suspect,
	Experiment: "fold the scales into the LUT entries (scale each palette by its channel's scale) or re-export " +
		"without per-channel scales, then compare the regions (anefix compile --require-ane)",
	Run: runLUTChannelScale,
}

func runLUTChannelScale(p *Pass) {
	for _, op := range p.Ops {
		if anefacts.BaseOpName(op.Name) != "coreai.blockwise_shift_scale" || op.NumOperands() < 2 {
			continue
		}
		data := op.Operand(0)
		d := data.DefiningOp()
		t := anefacts.DataTensor(data.Type())
		if d == nil || anefacts.BaseOpName(d.Name) != "coreai.lut_to_dense" || t == nil {
			continue
		}
		if _, float := t.Elem.(*graph.FloatType); !float {
			continue
		}
		p.Report(op, "", "scales "+op.Operand(1).Type().String()+" over lut_to_dense "+t.String())
	}
}
