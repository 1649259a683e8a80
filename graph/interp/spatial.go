package interp

import (
	"fmt"
	"math"

	"github.com/anefix/anefix/graph/f16"
)

// Windowed ops over the trailing spatial axes of an N, C, spatial… tensor:
// max_pool_2d, sum_pool_2d, sum_pool_3d, conv3d, conv_transpose2d and
// interpolate, with the operand layouts coreai-torch prints
// (tests/ops/test_ops_ir.py) and the torch semantics it lowers
// (coreai_torch/_aten_to_core.py). None of them pads: coreai-torch pads
// with coreai.pad first (the pools' and conv3d's padding), except
// conv_transpose2d, which takes torch's padding and output padding.

// window is a pooling window: one kernel size, stride and dilation per
// spatial axis.
type window struct {
	Kernel, Stride, Dilation []int
	// Ceil rounds the output size up (max_pool_2d's ceil_mode), keeping
	// only windows that start inside the input, as torch does.
	Ceil bool
}

// windowArgs reads a window's per-axis values (a single value stands for
// every axis, as a splat constant does).
func windowArgs(what string, nsp int, vals ...[]int64) ([][]int, error) {
	out := make([][]int, len(vals))
	for i, v := range vals {
		out[i] = make([]int, nsp)
		for d := range out[i] {
			var x int64 = 1
			switch len(v) {
			case 0:
			case 1:
				x = v[0]
			case nsp:
				x = v[d]
			default:
				return nil, fmt.Errorf("%s: %d values for %d spatial axes", what, len(v), nsp)
			}
			if x < 1 || x > math.MaxInt32 {
				return nil, fmt.Errorf("%s: window value %d (sizes, strides and dilations are at least 1)", what, x)
			}
			out[i][d] = int(x)
		}
	}
	return out, nil
}

// poolShape is the output size per spatial axis of a window over sizes.
func poolShape(what string, sizes []int, w window) ([]int, error) {
	out := make([]int, len(sizes))
	for d, n := range sizes {
		span := w.Dilation[d]*(w.Kernel[d]-1) + 1
		if n < span {
			return nil, fmt.Errorf("%s: window spanning %d does not fit axis of size %d", what, span, n)
		}
		q := (n - span) / w.Stride[d]
		if w.Ceil && (n-span)%w.Stride[d] != 0 && q*w.Stride[d]+w.Stride[d] < n {
			q++ // a last, partial window that starts inside the input
		}
		out[d] = q + 1
	}
	return out, nil
}

// pool runs fn over every window of x (rank 2 + len(w.Kernel)): fn gets the
// flat indices of the window's elements inside the input, in row-major
// window order, and returns the output value.
func pool(what string, x *Tensor, w window, want []int, out Elem, fn func(idx []int) float32) (*Tensor, error) {
	nsp := len(w.Kernel)
	if len(x.Shape) != nsp+2 {
		return nil, fmt.Errorf("%s: input %v must have rank %d (N, C and %d spatial axes)", what, x.Shape, nsp+2, nsp)
	}
	if !x.Elem.IsFloat() || !out.IsFloat() {
		return nil, fmt.Errorf("%s: input %s and result %s must be floats", what, x, out)
	}
	sp, err := poolShape(what, x.Shape[2:], w)
	if err != nil {
		return nil, err
	}
	shape := append([]int{x.Shape[0], x.Shape[1]}, sp...)
	if err := checkOut(what, shape, want); err != nil {
		return nil, err
	}
	ist := stridesOf(x.Shape)
	res := make([]float32, numel(shape))
	idx := make([]int, 0, numel(w.Kernel))
	kpos := make([]int, nsp)
	o := 0
	sources(shape, func(p []int) int {
		base := p[0]*ist[0] + p[1]*ist[1]
		idx = idx[:0]
		for d := range kpos {
			kpos[d] = 0
		}
		for {
			i, in := base, true
			for d := 0; d < nsp; d++ {
				c := p[2+d]*w.Stride[d] + kpos[d]*w.Dilation[d]
				if c >= x.Shape[2+d] {
					in = false // ceil mode's partial window
					break
				}
				i += c * ist[2+d]
			}
			if in {
				idx = append(idx, i)
			}
			d := nsp - 1
			for ; d >= 0; d-- {
				kpos[d]++
				if kpos[d] < w.Kernel[d] {
					break
				}
				kpos[d] = 0
			}
			if d < 0 {
				break
			}
		}
		res[o] = out.round(fn(idx))
		o++
		return 0
	})
	return NewFloat(out, shape, res), nil
}

