package interp

import (
	"fmt"
	"math"

	"github.com/anefix/anefix/graph"
)

// The compression ops coreai-torch emits (coreai_torch/_custom_to_core.py
// lowers its custom ops to them; testdata/mlir/coreai/compression.mlir):
//
//	quantize(x, scale, offset1, offset2, axis):
//	    q = clip(round_half_even((x − offset2) / scale) + offset1, qmin, qmax)
//	    (a float result type: (x − offset2) / scale + offset1, rounded to it)
//	dequantize(q, scale, offset1, offset2, axis) and
//	blockwise_shift_scale(q, scale, offset1, offset2):
//	    x = scale · (q − offset1) + offset2
//	lut_to_dense(indices, lut, axis): palette look-up (lut [G…, P, V])
//
// offset1 is in the quantized domain (a zero point, or q_min with minval),
// offset2 in the float domain (minval, or 0): the lowering's zero-point,
// minval and no-offset modes all fit these two formulas. Scales and offsets
// are one value, one per channel along axis, or (same rank as the data) one
// per block. Each op is computed in float64 from its operand values and
// rounded once to the result type, as every interpreter op is; the numpy
// reference (testdata/numpy/gen.py) computes the same way. Guess, unmarked
// in the sources: that the runtime rounds once (torch's eager reference
// rounds after each of its steps in the scale's dtype).

// paramIndexer maps a flat index of a tensor of shape xs to the element of
// a scale/offset tensor p that applies to it.
func paramIndexer(what string, p *Tensor, xs []int, axis int64) (func(i int) int, error) {
	n := p.Len()
	switch {
	case n == 1:
		return func(int) int { return 0 }, nil
	case len(p.Shape) == len(xs) && len(xs) > 0:
		block := make([]int, len(xs))
		for d := range xs {
			if p.Shape[d] == 0 || xs[d]%p.Shape[d] != 0 {
				return nil, fmt.Errorf("%s shape %v does not divide the data shape %v", what, p.Shape, xs)
			}
			block[d] = xs[d] / p.Shape[d]
		}
		xst, pst := stridesOf(xs), stridesOf(p.Shape)
		return func(i int) int {
			k := 0
			for d := range xs {
				c := i / xst[d] % xs[d]
				k += c / block[d] * pst[d]
			}
			return k
		}, nil
	}
	ax, err := normAxis(axis, len(xs))
	if err != nil {
		return nil, err
	}
	if n != xs[ax] {
		return nil, fmt.Errorf("%s has %d elements; want 1, %d (one per channel of axis %d) or the data's rank", what, n, xs[ax], ax)
	}
	st := stridesOf(xs)
	return func(i int) int { return i / st[ax] % xs[ax] }, nil
}

// quantParams reads scale, offset1 and offset2 (operands 1-3) and their
// indexers for data of shape xs. Missing offsets are zero: coreai-torch's
// tests also print blockwise_shift_scale with (data, scale) and (data,
// scale, offset), and an older quantize/dequantize form with one offset
// (data, scale, offset, axis); callers pass the offsets they have.
func quantParams(ins []*Tensor, xs []int, axis int64) (scale, off1, off2 func(i int) float64, err error) {
	if len(ins) < 2 {
		return nil, nil, nil, fmt.Errorf("needs (data, scale[, offset1[, offset2]]), has %d operands", len(ins))
	}
	zero := func(int) float64 { return 0 }
	off1, off2 = zero, zero
	get := func(what string, t *Tensor) (func(i int) float64, error) {
		ix, err := paramIndexer(what, t, xs, axis)
		if err != nil {
			return nil, err
		}
		return func(i int) float64 { return t.Float64At(ix(i)) }, nil
	}
	if scale, err = get("scale", ins[1]); err != nil {
		return
	}
	if len(ins) > 2 {
		if off1, err = get("offset1", ins[2]); err != nil {
			return
		}
	}
	if len(ins) > 3 {
		off2, err = get("offset2", ins[3])
	}
	return
}

