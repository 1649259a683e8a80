package interp

import (
	"fmt"
	"math"
)

// reduce reduces over axes (keepDims keeps them as 1). Float sums and
// products accumulate in float32 sequentially in row-major order of the
// reduced elements (acc16 rounds the running value to half after each step);
// the result is rounded to out.
func reduce(op string, a *Tensor, axes []int64, keepDims bool, out Elem, acc16 bool) (*Tensor, error) {
	rank := len(a.Shape)
	red := make([]bool, rank)
	if len(axes) == 0 {
		for i := range red {
			red[i] = true
		}
	}
	for _, ax := range axes {
		i, err := normAxis(ax, rank)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		red[i] = true
	}
	var oshape, kshape []int
	for i, d := range a.Shape {
		if red[i] {
			kshape = append(kshape, 1)
			if keepDims {
				oshape = append(oshape, 1)
			}
		} else {
			kshape = append(kshape, d)
			oshape = append(oshape, d)
		}
	}
	nOut := numel(kshape)
	count := a.Len() / max(nOut, 1)
	// Input strides mapped onto the kept-dims output (0 on reduced axes).
	ostr := bstrides(kshape, a.Shape)
	if !a.Elem.IsFloat() {
		return reduceInt(op, a, kshape, oshape, ostr, out)
	}
	acc := make([]float32, nOut)
	init, step, ok := reduceStep(op)
	if !ok {
		return nil, fmt.Errorf("unknown reduction %s", op)
	}
	for i := range acc {
		acc[i] = init
	}
	src := a.Floats()
	narrow := acc16 && (op == "reduce_sum" || op == "reduce_mean" || op == "reduce_product")
	if outer, r, inner, ok := reducedBlock(a.Shape, red); ok {
		reduceBlock(op, src, acc, outer, r, inner, step, narrow)
	} else {
		reduceWalk(src, acc, a.Shape, ostr, step, narrow)
	}
	if op == "reduce_mean" {
		for i := range acc {
			acc[i] /= float32(count)
		}
	}
	for i := range acc {
		acc[i] = out.round(acc[i])
	}
	return NewFloat(out, oshape, acc), nil
}

// reduceStep is a float reduction's initial value and step.
func reduceStep(op string) (init float32, step func(acc, x float32) float32, ok bool) {
	switch op {
	case "reduce_sum", "reduce_mean":
		// -0 + x == x for every x
		return float32(math.Copysign(0, -1)), func(acc, x float32) float32 { return acc + x }, true
	case "reduce_product":
		return 1, func(acc, x float32) float32 { return acc * x }, true
	case "reduce_max":
		return float32(math.Inf(-1)), func(acc, x float32) float32 {
			if x > acc || x != x {
				return x
			}
			return acc
		}, true
	case "reduce_min":
		return float32(math.Inf(1)), func(acc, x float32) float32 {
			if x < acc || x != x {
				return x
			}
			return acc
		}, true
	}
	return 0, nil, false
}

// reduceWalk folds every element of src (of shape) into acc[idx], idx
// following ostr (the input's strides on the kept dims, 0 on reduced ones),
// in flat order: each output element meets its inputs in that order.
func reduceWalk(src, acc []float32, shape, ostr []int, step func(acc, x float32) float32, narrow bool) {
	rank := len(shape)
	idx := 0
	ctr := make([]int, rank)
	for i := range src {
		v := step(acc[idx], src[i])
		if v == v && acc[idx] != acc[idx] {
			v = acc[idx] // NaN sticks
		}
		if narrow {
			v = F16.round(v)
		}
		acc[idx] = v
		for d := rank - 1; d >= 0; d-- {
			ctr[d]++
			idx += ostr[d]
			if ctr[d] < shape[d] {
				break
			}
			idx -= ostr[d] * shape[d]
			ctr[d] = 0
		}
	}
}

// reducedBlock views shape as [outer, r, inner] when the reduced axes are
// one run of adjacent axes (one axis, or all): each output element then
// takes its r inputs at stride inner, in the order reduceWalk meets them
// (flat index ascending), so reduceBlock's results are reduceWalk's.
func reducedBlock(shape []int, red []bool) (outer, r, inner int, ok bool) {
	lo, hi := -1, -1
	for i, x := range red {
		if !x {
			continue
		}
		if lo >= 0 && hi != i-1 {
			return 0, 0, 0, false
		}
		if lo < 0 {
			lo = i
		}
		hi = i
	}
	if lo < 0 {
		return 0, 0, 0, false
	}
	outer, r, inner = 1, 1, 1
	for i, d := range shape {
		switch {
		case i < lo:
			outer *= d
		case i <= hi:
			r *= d
		default:
			inner *= d
		}
	}
	return outer, r, inner, true
}

