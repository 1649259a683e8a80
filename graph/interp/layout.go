package interp

import (
	"fmt"
	"math"
	"strings"

	"github.com/anefix/anefix/graph"
)

// Layout ops (tile, pad, reverse, broadcast_in_dims) and the shape ops
// (get_shape, broadcast_shapes, range), with the operand layouts
// coreai-torch prints (tests/ops/test_ops_ir.py) and the semantics of the
// torch op each one lowers (coreai_torch/_aten_to_core.py).

// maxComputedElems bounds a result whose shape a kernel computes from
// operand values (tile's repetitions, range's bounds) when the op declares
// no static shape to hold it to: such a result is refused before anything
// is allocated, so a bad graph cannot exhaust memory.
const maxComputedElems = 1 << 28

// checkOut holds a computed result shape to the op's declared static shape
// (want; the element counts must agree, as fitResult checks afterwards) or,
// with want nil, to maxComputedElems, before the kernel allocates it.
func checkOut(what string, got, want []int) error {
	n, ok := graph.ShapeElementsInt(got)
	if want != nil {
		if m, _ := graph.ShapeElementsInt(want); !ok || n != m {
			return fmt.Errorf("%s: computed shape %v but the op declares %v", what, got, want)
		}
		return nil
	}
	if !ok || n > maxComputedElems {
		return fmt.Errorf("%s: computed shape %v has more than %d elements", what, got, maxComputedElems)
	}
	return nil
}

// pickElems builds a tensor of t's kind and the given shape whose element o is
// t's element src[o], or fill's single element where src[o] < 0. Values
// are copied as they are (no rounding: nothing is computed).
func pickElems(t *Tensor, shape []int, src []int, fill *Tensor) (*Tensor, error) {
	if fill != nil && (fill.Len() != 1 || fill.Elem.IsFloat() != t.Elem.IsFloat()) {
		return nil, fmt.Errorf("fill value %s does not match data %s", fill, t)
	}
	if t.Elem.IsFloat() {
		f := t.Floats()
		var fv float32
		if fill != nil {
			fv = t.Elem.round(fill.Floats()[0])
		}
		res := make([]float32, len(src))
		for o, i := range src {
			if i < 0 {
				res[o] = fv
			} else {
				res[o] = f[i]
			}
		}
		return NewFloat(t.Elem, shape, res), nil
	}
	var fv int64
	if fill != nil {
		fv = t.Elem.wrap(fill.I[0])
	}
	res := make([]int64, len(src))
	for o, i := range src {
		if i < 0 {
			res[o] = fv
		} else {
			res[o] = t.I[i]
		}
	}
	return NewInt(t.Elem, shape, res), nil
}

