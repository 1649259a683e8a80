package interp

import (
	"fmt"
	"slices"
)

// Reshape returns t with a new shape (same element count). Data is shared
// (tensors are never mutated in place).
func Reshape(t *Tensor, shape []int) (*Tensor, error) {
	if numel(shape) != t.Len() {
		return nil, fmt.Errorf("reshape %v to %v: element counts differ", t.Shape, shape)
	}
	if t.rawT {
		t.Floats()
	}
	c := *t
	c.Shape = append([]int(nil), shape...)
	return &c, nil
}

// transpose permutes axes: out.shape[i] = in.shape[perm[i]].
func transpose(t *Tensor, perm []int64) (*Tensor, error) {
	r := len(t.Shape)
	if len(perm) != r {
		return nil, fmt.Errorf("transpose: permutation %v for rank %d", perm, r)
	}
	if r == 2 && t.F == nil && t.raw != nil && len(perm) == 2 && perm[0] == 1 && perm[1] == 0 {
		c := *t
		c.Shape = []int{t.Shape[1], t.Shape[0]}
		c.rawT = !t.rawT
		return &c, nil
	}
	seen := make([]bool, r)
	p := make([]int, r)
	oshape := make([]int, r)
	for i, v := range perm {
		a, err := normAxis(v, r)
		if err != nil || seen[a] {
			return nil, fmt.Errorf("transpose: %v is not a permutation of rank %d", perm, r)
		}
		seen[a] = true
		p[i] = a
		oshape[i] = t.Shape[a]
	}
	ist := stridesOf(t.Shape)
	// Input strides in output axis order.
	st := make([]int, r)
	for i := range p {
		st[i] = ist[p[i]]
	}
	if t.Elem.IsFloat() {
		src := t.Floats()
		res := make([]float32, t.Len())
		stridedRows(oshape, st, 0, func(o, i, n, step int) {
			row := res[o : o+n]
			if step == 1 {
				copy(row, src[i:i+n])
				return
			}
			for k := range row {
				row[k] = src[i+k*step]
			}
		})
		return NewFloat(t.Elem, oshape, res), nil
	}
	res := make([]int64, t.Len())
	stridedRows(oshape, st, 0, func(o, i, n, step int) {
		for k := range n {
			res[o+k] = t.I[i+k*step]
		}
	})
	return NewInt(t.Elem, oshape, res), nil
}

// concat joins tensors along axis.
func concat(ts []*Tensor, axis int64) (*Tensor, error) {
	if len(ts) == 0 {
		return nil, fmt.Errorf("concat of nothing")
	}
	r := len(ts[0].Shape)
	ax, err := normAxis(axis, r)
	if err != nil {
		return nil, fmt.Errorf("concat: %w", err)
	}
	oshape := append([]int(nil), ts[0].Shape...)
	oshape[ax] = 0
	for _, t := range ts {
		if len(t.Shape) != r || t.Elem.IsFloat() != ts[0].Elem.IsFloat() {
			return nil, fmt.Errorf("concat: operands %v do not match", shapesOf(ts))
		}
		for d := range t.Shape {
			if d != ax && t.Shape[d] != ts[0].Shape[d] {
				return nil, fmt.Errorf("concat along %d: operands %v do not match", ax, shapesOf(ts))
			}
		}
		oshape[ax] += t.Shape[ax]
	}
	outer := numel(oshape[:ax])
	inner := numel(oshape[ax+1:])
	el := ts[0].Elem
	if el.IsFloat() {
		res := make([]float32, 0, numel(oshape))
		for o := 0; o < outer; o++ {
			for _, t := range ts {
				blk := t.Shape[ax] * inner
				res = append(res, t.Floats()[o*blk:(o+1)*blk]...)
			}
		}
		return NewFloat(el, oshape, res), nil
	}
	res := make([]int64, 0, numel(oshape))
	for o := 0; o < outer; o++ {
		for _, t := range ts {
			blk := t.Shape[ax] * inner
			res = append(res, t.I[o*blk:(o+1)*blk]...)
		}
	}
	return NewInt(el, oshape, res), nil
}