// reduceBlock is reduceWalk over [outer, r, inner]: for each output element
// its r inputs in order, with the same step, NaN rule and rounding
// (narrow), a row of inner elements at a time; sums are written out so
// that they compile to plain loops (TestReduceBlockMatchesWalk).
func reduceBlock(op string, src, acc []float32, outer, r, inner int, step func(acc, x float32) float32, narrow bool) {
	sum := op == "reduce_sum" || op == "reduce_mean"
	for o := range outer {
		a := acc[o*inner : (o+1)*inner]
		for k := range r {
			x := src[(o*r+k)*inner : (o*r+k+1)*inner]
			switch {
			case sum && !narrow:
				// acc + x is NaN whenever acc is: the NaN rule holds
				// by itself.
				for t, v := range x {
					a[t] += v
				}
			case sum:
				for t, v := range x {
					a[t] = F16.round(a[t] + v)
				}
			default:
				for t, v := range x {
					w := step(a[t], v)
					if w == w && a[t] != a[t] {
						w = a[t] // NaN sticks
					}
					if narrow {
						w = F16.round(w)
					}
					a[t] = w
				}
			}
		}
	}
}

func reduceInt(op string, a *Tensor, kshape, oshape, ostr []int, out Elem) (*Tensor, error) {
	nOut := numel(kshape)
	acc := make([]int64, nOut)
	var init int64
	var step func(a, x int64) int64
	switch op {
	case "reduce_sum", "reduce_mean":
		step = func(a, x int64) int64 { return a + x }
	case "reduce_product":
		init = 1
		step = func(a, x int64) int64 { return a * x }
	case "reduce_max":
		init = math.MinInt64
		step = func(a, x int64) int64 { return max(a, x) }
	case "reduce_min":
		init = math.MaxInt64
		step = func(a, x int64) int64 { return min(a, x) }
	default:
		return nil, fmt.Errorf("unknown reduction %s", op)
	}
	for i := range acc {
		acc[i] = init
	}
	rank := len(a.Shape)
	idx := 0
	ctr := make([]int, rank)
	for i := range a.I {
		acc[idx] = step(acc[idx], a.I[i])
		for d := rank - 1; d >= 0; d-- {
			ctr[d]++
			idx += ostr[d]
			if ctr[d] < a.Shape[d] {
				break
			}
			idx -= ostr[d] * a.Shape[d]
			ctr[d] = 0
		}
	}
	if op == "reduce_mean" {
		n := int64(a.Len() / max(nOut, 1))
		for i := range acc {
			acc[i] /= n
		}
	}
	for i := range acc {
		acc[i] = out.wrap(acc[i])
	}
	return NewInt(out, oshape, acc), nil
}

// softmax along axis, in float32: m = max, e = exp(x-m) (exp evaluated in
// float64, rounded to float32), s = sequential float32 sum, out = e/s
// rounded to out.
func softmax(a *Tensor, axis int64, out Elem) (*Tensor, error) {
	ax, err := normAxis(axis, len(a.Shape))
	if err != nil {
		return nil, fmt.Errorf("softmax: %w", err)
	}
	if !a.Elem.IsFloat() {
		return nil, fmt.Errorf("softmax of %s", a)
	}
	src := a.Floats()
	res := make([]float32, len(src))
	n := a.Shape[ax]
	inner := 1
	for _, d := range a.Shape[ax+1:] {
		inner *= d
	}
	outer := len(src) / max(n*inner, 1)
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			base := o*n*inner + in
			m := float32(math.Inf(-1))
			for k := 0; k < n; k++ {
				if v := src[base+k*inner]; v > m || v != v {
					m = v
				}
			}
			s := float32(math.Copysign(0, -1))
			for k := 0; k < n; k++ {
				e := float32(math.Exp(float64(src[base+k*inner] - m)))
				res[base+k*inner] = e
				s += e
			}
			for k := 0; k < n; k++ {
				res[base+k*inner] = out.round(res[base+k*inner] / s)
			}
		}
	}
	return NewFloat(out, append([]int(nil), a.Shape...), res), nil
}

// reduceOp runs the reduce_* rows; acc16 rounds a sum, mean or product to
// half after every step (the Neural Engine profile's narrow-reduce rule
// runs them with it set: narrowReduceOp).
func reduceOp(c opCall) (*Tensor, error) {
	axes, _ := intArg(c.op, c.ins, 1, "axes")
	keep := true
	if c.op.Inherent("keep_dims") != nil || c.op.Inherent("keepdims") != nil {
		keep = boolAttr(c.op, "keep_dims", "keepdims")
	}
	return reduce(c.k, c.ins[0], axes, keep, c.el, c.acc16)
}

func softmaxOp(c opCall) (*Tensor, error) {
	axis := int64(-1)
	if a, ok := intArg(c.op, c.ins, 1, "axis"); ok && len(a) > 0 {
		axis = a[0]
	}
	return softmax(c.ins[0], axis, c.el)
}