// maxPool is the largest element of each window (torch.max_pool2d: NaN
// propagates; ceil mode keeps a last window that starts inside the input).
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func maxPool(x *Tensor, w window, want []int, out Elem) (*Tensor, error) {
	f := x.Floats()
	return pool("max_pool", x, w, want, out, func(idx []int) float32 {
		m := float32(math.Inf(-1))
		for _, i := range idx {
			if v := f[i]; v > m || v != v {
				m = v
				if v != v {
					break
				}
			}
		}
		return m
	})
}

// sumPool is the sum of each window, accumulated in float32 in row-major
// window order from -0 as reduce does (acc16 rounds the running sum to half
// after each addition), rounded once to out.
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func sumPool(x *Tensor, w window, want []int, out Elem, acc16 bool) (*Tensor, error) {
	f := x.Floats()
	return pool("sum_pool", x, w, want, out, func(idx []int) float32 {
		acc := float32(math.Copysign(0, -1))
		for _, i := range idx {
			acc += f[i]
			if acc16 {
				acc = f16.Round32(acc)
			}
		}
		return acc
	})
}

// convND is a convolution over the trailing spatial axes of x (N, C,
// spatial…) with weight (O, C/groups, kernel…), no padding (coreai-torch's
// conv3d: (x, w, strides, dilations, groups); it pads with coreai.pad
// first). Each output accumulates its products in float32 over input
// channel then kernel positions in row-major order, from +0 as conv does,
// and is rounded once to out; acc16 rounds the running sum to half.
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func convND(x, w *Tensor, strides, dilations []int, groups int, want []int, out Elem, acc16 bool) (*Tensor, error) {
	nsp := len(x.Shape) - 2
	if nsp < 1 || len(w.Shape) != nsp+2 || len(strides) != nsp || len(dilations) != nsp {
		return nil, fmt.Errorf("conv: input %v, weight %v, %d strides and %d dilations do not match", x.Shape, w.Shape, len(strides), len(dilations))
	}
	if !x.Elem.IsFloat() || !w.Elem.IsFloat() || !out.IsFloat() {
		return nil, fmt.Errorf("conv: input %s, weight %s and result %s must be floats", x, w, out)
	}
	g := max(groups, 1)
	C, O, Cg := x.Shape[1], w.Shape[0], w.Shape[1]
	if C != Cg*g || O%g != 0 {
		return nil, fmt.Errorf("conv: %d input channels, weight %v, groups %d do not match", C, w.Shape, g)
	}
	win := window{Kernel: w.Shape[2:], Stride: strides, Dilation: dilations}
	sp, err := poolShape("conv", x.Shape[2:], win)
	if err != nil {
		return nil, err
	}
	shape := append([]int{x.Shape[0], O}, sp...)
	if err := checkOut("conv", shape, want); err != nil {
		return nil, err
	}
	xf, wf := x.Floats(), w.Floats()
	ist, wst := stridesOf(x.Shape), stridesOf(w.Shape)
	ksz := numel(w.Shape[2:])
	// Offsets of the kernel positions inside the input (relative to a
	// window's first element) and inside a weight row.
	koff := make([]int, 0, ksz)
	sources(w.Shape[2:], func(k []int) int {
		off := 0
		for d, c := range k {
			off += c * dilations[d] * ist[2+d]
		}
		koff = append(koff, off)
		return 0
	})
	Og := O / g
	res := make([]float32, numel(shape))
	o := 0
	sources(shape, func(p []int) int {
		n, oc := p[0], p[1]
		base := n * ist[0]
		for d := 0; d < nsp; d++ {
			base += p[2+d] * strides[d] * ist[2+d]
		}
		gi := oc / Og
		var acc float32
		for c := 0; c < Cg; c++ {
			xb := base + (gi*Cg+c)*ist[1]
			wb := oc*wst[0] + c*wst[1]
			for k, off := range koff {
				acc += float32(xf[xb+off] * wf[wb+k]) // float32(): no fused multiply-add
				if acc16 {
					acc = f16.Round32(acc)
				}
			}
		}
		res[o] = out.round(acc)
		o++
		return 0
	})
	return NewFloat(out, shape, res), nil
}

// convTransposeParams are conv_transpose2d's operands after the data and
// weight (coreai_torch/_aten_to_core.py _conv_transpose passes torch's own
// stride, padding, dilation, output padding and groups).
type convTransposeParams struct {
	Stride, Padding, Dilation, OutputPadding [2]int
	Groups                                   int
}

