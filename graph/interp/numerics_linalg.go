package interp

import "github.com/anefix/anefix/graph/f16"

// The Neural Engine profile's matmul kernels (numerics.go, rules
// fp16-operands-products and wide-accumulator): each product A(i,k)·B(k,j)
// is rounded to fp16, the rounded products are summed in float32
// sequentially over k, and the sum is rounded to outEl. mmKernel
// (linalg.go) picks them by layout; raw-f16 weights run in the IEEE
// profile's gemvH with its rounded kernels.

// mmRoundedRowsStream computes one work item of the rounded matmul with B
// contiguous along j: each output row accumulates rounded products of whole
// rows of B, k in order.
func mmRoundedRowsStream(A, B mat, N, K int, it mmItem, bufA []float32, bufB [4][]float32, acc []float32, out []float32, outEl Elem) {
	n := it.j1 - it.j0
	acc = acc[:n]
	// With the vector kernel, whole groups of eight columns of B
	// (float, or raw f16 widened as read) run in axpyRoundedRows
	// or axpyRoundedRowsH (gemv_amd64.s); the rest, and a row in
	// which the vector kernel met a NaN (see redoNaN), below.
	v := 0
	if useDot8 {
		v = n / 8 * 8
	}
	for i := it.i0; i < it.i1; i++ {
		clear(acc)
		vi := 0
		if v > 0 {
			arow := A.load(bufA, it.aoff+A.off+i*A.sr, K, A.sc)
			if B.h != nil {
				axpyRoundedRowsH(arow, B.h[it.boff+B.off+it.j0:], B.sr, acc[:v])
			} else {
				axpyRoundedRows(arow, B.f[it.boff+B.off+it.j0:], B.sr, acc[:v])
			}
			vi = v
			if hasNaN(acc[:v]) {
				clear(acc[:v])
				vi = 0
			}
		}
		for k := 0; k < K && vi < n; k++ {
			av := A.at(it.aoff + A.off + i*A.sr + k*A.sc)
			axpyRounded(acc[vi:], B.load(bufB[0], it.boff+B.off+k*B.sr+it.j0+vi, n-vi, 1), av)
		}
		o := out[it.ooff+i*N+it.j0 : it.ooff+i*N+it.j1]
		for t, v := range acc {
			o[t] = outEl.round(v)
		}
	}
}

// mmRoundedDot computes one work item of the rounded matmul by the general path:
// sequential dot products over k, four columns at a time.
func mmRoundedDot(A, B mat, N, K int, it mmItem, bufA []float32, bufB [4][]float32, out []float32, outEl Elem) {
	for i := it.i0; i < it.i1; i++ {
		arow := A.load(bufA, it.aoff+A.off+i*A.sr, K, A.sc)
		j := it.j0
		// Four columns at once: independent sums hide the add latency,
		// each still sequential over k.
		for ; j+4 <= it.j1; j += 4 {
			c0 := B.load(bufB[0], it.boff+B.off+j*B.sc, K, B.sr)
			c1 := B.load(bufB[1], it.boff+B.off+(j+1)*B.sc, K, B.sr)
			c2 := B.load(bufB[2], it.boff+B.off+(j+2)*B.sc, K, B.sr)
			c3 := B.load(bufB[3], it.boff+B.off+(j+3)*B.sc, K, B.sr)
			s0, s1, s2, s3 := dot4Rounded(arow, c0, c1, c2, c3)
			o := out[it.ooff+i*N+j : it.ooff+i*N+j+4]
			o[0], o[1], o[2], o[3] = outEl.round(s0), outEl.round(s1), outEl.round(s2), outEl.round(s3)
		}
		for ; j < it.j1; j++ {
			col := B.load(bufB[0], it.boff+B.off+j*B.sc, K, B.sr)
			s, _, _, _ := dot4Rounded(arow, col, col, col, col)
			out[it.ooff+i*N+j] = outEl.round(s)
		}
	}
}

// redoNaN recomputes with the scalar kernel each of eight sums in o8 that
// the vector kernel left NaN (rows r of h at r*stride). The F16C round
// trip equals roundProd on every float32 but a NaN whose payload has bits
// below a half's ten (roundProd returns a NaN product whole, F16C keeps a
// half's payload bits), and a sum stays NaN once a product is: a sum that
// ends finite or infinite met no NaN product, so only NaN sums need the
// scalar kernel to carry its payload.
func redoNaN(o8 *[8]float32, x []float32, h []uint16, stride int) {
	K := len(x)
	for r, v := range o8 {
		if v != v {
			row := h[r*stride : r*stride+K]
			o8[r], _, _, _ = dot4RoundedH(x, row, row, row, row)
		}
	}
}

// hasNaN reports whether any of v is NaN.
func hasNaN(v []float32) bool {
	for _, f := range v {
		if f != f {
			return true
		}
	}
	return false
}

// The loops below rely on roundProd being inlined (it has no calls): a
// call per product would spill the sums and dominate.

// axpyRounded adds roundProd(a·x[t]) to acc[t].
func axpyRounded(acc, x []float32, a float32) {
	acc = acc[:len(x)]
	for t, v := range x {
		p := roundProd(float32(a * v))
		acc[t] += p
	}
}

// dot4Rounded is Σ_k roundProd(x[k]·c[k]) for four columns, each summed
// sequentially in k.
func dot4Rounded(x, c0, c1, c2, c3 []float32) (s0, s1, s2, s3 float32) {
	n := len(x)
	c0, c1, c2, c3 = c0[:n], c1[:n], c2[:n], c3[:n]
	for k, v := range x {
		p0 := roundProd(float32(v * c0[k]))
		p1 := roundProd(float32(v * c1[k]))
		p2 := roundProd(float32(v * c2[k]))
		p3 := roundProd(float32(v * c3[k]))
		s0 += p0
		s1 += p1
		s2 += p2
		s3 += p3
	}
	return
}

// dot4RoundedH is dot4Rounded with the columns as raw f16 weights, widened
// as they are read.
func dot4RoundedH(x []float32, h0, h1, h2, h3 []uint16) (s0, s1, s2, s3 float32) {
	n := len(x)
	h0, h1, h2, h3 = h0[:n], h1[:n], h2[:n], h3[:n]
	for k, v := range x {
		p0 := roundProd(float32(v * f16.ToFloat32(h0[k])))
		p1 := roundProd(float32(v * f16.ToFloat32(h1[k])))
		p2 := roundProd(float32(v * f16.ToFloat32(h2[k])))
		p3 := roundProd(float32(v * f16.ToFloat32(h3[k])))
		s0 += p0
		s1 += p1
		s2 += p2
		s3 += p3
	}
	return
}