// dequantize computes scale·(q − offset1) + offset2 into out (float).
func dequantize(ins []*Tensor, axis int64, out Elem) (*Tensor, error) {
	if !out.IsFloat() {
		return nil, fmt.Errorf("dequantize to %s: want a float result", out)
	}
	x := ins[0]
	scale, off1, off2, err := quantParams(ins, x.Shape, axis)
	if err != nil {
		return nil, err
	}
	d := make([]float32, x.Len())
	for i := range d {
		d[i] = out.round64(scale(i)*(x.Float64At(i)-off1(i)) + off2(i))
	}
	return NewFloat(out, append([]int(nil), x.Shape...), d), nil
}

// quantize computes clip(round_half_even((x − offset2)/scale) + offset1)
// into an integer out, or (x − offset2)/scale + offset1 rounded to a float
// out.
func quantize(ins []*Tensor, axis int64, out Elem) (*Tensor, error) {
	x := ins[0]
	scale, off1, off2, err := quantParams(ins, x.Shape, axis)
	if err != nil {
		return nil, err
	}
	shape := append([]int(nil), x.Shape...)
	if out.IsFloat() {
		d := make([]float32, x.Len())
		for i := range d {
			d[i] = out.round64((x.Float64At(i)-off2(i))/scale(i) + off1(i))
		}
		return NewFloat(out, shape, d), nil
	}
	switch out {
	case SI4, UI4, SI8, UI8, SI16, UI16, SI32, UI32:
	default:
		return nil, fmt.Errorf("quantize to %s is not supported (want si4, ui4, si8, ui8, si16, ui16, si32 or ui32)", out)
	}
	lo, hi := intRange(out)
	d := make([]int64, x.Len())
	for i := range d {
		q := math.RoundToEven((x.Float64At(i)-off2(i))/scale(i)) + off1(i)
		if q != q { // NaN input: the lowest value, as a saturating convert would give
			q = lo
		}
		d[i] = int64(math.Min(hi, math.Max(lo, q)))
	}
	return NewInt(out, shape, d), nil
}

// lutToDense expands palette indices: lut has shape [G_0…G_{K-1}, P, V]
// for indices of rank K, each G_d dividing the indices' dimension d (one
// palette per block); output element c (along axis, V entries per index)
// is lut[c / block, indices[c], v]; its float result is kept as the bytes
// of out when raw (a folded weight, fold.go). The indices are walked in order with
// their coordinates kept incrementally (per-dimension offset tables, no
// division per element: full-scale weights have 10^8 and more).
func lutToDense(indices, lut *Tensor, axis int64, out Elem, raw bool) (*Tensor, error) {
	k := len(indices.Shape)
	if len(lut.Shape) != k+2 {
		return nil, fmt.Errorf("lut_to_dense: lut rank %d, want indices rank %d + 2", len(lut.Shape), k)
	}
	if indices.Elem.IsFloat() {
		return nil, fmt.Errorf("lut_to_dense: indices are %s, want an unsigned integer type", indices.Elem)
	}
	ax, err := normAxis(axis, k)
	if err != nil {
		return nil, err
	}
	p, v := lut.Shape[k], lut.Shape[k+1]
	block := make([]int, k)
	for d := 0; d < k; d++ {
		if lut.Shape[d] == 0 || indices.Shape[d]%lut.Shape[d] != 0 {
			return nil, fmt.Errorf("lut_to_dense: lut shape %v does not divide the indices shape %v", lut.Shape, indices.Shape)
		}
		block[d] = indices.Shape[d] / lut.Shape[d]
	}
	shape := append([]int(nil), indices.Shape...)
	shape[ax] *= v
	lst, ost := stridesOf(lut.Shape), stridesOf(shape)
	// per dimension d and coordinate c: the palette offset and output
	// offset c contributes
	lutOff, outOff := make([][]int, k), make([][]int, k)
	for d := 0; d < k; d++ {
		lutOff[d], outOff[d] = make([]int, indices.Shape[d]), make([]int, indices.Shape[d])
		for c := range lutOff[d] {
			lutOff[d][c] = c / block[d] * lst[d]
			oc := c
			if d == ax {
				oc *= v
			}
			outOff[d][c] = oc * ost[d]
		}
	}
	o := newLutOut(out, numel(shape), raw)
	lutVals := lut.Floats()
	if !lut.Elem.IsFloat() {
		lutVals = make([]float32, lut.Len())
		for i, x := range lut.I {
			lutVals[i] = float32(x)
		}
	}
	at := indexAt(indices)
	coords := make([]int, k)
	n := indices.Len()
	for i := 0; i < n; i++ {
		idx := at(i)
		if idx < 0 || idx >= int64(p) {
			return nil, fmt.Errorf("lut_to_dense: index %d at element %d is outside the %d palette entries", idx, i, p)
		}
		base, dst := int(idx)*lst[k], 0
		for d := 0; d < k; d++ {
			base += lutOff[d][coords[d]]
			dst += outOff[d][coords[d]]
		}
		for e := 0; e < v; e++ {
			o.set(dst+e*ost[ax], float64(lutVals[base+e]))
		}
		for d := k - 1; d >= 0; d-- {
			if coords[d]++; coords[d] < indices.Shape[d] {
				break
			}
			coords[d] = 0
		}
	}
	return o.tensor(shape), nil
}

