//go:build !amd64

package interp

import "github.com/anefix/anefix/graph/f16"

var useDot8 = false

// dot8h computes dot4h for rows 0-3 and 4-7 of h (row r at r*stride), the
// portable form of gemv_amd64.go's vector kernel.
func dot8h(x []float32, h []uint16, stride int, out *[8]float32) {
	K := len(x)
	if K == 0 {
		*out = [8]float32{}
		return
	}
	row := func(r int) []uint16 { return h[r*stride : r*stride+K] }
	out[0], out[1], out[2], out[3] = dot4h(x, row(0), row(1), row(2), row(3))
	out[4], out[5], out[6], out[7] = dot4h(x, row(4), row(5), row(6), row(7))
}

// dot16h computes dot8h for rows 0-7 and 8-15 of h.
func dot16h(x []float32, h []uint16, stride int, out *[16]float32) {
	var o [8]float32
	dot8h(x, h, stride, &o)
	copy(out[:8], o[:])
	dot8h(x, h[8*stride:], stride, &o)
	copy(out[8:], o[:])
}

// dot8RoundedH computes dot4RoundedH for rows 0-3 and 4-7 of h, the
// portable form of gemv_amd64.go's vector kernel.
func dot8RoundedH(x []float32, h []uint16, stride int, out *[8]float32) {
	K := len(x)
	if K == 0 {
		*out = [8]float32{}
		return
	}
	row := func(r int) []uint16 { return h[r*stride : r*stride+K] }
	out[0], out[1], out[2], out[3] = dot4RoundedH(x, row(0), row(1), row(2), row(3))
	out[4], out[5], out[6], out[7] = dot4RoundedH(x, row(4), row(5), row(6), row(7))
}

// round16 is f16.Round32 over a slice.
func round16(s []float32) {
	for i, v := range s {
		s[i] = f16.Round32(v)
	}
}

// axpyRows is never reached without the vector kernel (useDot8 is false);
// it is here so that matmulCore compiles everywhere.
func axpyRows(a, b []float32, sr int, acc []float32) {
	panic("interp: axpyRows without a vector kernel")
}

// axpyRoundedRows is never reached without the vector kernel (useDot8 is
// false); it is here so that mmRoundedRowsStream compiles everywhere.
func axpyRoundedRows(a, b []float32, sr int, acc []float32) {
	panic("interp: axpyRoundedRows without a vector kernel")
}

// axpyRoundedRowsH, like axpyRoundedRows, is never reached here.
func axpyRoundedRowsH(a []float32, b []uint16, sr int, acc []float32) {
	panic("interp: axpyRoundedRowsH without a vector kernel")
}

// widen16h sets wt[16k+r] = w_r[k] for the sixteen rows of h (row r at
// r*stride), the portable form of gemv_amd64.go's.
func widen16h(h []uint16, stride, K int, wt []float32) {
	for k := range K {
		for r := range 16 {
			wt[16*k+r] = f16.ToFloat32(h[r*stride+k])
		}
	}
}

// lanes16x4 is never reached without the vector kernel (useDot8 is
// false); it is here so that gemvHLanes compiles everywhere.
func lanes16x4(wt []float32, K int, x []float32, stride int, acc *[64]float32, rounded bool) {
	panic("interp: lanes16x4 without a vector kernel")
}