func shapesOf(ts []*Tensor) [][]int {
	out := make([][]int, len(ts))
	for i, t := range ts {
		out[i] = t.Shape
	}
	return out
}

// region visits the elements of the box begin + i*stride (i < size) of a
// tensor with shape dims, calling fn(flat index in the box, flat index in the
// tensor).
func region(dims, begin, stride, size []int, fn func(o, i int)) error {
	return regionRows(dims, begin, stride, size, func(o, i, n, step int) {
		for t := range n {
			fn(o+t, i+t*step)
		}
	})
}

// checkRegion validates a box for region and regionRows (rows.go); an
// empty box is valid wherever it starts.
func checkRegion(dims, begin, stride, size []int) error {
	r := len(dims)
	if len(begin) != r || len(size) != r || len(stride) != r {
		return fmt.Errorf("slice bounds of rank %d/%d/%d for rank %d", len(begin), len(size), len(stride), r)
	}
	for d := 0; d < r; d++ {
		if size[d] == 0 {
			return nil
		}
		last := begin[d] + (size[d]-1)*stride[d]
		if begin[d] < 0 || begin[d] >= dims[d] || last < 0 || last >= dims[d] {
			return fmt.Errorf("slice on axis %d (begin %d, %d elements, stride %d) is out of bounds for size %d", d, begin[d], size[d], stride[d], dims[d])
		}
	}
	return nil
}

// slice extracts the box begin + i*stride, i < size. Negative begins count
// from the end.
func slice(t *Tensor, begin, stride []int64, size []int) (*Tensor, error) {
	b, s, err := boxArgs(t.Shape, begin, stride)
	if err != nil {
		return nil, err
	}
	if t.Elem.IsFloat() {
		src := t.Floats()
		res := make([]float32, numel(size))
		if err := regionRows(t.Shape, b, s, size, func(o, i, n, step int) {
			if step == 1 {
				copy(res[o:o+n], src[i:i+n])
				return
			}
			for k := range res[o : o+n] {
				res[o+k] = src[i+k*step]
			}
		}); err != nil {
			return nil, fmt.Errorf("slice: %w", err)
		}
		return NewFloat(t.Elem, append([]int(nil), size...), res), nil
	}
	res := make([]int64, numel(size))
	if err := region(t.Shape, b, s, size, func(o, i int) { res[o] = t.I[i] }); err != nil {
		return nil, fmt.Errorf("slice: %w", err)
	}
	return NewInt(t.Elem, append([]int(nil), size...), res), nil
}

func boxArgs(dims []int, begin, stride []int64) ([]int, []int, error) {
	r := len(dims)
	if len(begin) != r {
		return nil, nil, fmt.Errorf("slice: %d begin indices for rank %d", len(begin), r)
	}
	b := make([]int, r)
	s := make([]int, r)
	for d := range b {
		b[d] = int(begin[d])
		if b[d] < 0 {
			b[d] += dims[d]
		}
		s[d] = 1
		if stride != nil {
			if len(stride) != r || stride[d] == 0 {
				return nil, nil, fmt.Errorf("slice: bad strides %v for rank %d", stride, r)
			}
			s[d] = int(stride[d])
		}
	}
	return b, s, nil
}

// sliceUpdate returns a copy of t with the box at begin (stride) replaced
// by update.
func sliceUpdate(t, update *Tensor, begin, stride []int64, out Elem) (*Tensor, error) {
	c := t.Clone()
	c.Elem = out
	return sliceUpdateInto(c, update, begin, stride)
}

