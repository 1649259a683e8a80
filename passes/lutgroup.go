package passes

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// minLUT4Group is the smallest number of channels per 4-bit palette that a
// published compile placed on the Neural Engine: MiniCPM5-2B with 4-bit
// palettes over 8 channels got 0 regions and over 32 channels 31/31
// (coreai-build 3600.83.1, iOS h18p), Granite-Embedding-97M over 16
// channels 0 (passes/ane rule_lut4_small_group.go has the records).
const minLUT4Group = 32

// LUTGroup reads a lut_to_dense's shapes: indices [d_0…d_{K-1}], lut
// [g_0…g_{K-1}, P, V] and the decompressed weight, whose dimension on the
// vector axis is V times the indices' (apple/coreai-torch
// coreai_torch/_compression/custom_layers.py: lut's first K dimensions
// divide the indices', each block of indices shares one palette; V entries
// per index fill the output along axis). The group is the number of
// channels of the decompressed weight that share a palette along the
// dimension the LUT splits most finely (out[d]/g_d, the smallest over the
// dimensions with g_d > 1); split is false for a single palette over the
// whole tensor. palette is P (2^bits). This is the one definition: check's
// lut4-small-group rule and palettize's warning both ask it.
func LUTGroup(indices, lut *graph.TensorType, axis int64) (group, palette int64, split, ok bool) {
	if indices == nil || lut == nil || !indices.IsStatic() || !lut.IsStatic() {
		return 0, 0, false, false
	}
	k := indices.Rank()
	if lut.Rank() != k+2 {
		return 0, 0, false, false
	}
	v := lut.Shape[k+1]
	if axis < 0 {
		axis += int64(k)
	}
	group = -1
	for d := 0; d < k; d++ {
		out := indices.Shape[d]
		if int64(d) == axis {
			out *= v
		}
		g := lut.Shape[d]
		if g <= 1 || out%g != 0 {
			continue
		}
		if c := out / g; group < 0 || c < group {
			group = c
		}
	}
	if group < 0 {
		return 0, lut.Shape[k], false, true
	}
	return group, lut.Shape[k], true, true
}

// LUT4SmallGroup reports a lut_to_dense with 4-bit palettes (P = 16) that
// each cover fewer than minLUT4Group channels (LUTGroup), and says so. A
// palette over the whole tensor is not reported: no record covers it.
func LUT4SmallGroup(op *graph.Operation) (string, int64, bool) {
	if op.NumOperands() < 2 {
		return "", 0, false
	}
	it, _ := op.Operand(0).Type().(*graph.TensorType)
	lt, _ := op.Operand(1).Type().(*graph.TensorType)
	axis := int64(0)
	if op.NumOperands() > 2 {
		if a, ok := anefacts.ConstScalarInt(op.Operand(2)); ok {
			axis = a
		}
	}
	group, p, split, ok := LUTGroup(it, lt, axis)
	if !ok || !split || p != 16 || group >= minLUT4Group {
		return "", group, false
	}
	return fmt.Sprintf("4-bit palettes of %d channels (indices %s, lut %s)", group, it.String(), lt.String()), group, true
}