// sources calls at(out index, dst) for every element of shape (row-major)
// and collects the flat source index it returns (-1: none).
func sources(shape []int, at func(idx []int) int) []int {
	n := numel(shape)
	src := make([]int, n)
	idx := make([]int, len(shape))
	for o := 0; o < n; o++ {
		src[o] = at(idx)
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return src
}

// tile repeats t reps[d] times along each axis d (torch.Tensor.repeat,
// coreai_torch/_aten_to_core.py replace_tile/replace_repeat: reps has one
// entry per axis).
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func tile(t *Tensor, reps []int64, want []int) (*Tensor, error) {
	r := len(t.Shape)
	if len(reps) != r {
		return nil, fmt.Errorf("tile: %d repetitions for rank %d", len(reps), r)
	}
	shape := make([]int, r)
	for d, k := range reps {
		if k < 0 || k > math.MaxInt32 {
			return nil, fmt.Errorf("tile: repetition %d on axis %d", k, d)
		}
		shape[d] = t.Shape[d] * int(k)
	}
	if err := checkOut("tile", shape, want); err != nil {
		return nil, err
	}
	st := stridesOf(t.Shape)
	src := sources(shape, func(idx []int) int {
		i := 0
		for d, v := range idx {
			i += (v % t.Shape[d]) * st[d]
		}
		return i
	})
	return pickElems(t, shape, src, nil)
}

// reverse flips t along the given axes (torch.flip; negative axes count
// from the end; an axis named twice is flipped once, as torch refuses it).
func reverse(t *Tensor, axes []int64) (*Tensor, error) {
	r := len(t.Shape)
	flip := make([]bool, r)
	for _, a := range axes {
		d, err := normAxis(a, r)
		if err != nil {
			return nil, fmt.Errorf("reverse: %w", err)
		}
		flip[d] = true
	}
	st := stridesOf(t.Shape)
	src := sources(t.Shape, func(idx []int) int {
		i := 0
		for d, v := range idx {
			if flip[d] {
				v = t.Shape[d] - 1 - v
			}
			i += v * st[d]
		}
		return i
	})
	return pickElems(t, append([]int(nil), t.Shape...), src, nil)
}

// Pad modes coreai-torch emits: constant (torch.nn.functional.pad's
// constant_pad_nd), reflect (reflection_pad: the edge is not repeated) and
// replicate (replication_pad: the edge is repeated)
// (coreai_torch/_aten_to_core.py replace_constant_pad_nd, coreai_torch/_utils.py
// replace_pad_with_mode).
const (
	padConstant  = "constant"
	padReflect   = "reflect"
	padReplicate = "replicate"
)

// pad pads t by pads = [before_0, after_0, before_1, after_1, …] (Core AI's
// order: one pair per axis, axis 0 first). Constant mode fills with value's
// element (rounded to t's type); the other modes ignore value. Reflect needs
// each pad smaller than its axis, as torch does.
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func pad(t *Tensor, pads []int64, value *Tensor, mode string, want []int) (*Tensor, error) {
	r := len(t.Shape)
	if len(pads) != 2*r {
		return nil, fmt.Errorf("pad: %d padding entries for rank %d (want before/after per axis)", len(pads), r)
	}
	shape := make([]int, r)
	for d := 0; d < r; d++ {
		lo, hi := pads[2*d], pads[2*d+1]
		if lo < 0 || hi < 0 || lo > math.MaxInt32 || hi > math.MaxInt32 {
			return nil, fmt.Errorf("pad: padding %d, %d on axis %d", lo, hi, d)
		}
		n := t.Shape[d]
		switch mode {
		case padReflect:
			if int(lo) >= n || int(hi) >= n {
				return nil, fmt.Errorf("pad: reflect padding %d, %d on axis %d must be smaller than its size %d", lo, hi, d, n)
			}
		case padReplicate:
			if n == 0 && lo+hi > 0 {
				return nil, fmt.Errorf("pad: replicate padding of an empty axis %d", d)
			}
		case padConstant:
		default:
			return nil, fmt.Errorf("pad: mode %q is not one coreai-torch emits (constant, reflect, replicate)", mode)
		}
		shape[d] = n + int(lo) + int(hi)
	}
	if err := checkOut("pad", shape, want); err != nil {
		return nil, err
	}
	if mode == padConstant && value == nil {
		return nil, fmt.Errorf("pad: constant mode needs a value operand")
	}
	st := stridesOf(t.Shape)
	src := sources(shape, func(idx []int) int {
		i := 0
		for d, v := range idx {
			n := t.Shape[d]
			v -= int(pads[2*d])
			switch {
			case v >= 0 && v < n:
			case mode == padConstant:
				return -1
			case mode == padReplicate:
				v = min(max(v, 0), n-1)
			default: // reflect about the edge elements
				if v < 0 {
					v = -v
				} else {
					v = 2*(n-1) - v
				}
			}
			i += v * st[d]
		}
		return i
	})
	if mode != padConstant {
		value = nil
	}
	return pickElems(t, shape, src, value)
}

// broadcastInDims sets axis axes[i] of t to sizes[i] by broadcasting (t
// has size 1 there) and keeps the other axes: coreai-torch's lowering of
// Tensor.expand and copy (tests/ops/test_ops_ir.py TestExpandIR: a 1x3 input
// with sizes [4] at axes [0] gives 4x3).
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func broadcastInDims(t *Tensor, sizes, axes []int64, want []int) (*Tensor, error) {
	if len(sizes) != len(axes) {
		return nil, fmt.Errorf("broadcast_in_dims: %d sizes for %d axes", len(sizes), len(axes))
	}
	shape := append([]int(nil), t.Shape...)
	for i, a := range axes {
		d, err := normAxis(a, len(shape))
		if err != nil {
			return nil, fmt.Errorf("broadcast_in_dims: %w", err)
		}
		if sizes[i] < 0 || sizes[i] > math.MaxInt32 {
			return nil, fmt.Errorf("broadcast_in_dims: size %d", sizes[i])
		}
		shape[d] = int(sizes[i])
	}
	if err := checkOut("broadcast_in_dims", shape, want); err != nil {
		return nil, err
	}
	out, err := broadcastTo(t, shape)
	if err != nil {
		return nil, fmt.Errorf("broadcast_in_dims: %w", err)
	}
	return out, nil
}

// getShape is t's shape as a rank-1 tensor of out (ui32 in coreai-torch's
// IR).
func getShape(t *Tensor, out Elem) (*Tensor, error) {
	if out.IsFloat() {
		return nil, fmt.Errorf("get_shape: result type %s is not an integer", out)
	}
	res := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		res[i] = int64(d)
		if out.wrap(res[i]) != res[i] {
			return nil, fmt.Errorf("get_shape: dimension %d does not fit %s", d, out)
		}
	}
	return NewInt(out, []int{len(t.Shape)}, res), nil
}

