package interp

import (
	"fmt"
	"math"
	"sort"
)

// Ops that select elements by index or by value: gather_along_axis,
// scatter_along_axis, argmax, sort, argsort, any, non_zero, and scan (a
// running reduction). Each follows the torch op coreai-torch lowers to it
// (coreai_torch/_aten_to_core.py), with the operand layout its tests print
// (tests/ops/test_ops_ir.py).

// axisLoop describes the elements of a shape along one axis: outer rows
// before it, n positions on it, inner elements after it.
type axisLoop struct{ outer, n, inner int }

func loopOf(shape []int, ax int) axisLoop {
	return axisLoop{outer: numel(shape[:ax]), n: shape[ax], inner: numel(shape[ax+1:])}
}

// at is the flat index of (outer row o, position k, inner element i).
func (l axisLoop) at(o, k, i int) int { return (o*l.n+k)*l.inner + i }

// alongIndex checks index v (negative counts from the end once, as the
// interpreter's gather does) against an axis of size n.
func alongIndex(what string, v int64, n, ax int) (int, error) {
	if v < 0 {
		v += int64(n)
	}
	if v < 0 || v >= int64(n) {
		return 0, fmt.Errorf("%s: index %d out of range [0, %d) on axis %d", what, v, n, ax)
	}
	return int(v), nil
}