// convTranspose2D is torch.conv_transpose2d: x (N, C, H, W), weight (C,
// O/groups, KH, KW), output size (H-1)·stride - 2·padding +
// dilation·(KH-1) + output_padding + 1 per axis. Each output element sums,
// in float32 from +0, x[n, c, ih, iw]·w[c, o, kh, kw] over input channel c
// (of its group), then kh, then kw, for every (ih, iw) with ih·stride -
// padding + kh·dilation = oh (likewise w); acc16 rounds the running sum to
// half; the result is rounded once to out.
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func convTranspose2D(x, w *Tensor, p convTransposeParams, want []int, out Elem, acc16 bool) (*Tensor, error) {
	if len(x.Shape) != 4 || len(w.Shape) != 4 {
		return nil, fmt.Errorf("conv_transpose2d: input %v and weight %v must be rank 4 (NCHW; C, O/groups, KH, KW)", x.Shape, w.Shape)
	}
	if !x.Elem.IsFloat() || !w.Elem.IsFloat() || !out.IsFloat() {
		return nil, fmt.Errorf("conv_transpose2d: input %s, weight %s and result %s must be floats", x, w, out)
	}
	g := max(p.Groups, 1)
	N, C, H, W := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	Cw, Og, KH, KW := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	if Cw != C || C%g != 0 {
		return nil, fmt.Errorf("conv_transpose2d: %d input channels, weight %v, groups %d do not match", C, w.Shape, g)
	}
	for d := 0; d < 2; d++ {
		if p.Stride[d] < 1 || p.Dilation[d] < 1 || p.Padding[d] < 0 || p.OutputPadding[d] < 0 {
			return nil, fmt.Errorf("conv_transpose2d: stride %v, dilation %v, padding %v, output padding %v", p.Stride, p.Dilation, p.Padding, p.OutputPadding)
		}
	}
	k := [2]int{KH, KW}
	in := [2]int{H, W}
	var os [2]int
	for d := 0; d < 2; d++ {
		os[d] = (in[d]-1)*p.Stride[d] - 2*p.Padding[d] + p.Dilation[d]*(k[d]-1) + p.OutputPadding[d] + 1
		if os[d] <= 0 {
			return nil, fmt.Errorf("conv_transpose2d: empty output for input %v, weight %v", x.Shape, w.Shape)
		}
	}
	O := Og * g
	shape := []int{N, O, os[0], os[1]}
	if err := checkOut("conv_transpose2d", shape, want); err != nil {
		return nil, err
	}
	Cg := C / g
	xf, wf := x.Floats(), w.Floats()
	res := make([]float32, numel(shape))
	// source finds the input position feeding output position oc through
	// kernel tap kc on one axis (-1: none).
	source := func(d, oc, kc int) int {
		t := oc + p.Padding[d] - kc*p.Dilation[d]
		if t < 0 || t%p.Stride[d] != 0 {
			return -1
		}
		if t /= p.Stride[d]; t >= in[d] {
			return -1
		}
		return t
	}
	for n := 0; n < N; n++ {
		for o := 0; o < O; o++ {
			gi, og := o/Og, o%Og
			for oh := 0; oh < os[0]; oh++ {
				for ow := 0; ow < os[1]; ow++ {
					var acc float32
					for c := gi * Cg; c < (gi+1)*Cg; c++ {
						for kh := 0; kh < KH; kh++ {
							ih := source(0, oh, kh)
							if ih < 0 {
								continue
							}
							for kw := 0; kw < KW; kw++ {
								iw := source(1, ow, kw)
								if iw < 0 {
									continue
								}
								acc += float32(xf[((n*C+c)*H+ih)*W+iw] * wf[((c*Og+og)*KH+kh)*KW+kw])
								if acc16 {
									acc = f16.Round32(acc)
								}
							}
						}
					}
					res[((n*O+o)*os[0]+oh)*os[1]+ow] = out.round(acc)
				}
			}
		}
	}
	return NewFloat(out, shape, res), nil
}

// Interpolation modes coreai-torch emits: linear (upsample_bilinear2d) and
// nearest_neighbor (upsample_nearest2d), coreai_torch/_aten_to_core.py.
const (
	interpLinear  = "linear"
	interpNearest = "nearest_neighbor"
)

