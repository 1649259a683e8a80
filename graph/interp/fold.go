package interp

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
)

// Palettized weights at full scale. A lut_to_dense whose operands are all
// constants is a weight: the interpreter computes it once, keeps the result
// in its element type's bytes (as a weight blob is kept, so matmul, conv and
// gather read it in place: 2 bytes per fp16 element instead of 4), and
// reads its palette indices straight from their blob, packed or not,
// without holding them as int64s (8 bytes per index: 6 GB for the 0.75 B
// indices of full-scale synth arm A). EstimateMemory counts the same.

// foldsLUT reports whether op is a lut_to_dense the interpreter computes
// once: every operand a constant, a static f16, bf16 or f32 result.
func foldsLUT(op *graph.Operation) bool {
	if canonical(op.Name) != "lut_to_dense" || op.NumOperands() < 2 || op.NumResults() != 1 {
		return false
	}
	for _, v := range op.Operands() {
		d := v.DefiningOp()
		if d == nil || !isConstant(d.Name) {
			return false
		}
	}
	tt, ok := graph.AsTensor(op.Result(0).Type())
	if !ok || !tt.IsStatic() {
		return false
	}
	el, err := ElemOf(tt.Elem)
	return err == nil && (el == F16 || el == BF16 || el == F32)
}

// lazyIndices reports whether constant op holds palette indices in a
// dense_resource that only folded lut_to_dense ops read (as their indices):
// the interpreter then keeps the blob's bytes, not int64 values.
func lazyIndices(op *graph.Operation) bool {
	if op.Name != "coreai.constant" || op.NumResults() != 1 {
		return false
	}
	a, ok := op.Inherent("value").(*graph.DenseResourceAttr)
	if !ok {
		return false
	}
	if it, ok := a.Type.Elem.(*graph.IntegerType); !ok || it.Width > 8 {
		return false
	}
	uses := op.Result(0).Uses()
	for _, u := range uses {
		if u.Index != 0 || !foldsLUT(u.Op) {
			return false
		}
	}
	return len(uses) > 0
}

// lazyIndexTensor is a lazily read index constant: its shape and element
// type, and the blob's bytes (packed or one per byte).
func (in *Interp) lazyIndexTensor(op *graph.Operation) (*Tensor, error) {
	if t := in.consts[op]; t != nil {
		return t, nil
	}
	a := op.Inherent("value").(*graph.DenseResourceAttr)
	r, el, err := in.resourceOf(a)
	if err != nil {
		return nil, err
	}
	shape, err := ShapeOf(a.Type)
	if err != nil {
		return nil, fmt.Errorf("dense_resource<%s>: %w", a.Key, err)
	}
	n := int64(numel(shape))
	w := graph.BitWidth(a.Type.Elem)
	switch r.Blob.Size() {
	case n:
		w = 8 // one element per byte
	case graph.PackedSize(n, w):
	default:
		return nil, fmt.Errorf("dense_resource<%s>: blob has %d bytes, %s needs %d (one element per byte) or %d (packed)", a.Key, r.Blob.Size(), a.Type, n, graph.PackedSize(n, w))
	}
	data, err := in.blobBytes(r)
	if err != nil {
		return nil, fmt.Errorf("dense_resource<%s>: %w", a.Key, err)
	}
	t := &Tensor{Elem: el, Shape: shape, packed: data, packedBits: w}
	in.consts[op] = t
	return t, nil
}

// indexAt returns a reader of an index tensor's elements: held values, or
// fields of a lazily read blob.
func indexAt(t *Tensor) func(i int) int64 {
	if t.packed == nil {
		return func(i int) int64 { return t.I[i] }
	}
	b, w := t.packed, t.packedBits
	if w == 8 {
		return func(i int) int64 { return int64(b[i]) }
	}
	mask := uint32(1)<<w - 1
	return func(i int) int64 {
		bit := i * w
		k := bit >> 3
		v := uint32(b[k])
		if k+1 < len(b) {
			v |= uint32(b[k+1]) << 8
		}
		return int64(v >> (bit & 7) & mask)
	}
}