// indexedAlong maps every element of idx (a tensor of t's rank whose axes
// other than ax are no longer than t's) to the flat index of t it names:
// t[i_0, …, idx[i], …, i_{r-1}] (torch.gather's addressing).
func indexedAlong(what string, t, idx *Tensor, axis int64) ([]int, error) {
	r := len(t.Shape)
	ax, err := normAxis(axis, r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(idx.Shape) != r || idx.Elem.IsFloat() {
		return nil, fmt.Errorf("%s: indices %s must be integers of the data's rank %d", what, idx, r)
	}
	for d := range idx.Shape {
		if d != ax && idx.Shape[d] > t.Shape[d] {
			return nil, fmt.Errorf("%s: indices %v exceed data %v on axis %d", what, idx.Shape, t.Shape, d)
		}
	}
	st := stridesOf(t.Shape)
	var ferr error
	k := 0
	src := sources(idx.Shape, func(p []int) int {
		v, err := alongIndex(what, idx.I[k], t.Shape[ax], ax)
		k++
		if err != nil && ferr == nil {
			ferr = err
		}
		i := 0
		for d, c := range p {
			if d == ax {
				c = v
			}
			i += c * st[d]
		}
		return i
	})
	return src, ferr
}

// gatherAlongAxis is torch.gather (numpy take_along_axis): out has the
// indices' shape, out[…, i, …] = t[…, indices[…, i, …], …] along axis.
func gatherAlongAxis(t, indices *Tensor, axis int64) (*Tensor, error) {
	src, err := indexedAlong("gather_along_axis", t, indices, axis)
	if err != nil {
		return nil, err
	}
	return pickElems(t, append([]int(nil), indices.Shape...), src, nil)
}

// Scatter modes: coreai-torch writes no scatter_mode for torch.scatter's
// src and value forms, <add> and <mul> for its reduce forms
// (coreai_torch/_aten_to_core.py replace_scatter).
const (
	scatterUpdate = "update"
	scatterAdd    = "add"
	scatterMul    = "mul"
)

// scatterAlongAxis is torch.scatter (and scatter_reduce's add and multiply):
// a copy of t where the element indices names along axis is replaced by,
// added to or multiplied by the update at the same position. Updates are
// applied in row-major order of the indices, each result rounded to out;
// when two indices name one element the last update wins (torch leaves that
// order undefined: anefix's choice). updates may be larger than indices on
// every axis (torch reads the part indices covers).
func scatterAlongAxis(t, indices, updates *Tensor, axis int64, mode string, out Elem) (*Tensor, error) {
	dst, err := indexedAlong("scatter_along_axis", t, indices, axis)
	if err != nil {
		return nil, err
	}
	if len(updates.Shape) != len(indices.Shape) || updates.Elem.IsFloat() != t.Elem.IsFloat() {
		return nil, fmt.Errorf("scatter_along_axis: updates %s do not match indices %s and data %s", updates, indices, t)
	}
	for d := range indices.Shape {
		if updates.Shape[d] < indices.Shape[d] {
			return nil, fmt.Errorf("scatter_along_axis: updates %v smaller than indices %v on axis %d", updates.Shape, indices.Shape, d)
		}
	}
	ust := stridesOf(updates.Shape)
	src := sources(indices.Shape, func(p []int) int {
		i := 0
		for d, c := range p {
			i += c * ust[d]
		}
		return i
	})
	switch mode {
	case scatterUpdate, scatterAdd, scatterMul:
	default:
		return nil, fmt.Errorf("scatter_along_axis: scatter_mode %q is not one coreai-torch emits (none, add, mul)", mode)
	}
	c := t.Clone()
	c.Elem = out
	if out.IsFloat() {
		u := updates.Floats()
		for k, o := range dst {
			v := u[src[k]]
			switch mode {
			case scatterAdd:
				v += c.F[o]
			case scatterMul:
				v *= c.F[o]
			}
			c.F[o] = out.round(v)
		}
		return c, nil
	}
	for k, o := range dst {
		v := updates.I[src[k]]
		switch mode {
		case scatterAdd:
			v += c.I[o]
		case scatterMul:
			v *= c.I[o]
		}
		c.I[o] = out.wrap(v)
	}
	return c, nil
}

// less orders two elements as torch.sort does: NaN after every number (so
// first when descending), -0 equal to +0.
func lessF(a, b float32) bool {
	if b != b {
		return a == a
	}
	return a < b
}

// order returns, for every row along axis, the positions of its elements
// in sorted order: stable (equal elements keep their order), ascending or,
// with descending, largest first. torch.sort is stable only when asked;
// anefix always sorts stably (its choice: ties then come out as torch's
// stable=True gives them). coreai-torch only emits sort and argsort from
// topk with sorted=true; an unsorted request is sorted all the same (any
// order is allowed then).
func order(t *Tensor, ax int, descending bool) []int {
	l := loopOf(t.Shape, ax)
	perm := make([]int, t.Len())
	row := make([]int, l.n)
	var f []float32
	if t.Elem.IsFloat() {
		f = t.Floats()
	}
	for o := 0; o < l.outer; o++ {
		for i := 0; i < l.inner; i++ {
			for k := range row {
				row[k] = l.at(o, k, i)
			}
			sort.SliceStable(row, func(x, y int) bool {
				a, b := row[x], row[y]
				if f != nil {
					if descending {
						return lessF(f[b], f[a])
					}
					return lessF(f[a], f[b])
				}
				if descending {
					return t.I[a] > t.I[b]
				}
				return t.I[a] < t.I[b]
			})
			for k, src := range row {
				perm[l.at(o, k, i)] = src
			}
		}
	}
	return perm
}

// sortAxis sorts t along axis (see order).
func sortAxis(t *Tensor, axis int64, descending bool) (*Tensor, error) {
	ax, err := normAxis(axis, len(t.Shape))
	if err != nil {
		return nil, fmt.Errorf("sort: %w", err)
	}
	return pickElems(t, append([]int(nil), t.Shape...), order(t, ax, descending), nil)
}

// argSort gives the positions along axis that sortAxis puts in each place, as
// out (si32 in coreai-torch's IR).
func argSort(t *Tensor, axis int64, descending bool, out Elem) (*Tensor, error) {
	ax, err := normAxis(axis, len(t.Shape))
	if err != nil {
		return nil, fmt.Errorf("argsort: %w", err)
	}
	if out.IsFloat() {
		return nil, fmt.Errorf("argsort: result type %s is not an integer", out)
	}
	perm := order(t, ax, descending)
	l := loopOf(t.Shape, ax)
	res := make([]int64, len(perm))
	for p, src := range perm {
		res[p] = out.wrap(int64((src / l.inner) % max(l.n, 1)))
	}
	return NewInt(out, append([]int(nil), t.Shape...), res), nil
}

// argMax is the position of the largest element along axis, the axis kept
// with size 1 (coreai-torch's IR: tensor<2x5xf32> → tensor<2x1xui32>): the
// first of equal maxima and the first NaN, as torch.argmax (NaN counts as
// the largest); booleans count as 0 and 1. An empty axis has no maximum.
func argMax(t *Tensor, axis int64, out Elem) (*Tensor, error) {
	ax, err := normAxis(axis, len(t.Shape))
	if err != nil {
		return nil, fmt.Errorf("argmax: %w", err)
	}
	if out.IsFloat() {
		return nil, fmt.Errorf("argmax: result type %s is not an integer", out)
	}
	l := loopOf(t.Shape, ax)
	if l.n == 0 && l.outer*l.inner > 0 {
		return nil, fmt.Errorf("argmax: axis %d of %v is empty", ax, t.Shape)
	}
	shape := append([]int(nil), t.Shape...)
	shape[ax] = 1
	res := make([]int64, l.outer*l.inner)
	var f []float32
	if t.Elem.IsFloat() {
		f = t.Floats()
	}
	for o := 0; o < l.outer; o++ {
		for i := 0; i < l.inner; i++ {
			best := 0
			for k := 1; k < l.n; k++ {
				a, b := l.at(o, k, i), l.at(o, best, i)
				if f != nil {
					if f[b] != f[b] {
						break // a NaN is the maximum; the first one wins
					}
					if f[a] > f[b] || f[a] != f[a] {
						best = k
					}
				} else if t.I[a] > t.I[b] {
					best = k
				}
			}
			res[o*l.inner+i] = out.wrap(int64(best))
		}
	}
	return NewInt(out, shape, res), nil
}

// anyAxes is true where some element over axes is nonzero (torch.any; the axes
// kept with size 1, as coreai-torch's IR prints it: tensor<2x3xi1> over
// [1] → tensor<2x1xi1>); false over an empty set.
func anyAxes(t *Tensor, axes []int64) (*Tensor, error) {
	r := len(t.Shape)
	red := make([]bool, r)
	for _, a := range axes {
		d, err := normAxis(a, r)
		if err != nil {
			return nil, fmt.Errorf("any: %w", err)
		}
		red[d] = true
	}
	kshape := make([]int, r)
	for d, n := range t.Shape {
		kshape[d] = n
		if red[d] {
			kshape[d] = 1
		}
	}
	res := make([]int64, numel(kshape))
	var f []float32
	if t.Elem.IsFloat() {
		f = t.Floats()
	}
	ost := bstrides(kshape, t.Shape)
	k := 0
	sources(t.Shape, func(p []int) int {
		o := 0
		for d, c := range p {
			o += c * ost[d]
		}
		if f != nil && f[k] != 0 || f == nil && t.I[k] != 0 {
			res[o] = 1
		}
		k++
		return 0
	})
	return NewInt(Bool, kshape, res), nil
}

// nonZero lists the coordinates of t's nonzero elements in row-major order,
// one row of rank integers each (torch.nonzero), as out (si32). NaN is
// nonzero.
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func nonZero(t *Tensor, out Elem, want []int) (*Tensor, error) {
	if out.IsFloat() {
		return nil, fmt.Errorf("non_zero: result type %s is not an integer", out)
	}
	r := len(t.Shape)
	var f []float32
	if t.Elem.IsFloat() {
		f = t.Floats()
	}
	count := 0
	for i := 0; i < t.Len(); i++ {
		if f != nil && f[i] != 0 || f == nil && t.I[i] != 0 {
			count++
		}
	}
	shape := []int{count, r}
	if err := checkOut("non_zero", shape, want); err != nil {
		return nil, err
	}
	res := make([]int64, 0, count*r)
	k := 0
	sources(t.Shape, func(p []int) int {
		if f != nil && f[k] != 0 || f == nil && t.I[k] != 0 {
			for _, c := range p {
				res = append(res, out.wrap(int64(c)))
			}
		}
		k++
		return 0
	})
	return NewInt(out, shape, res), nil
}

// Scan combiners coreai-torch emits: sum (cumsum and masked_scatter's
// running index, coreai_torch/_aten_to_core.py replace_cumsum,
// replace_masked_scatter).
const scanSum = "sum"

// scan is the running combination of t along axis (inclusive: element k
// combines positions 0…k, torch.cumsum). Float sums accumulate in float32 in
// index order, as reduce does (acc16 rounds the running sum to half after
// each addition), and each element is rounded to out. coreai-torch always
// passes false as scan's i1 operand; what true means (a reverse or an
// exclusive scan) is not public, so the interpreter refuses it.
func scan(t *Tensor, axis int64, flag bool, combiner string, out Elem, acc16 bool) (*Tensor, error) {
	if combiner != scanSum {
		return nil, fmt.Errorf("scan: combiner %q is not one coreai-torch emits (sum)", combiner)
	}
	if flag {
		return nil, fmt.Errorf("scan: its flag operand is true; coreai-torch always passes false, and what true means (reverse or exclusive) is not public")
	}
	ax, err := normAxis(axis, len(t.Shape))
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	if t.Elem.IsFloat() != out.IsFloat() {
		return nil, fmt.Errorf("scan: data %s with result %s", t, out)
	}
	l := loopOf(t.Shape, ax)
	shape := append([]int(nil), t.Shape...)
	if out.IsFloat() {
		src := t.Floats()
		res := make([]float32, len(src))
		for o := 0; o < l.outer; o++ {
			for i := 0; i < l.inner; i++ {
				acc := float32(math.Copysign(0, -1)) // as reduce: -0 + x == x
				for k := 0; k < l.n; k++ {
					p := l.at(o, k, i)
					acc += src[p]
					if acc16 {
						acc = F16.round(acc)
					}
					res[p] = out.round(acc)
				}
			}
		}
		return NewFloat(out, shape, res), nil
	}
	res := make([]int64, t.Len())
	for o := 0; o < l.outer; o++ {
		for i := 0; i < l.inner; i++ {
			var acc int64
			for k := 0; k < l.n; k++ {
				p := l.at(o, k, i)
				acc += t.I[p]
				res[p] = out.wrap(acc)
			}
		}
	}
	return NewInt(out, shape, res), nil
}

// The selection rows' kernels (ops.go).

func gatherAlongAxisOp(c opCall) (*Tensor, error) { // x at indices along axis
	if err := need(c.ins, 3); err != nil {
		return nil, err
	}
	axis, err := scalarInt(c.ins[2], "axis")
	if err != nil {
		return nil, err
	}
	return gatherAlongAxis(c.ins[0], c.ins[1], axis)
}

func scatterAlongAxisOp(c opCall) (*Tensor, error) { // (x, indices, updates, axis) scatter_mode = <add|mul>
	if err := need(c.ins, 4); err != nil {
		return nil, err
	}
	axis, err := scalarInt(c.ins[3], "axis")
	if err != nil {
		return nil, err
	}
	mode := enumWord(c.op, "scatter_mode")
	if mode == "" {
		mode = scatterUpdate
	}
	return scatterAlongAxis(c.ins[0], c.ins[1], c.ins[2], axis, mode, c.el)
}

func argmaxOp(c opCall) (*Tensor, error) { // (x, axis)
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	axis, err := scalarInt(c.ins[1], "axis")
	if err != nil {
		return nil, err
	}
	return argMax(c.ins[0], axis, c.el)
}

// sortOp runs sort and argsort: (x, axis, descending, sorted).
func sortOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 3); err != nil {
		return nil, err
	}
	axis, err := scalarInt(c.ins[1], "axis")
	if err != nil {
		return nil, err
	}
	desc, err := flagOf(c.ins[2], "descending")
	if err != nil {
		return nil, err
	}
	if c.k == "sort" {
		return sortAxis(c.ins[0], axis, desc)
	}
	return argSort(c.ins[0], axis, desc, c.el)
}

func anyOp(c opCall) (*Tensor, error) { // (x, axes)
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	return anyAxes(c.ins[0], c.ins[1].Ints())
}

func nonZeroOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 1); err != nil {
		return nil, err
	}
	want := declared(c.op)
	if want == nil {
		// Its row count depends on the values, which a rewrite's
		// rounding can change: verify compares only outputs both
		// sides declare alike.
		return nil, fmt.Errorf("result type %s is not a static tensor: non_zero's row count depends on the data; the interpreter runs it only when the graph declares the count", c.op.Result(0).Type())
	}
	return nonZero(c.ins[0], c.el, want)
}

func scanOp(c opCall) (*Tensor, error) { // (x, axis, flag) combiner = <sum>
	if err := need(c.ins, 3); err != nil {
		return nil, err
	}
	axis, err := scalarInt(c.ins[1], "axis")
	if err != nil {
		return nil, err
	}
	flag, err := flagOf(c.ins[2], "flag")
	if err != nil {
		return nil, err
	}
	return scan(c.ins[0], axis, flag, enumWord(c.op, "combiner"), c.el, c.acc16)
}