// interpolate resizes the last two axes of x (N, C, H, W) to size (the
// first two axes must keep their size with scale 1 and offset 0), with one
// scale and offset per axis as coreai-torch computes them. How the runtime
// maps an output position to an input position is not public; anefix reads
// it from the two lowerings (coreai_torch/_aten_to_core.py
// replace_upsample_bilinear2d_vec, replace_upsample_nearest2d_vec), which
// must reproduce torch (tests/ops/test_ops.py TestUpsample*):
//
//   - linear: (dst + 0.5) = scale·(src + 0.5) + offset, i.e. src = (dst +
//     0.5 - offset)/scale - 0.5, clamped below at 0: with offset 0 and scale
//     out/in that is torch's half-pixel bilinear, and with scale (out-1)/(in-1)
//     and offset (1-scale)/2 its align_corners=True form; then torch's
//     bilinear weights: i0 = floor(src), i1 = min(i0+1, size-1), λ = src - i0,
//     out = (1-λh)·((1-λw)·x00 + λw·x01) + λh·((1-λw)·x10 + λw·x11), the
//     weights computed in float64 and rounded to float32, the sum in float32,
//     rounded once to out;
//   - nearest_neighbor: src = min(floor((dst - offset)/scale), size-1),
//     torch's legacy nearest (floor(dst·in/out)), which the lowering's
//     test with 4 → 10 needs (half-pixel rounding differs there). Both
//     readings are guesses that fit every lowering; coordinates in float64.
//
// want, when set, is the result shape the op declares (declared), which
// the result must have.
func interpolate(x *Tensor, size []int64, scale, offset []float32, mode string, want []int, out Elem) (*Tensor, error) {
	if len(x.Shape) != 4 || len(size) != 4 || len(scale) != 4 || len(offset) != 4 {
		return nil, fmt.Errorf("interpolate: input %v, size %v, scale %v, offset %v (rank 4 NCHW, one entry per axis)", x.Shape, size, scale, offset)
	}
	if !x.Elem.IsFloat() || !out.IsFloat() {
		return nil, fmt.Errorf("interpolate: input %s and result %s must be floats", x, out)
	}
	shape := make([]int, 4)
	for d := range shape {
		if size[d] < 1 || size[d] > math.MaxInt32 {
			return nil, fmt.Errorf("interpolate: output size %v", size)
		}
		shape[d] = int(size[d])
		if d < 2 && (shape[d] != x.Shape[d] || scale[d] != 1 || offset[d] != 0) {
			return nil, fmt.Errorf("interpolate: axis %d changes (size %d → %d, scale %v, offset %v); coreai-torch resizes only the last two axes", d, x.Shape[d], shape[d], scale[d], offset[d])
		}
		if d >= 2 && (!(scale[d] > 0) || math.IsInf(float64(scale[d]), 0) || offset[d] != offset[d] || math.IsInf(float64(offset[d]), 0)) {
			return nil, fmt.Errorf("interpolate: scale %v and offset %v on axis %d", scale[d], offset[d], d)
		}
	}
	if err := checkOut("interpolate", shape, want); err != nil {
		return nil, err
	}
	if mode != interpLinear && mode != interpNearest {
		return nil, fmt.Errorf("interpolate: interpolation_mode %q is not one coreai-torch emits (linear, nearest_neighbor)", mode)
	}
	// Per output position on each resized axis: the two input positions
	// and their weights (nearest: one position, weight 1).
	type tap struct {
		i0, i1 int
		l0, l1 float32
	}
	taps := func(d int) []tap {
		n, s, off := x.Shape[d], float64(scale[d]), float64(offset[d])
		t := make([]tap, shape[d])
		for dst := range t {
			if mode == interpNearest {
				src := math.Floor((float64(dst) - off) / s)
				i := int(min(max(src, 0), float64(n-1)))
				t[dst] = tap{i0: i, i1: i, l0: 1}
				continue
			}
			src := max((float64(dst)+0.5-off)/s-0.5, 0)
			i0 := int(min(math.Floor(src), float64(n-1)))
			lam := min(src-float64(i0), 1) // past the last position both taps are the edge, as in torch
			t[dst] = tap{i0: i0, i1: min(i0+1, n-1), l0: float32(1 - lam), l1: float32(lam)}
		}
		return t
	}
	th, tw := taps(2), taps(3)
	xf := x.Floats()
	N, C, H, W := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	OH, OW := shape[2], shape[3]
	res := make([]float32, numel(shape))
	for nc := 0; nc < N*C; nc++ {
		plane := xf[nc*H*W : (nc+1)*H*W]
		for oh, h := range th {
			r0, r1 := plane[h.i0*W:(h.i0+1)*W], plane[h.i1*W:(h.i1+1)*W]
			for ow, w := range tw {
				var v float32
				if mode == interpNearest {
					v = r0[w.i0]
				} else {
					// Each product rounded on its own (float32() forbids a
					// fused multiply-add), summed in the formula's order.
					a := float32(w.l0*r0[w.i0]) + float32(w.l1*r0[w.i1])
					b := float32(w.l0*r1[w.i0]) + float32(w.l1*r1[w.i1])
					v = float32(h.l0*a) + float32(h.l1*b)
				}
				res[(nc*OH+oh)*OW+ow] = out.round(v)
			}
		}
	}
	return NewFloat(out, shape, res), nil
}