// foldLUT computes a folded lut_to_dense once and keeps it (as bytes of
// its element type).
func (in *Interp) foldLUT(op *graph.Operation, ins []*Tensor) (*Tensor, error) {
	if t := in.consts[op]; t != nil {
		return t, nil
	}
	el, err := resultElem(op, 0)
	if err != nil {
		return nil, err
	}
	axis := int64(0)
	if a, ok := intArg(op, ins, 2, "axis"); ok && len(a) == 1 {
		axis = a[0]
	}
	fold := func() (*Tensor, error) { return lutToDense(ins[0], ins[1], axis, el, true) }
	var t *Tensor
	if key, ok := in.foldKey(op, axis); ok {
		t, err = in.opts.Blobs.fold(key, fold)
	} else {
		t, err = fold()
	}
	if err != nil {
		return nil, err
	}
	in.consts[op] = t
	return t, nil
}

// lutOut collects lut_to_dense's output: float32 values, integers, or the
// bytes of an f16, bf16 or f32 result (raw).
type lutOut struct {
	el  Elem
	f   []float32
	i   []int64
	raw []byte
}

func newLutOut(el Elem, n int, raw bool) *lutOut {
	o := &lutOut{el: el}
	switch {
	case raw && (el == F16 || el == BF16):
		o.raw = make([]byte, 2*n)
	case raw && el == F32:
		o.raw = make([]byte, 4*n)
	case el.IsFloat():
		o.f = make([]float32, n)
	default:
		o.i = make([]int64, n)
	}
	return o
}

func (o *lutOut) set(dst int, v float64) {
	switch {
	case o.raw != nil && o.el == F16:
		binary.LittleEndian.PutUint16(o.raw[2*dst:], f16.FromFloat64(v))
	case o.raw != nil && o.el == BF16:
		binary.LittleEndian.PutUint16(o.raw[2*dst:], f16.BF16FromFloat64(v))
	case o.raw != nil:
		binary.LittleEndian.PutUint32(o.raw[4*dst:], math.Float32bits(float32(v)))
	case o.f != nil:
		o.f[dst] = o.el.round64(v)
	default:
		o.i[dst] = o.el.wrap(int64(v))
	}
}

func (o *lutOut) tensor(shape []int) *Tensor {
	switch {
	case o.raw != nil:
		return &Tensor{Elem: o.el, Shape: shape, raw: o.raw, rawEl: o.el}
	case o.f != nil:
		return NewFloat(o.el, shape, o.f)
	}
	return NewInt(o.el, shape, o.i)
}

// foldKey is what identifies folded lut_to_dense op among the
// interpreters sharing Options.Blobs: its index and palette blobs by the
// bytes the store holds for them (the same for byte-identical blobs), or
// an inline dense value by its text when short; false when there is no
// store or an operand is neither.
func (in *Interp) foldKey(op *graph.Operation, axis int64) (foldKey, bool) {
	const maxInline = 64 << 10
	s := in.opts.Blobs
	if s == nil || op.NumOperands() < 2 {
		return foldKey{}, false
	}
	var ptrs [2]*byte
	sig := fmt.Sprintf("%d:%s", axis, op.Result(0).Type())
	for k := range ptrs {
		switch a := op.Operand(k).DefiningOp().Inherent("value").(type) {
		case *graph.DenseResourceAttr:
			r := in.m.Resource(a.Key)
			if r == nil || r.Blob == nil {
				return foldKey{}, false
			}
			if ptrs[k] = s.heldData(r); ptrs[k] == nil {
				return foldKey{}, false
			}
			sig += ":" + a.Type.String()
		case *graph.DenseElementsAttr:
			if n, err := a.Type.ByteSize(); err != nil || n > maxInline {
				return foldKey{}, false
			}
			sig += ":" + a.String()
		default:
			return foldKey{}, false
		}
	}
	return foldKey{idx: ptrs[0], lut: ptrs[1], sig: sig}, true
}