// sliceUpdateInto writes update into t's own buffer (t must be exclusively
// owned by the caller) and returns t.
func sliceUpdateInto(t, update *Tensor, begin, stride []int64) (*Tensor, error) {
	b, s, err := boxArgs(t.Shape, begin, stride)
	if err != nil {
		return nil, err
	}
	size := update.Shape
	if len(size) != len(t.Shape) {
		if numel(size) == 0 {
			return t, nil
		}
		return nil, fmt.Errorf("slice_update: update %v has another rank than %v", update.Shape, t.Shape)
	}
	out := t.Elem
	if out.IsFloat() {
		u := update.Floats()
		dst := t.Floats()
		err = regionRows(t.Shape, b, s, size, func(o, i, n, step int) {
			if step == 1 {
				d := dst[i : i+n]
				copy(d, u[o:o+n])
				roundInPlace(out, d)
				return
			}
			for k, v := range u[o : o+n] {
				dst[i+k*step] = out.round(v)
			}
		})
	} else {
		err = region(t.Shape, b, s, size, func(o, i int) { t.I[i] = out.wrap(update.I[o]) })
	}
	if err != nil {
		return nil, fmt.Errorf("slice_update: %w", err)
	}
	return t, nil
}

// gather takes slices of t along axis at indices (negative wrap once):
// out.shape = t.shape[:axis] + indices.shape + t.shape[axis+1:]. A raw
// weight table is read in place; only the selected rows are widened.
func gather(t, indices *Tensor, axis int64) (*Tensor, error) {
	ax, err := normAxis(axis, len(t.Shape))
	if err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	idx := indices.Ints()
	n := t.Shape[ax]
	outer := numel(t.Shape[:ax])
	inner := numel(t.Shape[ax+1:])
	oshape := append(append(append([]int(nil), t.Shape[:ax]...), indices.Shape...), t.Shape[ax+1:]...)
	norm := make([]int, len(idx))
	for k, v := range idx {
		if v < 0 {
			v += int64(n)
		}
		if v < 0 || v >= int64(n) {
			return nil, fmt.Errorf("gather: index %d out of range [0, %d) on axis %d", idx[k], n, ax)
		}
		norm[k] = int(v)
	}
	if t.Elem.IsFloat() {
		m := viewOf(t)
		res := make([]float32, numel(oshape))
		p := 0
		for o := 0; o < outer; o++ {
			for _, v := range norm {
				m.load(res[p:p+inner], (o*n+v)*inner, inner, 1)
				if m.h == nil {
					copy(res[p:p+inner], m.f[(o*n+v)*inner:(o*n+v+1)*inner])
				}
				p += inner
			}
		}
		return NewFloat(t.Elem, oshape, res), nil
	}
	res := make([]int64, 0, numel(oshape))
	for o := 0; o < outer; o++ {
		for _, v := range norm {
			res = append(res, t.I[(o*n+v)*inner:(o*n+v+1)*inner]...)
		}
	}
	return NewInt(t.Elem, oshape, res), nil
}

// gatherND indexes t with the last axis of indices (depth ≤ rank):
// out.shape = indices.shape[:-1] + t.shape[depth:].
func gatherND(t, indices *Tensor) (*Tensor, error) {
	if len(indices.Shape) == 0 {
		return nil, fmt.Errorf("gather_nd: scalar indices")
	}
	depth := indices.Shape[len(indices.Shape)-1]
	if depth > len(t.Shape) {
		return nil, fmt.Errorf("gather_nd: index depth %d exceeds rank %d", depth, len(t.Shape))
	}
	inner := numel(t.Shape[depth:])
	st := stridesOf(t.Shape)
	idx := indices.Ints()
	nIdx := len(idx) / max(depth, 1)
	if depth == 0 {
		nIdx = numel(indices.Shape[:len(indices.Shape)-1])
	}
	oshape := append(append([]int(nil), indices.Shape[:len(indices.Shape)-1]...), t.Shape[depth:]...)
	offs := make([]int, nIdx)
	for k := 0; k < nIdx; k++ {
		off, err := ndOffset("gather_nd", t.Shape, st, idx[k*depth:(k+1)*depth])
		if err != nil {
			return nil, err
		}
		offs[k] = off
	}
	if t.Elem.IsFloat() {
		m := viewOf(t)
		res := make([]float32, numel(oshape))
		for k, off := range offs {
			dst := res[k*inner : (k+1)*inner]
			copy(dst, m.load(dst, off, inner, 1))
		}
		return NewFloat(t.Elem, oshape, res), nil
	}
	res := make([]int64, 0, numel(oshape))
	for _, off := range offs {
		res = append(res, t.I[off:off+inner]...)
	}
	return NewInt(t.Elem, oshape, res), nil
}