// scatterCombiner reads scatter_nd's combiner block `^bb0(%old, %new):
// coreai.yield …`: yielding %new replaces (also when there is no block),
// yielding broadcasting_add(%old, %new) accumulates; anything else is an
// error naming what the block does.
func scatterCombiner(op *graph.Operation) (add bool, err error) {
	if len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 {
		return false, nil
	}
	b := op.Regions[0].Entry()
	last := b.Last()
	if len(b.Args()) != 2 || last == nil || last.NumOperands() != 1 {
		return false, fmt.Errorf("scatter_nd: combiner block is not ^bb0(%%old, %%new) ending in one yielded value")
	}
	y := last.Operand(0)
	switch {
	case y == b.Arg(1):
		return false, nil
	case y.DefiningOp() != nil && canonical(y.DefiningOp().Name) == "add" && y.DefiningOp().NumOperands() == 2:
		d := y.DefiningOp()
		if d.Operand(0) == b.Arg(0) && d.Operand(1) == b.Arg(1) || d.Operand(0) == b.Arg(1) && d.Operand(1) == b.Arg(0) {
			return true, nil
		}
	}
	return false, fmt.Errorf("scatter_nd: the interpreter runs combiners that replace or add, not this one (yields %s)", y.Type())
}

// quantizeOp runs quantize and dequantize: (x, scale, offset1, offset2,
// axis) as coreai-torch lowers them today; (x, scale, offset, axis) in an
// older printed form. The axis is the last operand in both.
func quantizeOp(c opCall) (*Tensor, error) {
	ins := c.ins
	if len(ins) != 4 && len(ins) != 5 {
		return nil, fmt.Errorf("%s needs (x, scale, offset1, offset2, axis) or (x, scale, offset, axis), has %d operands", c.k, len(ins))
	}
	axis := int64(0)
	if a := ins[len(ins)-1].Ints(); len(a) == 1 {
		axis = a[0]
	}
	if c.k == "quantize" {
		return quantize(ins[:len(ins)-1], axis, c.el)
	}
	return dequantize(ins[:len(ins)-1], axis, c.el)
}

func blockwiseShiftScaleOp(c opCall) (*Tensor, error) {
	if len(c.ins) < 2 || len(c.ins) > 4 {
		return nil, fmt.Errorf("blockwise_shift_scale needs (data, scale[, offset1[, offset2]]), has %d operands", len(c.ins))
	}
	return dequantize(c.ins, 0, c.el)
}

func lutToDenseOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	if foldsLUT(c.op) {
		return c.in.foldLUT(c.op, c.ins)
	}
	axis := int64(0)
	if a, ok := intArg(c.op, c.ins, 2, "axis"); ok && len(a) == 1 {
		axis = a[0]
	}
	return lutToDense(c.ins[0], c.ins[1], axis, c.el, false)
}