// broadcastShapes is numpy's broadcast_shapes of two rank-1 shape tensors
// (coreai_torch/_utils.py computes index shapes with it at run time).
func broadcastShapes(a, b *Tensor, out Elem) (*Tensor, error) {
	if len(a.Shape) != 1 || len(b.Shape) != 1 || a.Elem.IsFloat() || b.Elem.IsFloat() || out.IsFloat() {
		return nil, fmt.Errorf("broadcast_shapes: operands %s, %s and result %s must be rank-1 integer shapes", a, b, out)
	}
	toInts := func(t *Tensor) ([]int, error) {
		s := make([]int, len(t.I))
		for i, v := range t.I {
			if v < 0 || v > math.MaxInt32 {
				return nil, fmt.Errorf("broadcast_shapes: dimension %d", v)
			}
			s[i] = int(v)
		}
		return s, nil
	}
	sa, err := toInts(a)
	if err != nil {
		return nil, err
	}
	sb, err := toInts(b)
	if err != nil {
		return nil, err
	}
	s, err := broadcastShape(sa, sb)
	if err != nil {
		return nil, fmt.Errorf("broadcast_shapes: %w", err)
	}
	res := make([]int64, len(s))
	for i, d := range s {
		res[i] = int64(d)
	}
	return NewInt(out, []int{len(s)}, res), nil
}

// rangeOf is torch.arange(start, end, step): ceil((end - start) / step)
// elements start + i·step. Integer operands compute exactly; float ones in
// float64, each element rounded once to out (torch computes in its
// accumulate type, double for float on the CPU).
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func rangeOf(start, end, step *Tensor, out Elem, want []int) (*Tensor, error) {
	for _, t := range []*Tensor{start, end, step} {
		if t.Len() != 1 {
			return nil, fmt.Errorf("range: operands must hold one element each, got %s", t)
		}
	}
	if !out.IsFloat() && !start.Elem.IsFloat() && !end.Elem.IsFloat() && !step.Elem.IsFloat() {
		s, e, k := start.I[0], end.I[0], step.I[0]
		if k == 0 {
			return nil, fmt.Errorf("range: step 0")
		}
		n := int64(0)
		if (k > 0 && e > s) || (k < 0 && e < s) {
			d := e - s
			n = d / k
			if d%k != 0 {
				n++
			}
		}
		if n > maxComputedElems {
			return nil, fmt.Errorf("range: %d elements (more than %d)", n, maxComputedElems)
		}
		if err := checkOut("range", []int{int(n)}, want); err != nil {
			return nil, err
		}
		res := make([]int64, n)
		for i := range res {
			res[i] = out.wrap(s + int64(i)*k)
		}
		return NewInt(out, []int{int(n)}, res), nil
	}
	s, e, k := start.Float64At(0), end.Float64At(0), step.Float64At(0)
	if k == 0 || k != k || s != s || e != e {
		return nil, fmt.Errorf("range: start %v, end %v, step %v", s, e, k)
	}
	nf := math.Ceil((e - s) / k)
	if nf < 0 || math.IsInf(nf, 0) || nf != nf {
		nf = 0
	}
	if nf > maxComputedElems {
		return nil, fmt.Errorf("range: %g elements (more than %d)", nf, maxComputedElems)
	}
	n := int(nf)
	if err := checkOut("range", []int{n}, want); err != nil {
		return nil, err
	}
	if out.IsFloat() {
		res := make([]float32, n)
		for i := range res {
			res[i] = out.round64(s + float64(i)*k)
		}
		return NewFloat(out, []int{n}, res), nil
	}
	res := make([]int64, n)
	for i := range res {
		res[i] = out.wrap(floatToInt(s+float64(i)*k, out))
	}
	return NewInt(out, []int{n}, res), nil
}