// ndOffset is the flat offset (strides st) of the slice one index row of
// gather_nd or scatter_nd names: negative indices count from the end of
// their axis, and an index outside it is an error naming op.
func ndOffset(op string, shape, st []int, row []int64) (int, error) {
	off := 0
	for d, i := range row {
		v := int(i)
		if v < 0 {
			v += shape[d]
		}
		if v < 0 || v >= shape[d] {
			return 0, fmt.Errorf("%s: index %d out of range on axis %d (size %d)", op, i, d, shape[d])
		}
		off += v * st[d]
	}
	return off, nil
}

// scatterND returns a copy of t where each index row of indices (depth on
// the last axis) is replaced by the matching slice of updates (add=false)
// or accumulated into it (add=true).
func scatterND(t, indices, updates *Tensor, out Elem, add bool) (*Tensor, error) {
	if len(indices.Shape) == 0 {
		return nil, fmt.Errorf("scatter_nd: scalar indices")
	}
	depth := indices.Shape[len(indices.Shape)-1]
	if depth == 0 || depth > len(t.Shape) {
		return nil, fmt.Errorf("scatter_nd: index depth %d for rank %d", depth, len(t.Shape))
	}
	inner := numel(t.Shape[depth:])
	st := stridesOf(t.Shape)
	idx := indices.Ints()
	nIdx := len(idx) / depth
	if updates.Len() != nIdx*inner {
		return nil, fmt.Errorf("scatter_nd: updates %v do not match %d slices of %d", updates.Shape, nIdx, inner)
	}
	c := t.Clone()
	c.Elem = out
	for k := 0; k < nIdx; k++ {
		off, err := ndOffset("scatter_nd", t.Shape, st, idx[k*depth:(k+1)*depth])
		if err != nil {
			return nil, err
		}
		if out.IsFloat() {
			u := updates.Floats()[k*inner : (k+1)*inner]
			for i, v := range u {
				if add {
					v += c.F[off+i]
				}
				c.F[off+i] = out.round(v)
			}
		} else {
			for i := 0; i < inner; i++ {
				v := updates.I[k*inner+i]
				if add {
					v += c.I[off+i]
				}
				c.I[off+i] = out.wrap(v)
			}
		}
	}
	return c, nil
}

// broadcastTo expands t to shape by numpy broadcasting.
func broadcastTo(t *Tensor, shape []int) (*Tensor, error) {
	s, err := broadcastShape(t.Shape, shape)
	if err != nil || !slices.Equal(s, shape) {
		return nil, fmt.Errorf("cannot broadcast %v to %v", t.Shape, shape)
	}
	if t.Elem.IsFloat() {
		src := t.Floats()
		res := make([]float32, numel(shape))
		forEachBroadcast(shape, [][]int{t.Shape}, func(o int, idx []int) { res[o] = src[idx[0]] })
		return NewFloat(t.Elem, append([]int(nil), shape...), res), nil
	}
	res := make([]int64, numel(shape))
	forEachBroadcast(shape, [][]int{t.Shape}, func(o int, idx []int) { res[o] = t.I[idx[0]] })
	return NewInt(t.Elem, append([]int(nil), shape...), res), nil
}