// The spatial rows' kernels (ops.go).

// poolOp runs max_pool_2d, sum_pool_2d and sum_pool_3d: (x, kernel,
// strides, dilation[, ceil_mode]).
func poolOp(c opCall) (*Tensor, error) {
	ins := c.ins
	if err := need(ins, 4); err != nil {
		return nil, err
	}
	nsp := 2
	if c.k == "sum_pool_3d" {
		nsp = 3
	}
	v, err := windowArgs(c.k, nsp, ins[1].Ints(), ins[2].Ints(), ins[3].Ints())
	if err != nil {
		return nil, err
	}
	w := window{Kernel: v[0], Stride: v[1], Dilation: v[2]}
	if c.k != "max_pool_2d" {
		return sumPool(ins[0], w, declared(c.op), c.el, c.acc16)
	}
	if len(ins) > 4 {
		if w.Ceil, err = flagOf(ins[4], "ceil_mode"); err != nil {
			return nil, err
		}
	}
	return maxPool(ins[0], w, declared(c.op), c.el)
}

func conv3dOp(c opCall) (*Tensor, error) { // (x, w, strides, dilations, groups)
	ins := c.ins
	if err := need(ins, 2); err != nil {
		return nil, err
	}
	var sd, dl []int64
	groups := int64(1)
	if len(ins) > 2 {
		sd = ins[2].Ints()
	}
	if len(ins) > 3 {
		dl = ins[3].Ints()
	}
	if len(ins) > 4 {
		var err error
		if groups, err = scalarInt(ins[4], "groups"); err != nil {
			return nil, err
		}
	}
	v, err := windowArgs(c.k, 3, sd, dl)
	if err != nil {
		return nil, err
	}
	if groups < 1 || groups > math.MaxInt32 {
		return nil, fmt.Errorf("conv3d: groups %d", groups)
	}
	return convND(ins[0], ins[1], v[0], v[1], int(groups), declared(c.op), c.el, c.acc16)
}

func convTranspose2dOp(c opCall) (*Tensor, error) { // (x, w, stride, padding, dilation, output_pad, groups)
	ins := c.ins
	if err := need(ins, 7); err != nil {
		return nil, err
	}
	var p convTransposeParams
	two := func(t *Tensor, dst *[2]int, what string) error {
		v := t.Ints()
		switch len(v) {
		case 1:
			v = []int64{v[0], v[0]}
		case 2:
		default:
			return fmt.Errorf("conv_transpose2d: %s %v (want 2 values)", what, v)
		}
		for d := range dst {
			if v[d] < 0 || v[d] > math.MaxInt32 {
				return fmt.Errorf("conv_transpose2d: %s %v", what, v)
			}
			dst[d] = int(v[d])
		}
		return nil
	}
	for i, f := range []struct {
		dst  *[2]int
		what string
	}{{&p.Stride, "stride"}, {&p.Padding, "padding"}, {&p.Dilation, "dilation"}, {&p.OutputPadding, "output padding"}} {
		if err := two(ins[2+i], f.dst, f.what); err != nil {
			return nil, err
		}
	}
	g, err := scalarInt(ins[6], "groups")
	if err != nil {
		return nil, err
	}
	if g < 1 || g > math.MaxInt32 {
		return nil, fmt.Errorf("conv_transpose2d: groups %d", g)
	}
	p.Groups = int(g)
	return convTranspose2D(ins[0], ins[1], p, declared(c.op), c.el, c.acc16)
}

func interpolateOp(c opCall) (*Tensor, error) { // (x, size, scale, offset) {interpolation_mode = …}
	ins := c.ins
	if err := need(ins, 4); err != nil {
		return nil, err
	}
	if !ins[2].Elem.IsFloat() || !ins[3].Elem.IsFloat() {
		return nil, fmt.Errorf("interpolate: scale %s and offset %s must be floats", ins[2], ins[3])
	}
	return interpolate(ins[0], ins[1].Ints(), ins[2].Floats(), ins[3].Floats(), enumWord(c.op, "interpolation_mode"), declared(c.op), c.el)
}