// declared is the op's static result shape, nil when its type is dynamic
// (the kernels hold what they compute to it before they allocate).
func declared(op *graph.Operation) []int {
	s, err := resultShape(op, 0)
	if err != nil {
		return nil
	}
	return s
}

// enumWord reads an enum attribute as its word: `mode = <reflect>` is read
// as #coreai.mode<reflect> (graph/mlirtext) and gives "reflect"; a string
// attribute gives its value; an absent one "".
func enumWord(op *graph.Operation, name string) string {
	a := op.Inherent(name)
	if a == nil {
		return ""
	}
	if s, ok := a.(*graph.StringAttr); ok {
		return s.Value
	}
	t := a.String()
	if i, j := strings.IndexByte(t, '<'), strings.LastIndexByte(t, '>'); i >= 0 && j > i {
		return strings.TrimSpace(t[i+1 : j])
	}
	return t
}

// flagOf reads a one-element i1 (or integer) setting operand.
func flagOf(t *Tensor, what string) (bool, error) {
	if t.Len() != 1 {
		return false, fmt.Errorf("%s operand %s must hold one element", what, t)
	}
	return t.Float64At(0) != 0, nil
}

// scalarInt reads a one-element integer setting operand (an axis).
func scalarInt(t *Tensor, what string) (int64, error) {
	v := t.Ints()
	if len(v) != 1 {
		return 0, fmt.Errorf("%s operand %s must hold one element", what, t)
	}
	return v[0], nil
}

// The layout rows' kernels (ops.go).

func tileOp(c opCall) (*Tensor, error) { // (x, reps)
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	return tile(c.ins[0], c.ins[1].Ints(), declared(c.op))
}

func reverseOp(c opCall) (*Tensor, error) { // (x, axes)
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	return reverse(c.ins[0], c.ins[1].Ints())
}

func padOp(c opCall) (*Tensor, error) { // (x, pads, value) mode = <constant|reflect|replicate>
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	mode := enumWord(c.op, "mode")
	if mode == "" {
		mode = padConstant // coreai-torch prints the mode even for constant
	}
	var v *Tensor
	if len(c.ins) > 2 {
		v = c.ins[2]
	}
	return pad(c.ins[0], c.ins[1].Ints(), v, mode, declared(c.op))
}

func broadcastInDimsOp(c opCall) (*Tensor, error) { // (x, sizes, axes)
	if err := need(c.ins, 3); err != nil {
		return nil, err
	}
	return broadcastInDims(c.ins[0], c.ins[1].Ints(), c.ins[2].Ints(), declared(c.op))
}

func getShapeOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 1); err != nil {
		return nil, err
	}
	return getShape(c.ins[0], c.el)
}

func broadcastShapesOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	return broadcastShapes(c.ins[0], c.ins[1], c.el)
}

func rangeOp(c opCall) (*Tensor, error) { // (start, end, step)
	if err := need(c.ins, 3); err != nil {
		return nil, err
	}
	return rangeOf(c.ins[0], c.ins[1], c.ins[2], c.el, declared(c.op))
}