// splitAxis cuts t along axis into pieces of the given sizes.
func splitAxis(t *Tensor, sizes []int64, axis int64) ([]*Tensor, error) {
	ax, err := normAxis(axis, len(t.Shape))
	if err != nil {
		return nil, fmt.Errorf("split: %w", err)
	}
	total := int64(0)
	for _, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("split: negative size in %v", sizes)
		}
		total += s
	}
	if total != int64(t.Shape[ax]) {
		return nil, fmt.Errorf("split: sizes %v do not add up to axis %d of %v", sizes, ax, t.Shape)
	}
	out := make([]*Tensor, len(sizes))
	begin := make([]int64, len(t.Shape))
	for i, s := range sizes {
		size := append([]int(nil), t.Shape...)
		size[ax] = int(s)
		if out[i], err = slice(t, begin, nil, size); err != nil {
			return nil, err
		}
		begin[ax] += s
	}
	return out, nil
}

// The shape rows' kernels (ops.go): each reads its parameters from the
// op's operands or attributes and runs the kernel above.

func reshapeOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 1); err != nil {
		return nil, err
	}
	shape, err := resultShape(c.op, 0)
	if err != nil {
		return nil, err
	}
	return Reshape(c.ins[0], shape)
}

func transposeOp(c opCall) (*Tensor, error) {
	perm, ok := intArg(c.op, c.ins, 1, "perm")
	if !ok {
		return nil, fmt.Errorf("no permutation (operand 1 or attribute perm)")
	}
	return transpose(c.ins[0], perm)
}

func concatOp(c opCall) (*Tensor, error) {
	ts, axis, err := concatArgs(c.op, c.ins)
	if err != nil {
		return nil, err
	}
	return concat(ts, axis)
}

func splitOp(c opCall) ([]*Tensor, error) {
	if err := need(c.ins, 1); err != nil {
		return nil, err
	}
	sizes, ok := intArg(c.op, c.ins, 1, "split_sizes")
	axis, ok2 := intArg(c.op, c.ins, 2, "axis")
	if !ok || !ok2 || len(axis) != 1 {
		return nil, fmt.Errorf("split needs sizes and an axis")
	}
	return splitAxis(c.ins[0], sizes, axis[0])
}

func sliceOp(c opCall) (*Tensor, error) {
	begin, ok := intArg(c.op, c.ins, 1, "begin")
	if !ok {
		return nil, fmt.Errorf("no begin indices")
	}
	stride, _ := intArg(c.op, c.ins, 3, "stride")
	if stride == nil {
		stride, _ = intArg(c.op, nil, -1, "strides")
	}
	shape, err := resultShape(c.op, 0)
	if err != nil {
		return nil, err
	}
	return slice(c.ins[0], begin, stride, shape)
}

func sliceUpdateOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 3); err != nil {
		return nil, err
	}
	stride, _ := intArg(c.op, c.ins, 4, "stride")
	return sliceUpdate(c.ins[0], c.ins[1], c.ins[2].Ints(), stride, c.el)
}

func gatherOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	axis := int64(0)
	if a, ok := intArg(c.op, c.ins, 2, "axis"); ok && len(a) > 0 {
		axis = a[0]
	}
	return gather(c.ins[0], c.ins[1], axis)
}

func gatherNDOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	return gatherND(c.ins[0], c.ins[1])
}

// scatterNDOp: coreai-torch prints `scatter_nd %x with %updates at
// %indices`: operands (x, updates, indices), and a combiner block.
func scatterNDOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 3); err != nil {
		return nil, err
	}
	add, err := scatterCombiner(c.op)
	if err != nil {
		return nil, err
	}
	return scatterND(c.ins[0], c.ins[2], c.ins[1], c.el, add)
}

func broadcastToOp(c opCall) (*Tensor, error) {
	shape, err := resultShape(c.op, 0)
	if err != nil {
		return nil, err
	}
	return broadcastTo(c.ins[0], shape)
}
