package interp

import "github.com/anefix/anefix/graph/f16"

//go:noescape
func dot8hAVX(x *float32, h *uint16, stride, blocks int, out *[8]float32)

//go:noescape
func dot16hAVX(x *float32, h *uint16, stride, blocks int, out *[16]float32)

//go:noescape
func dot8RoundedHAVX(x *float32, h *uint16, stride, blocks int, out *[8]float32)

//go:noescape
func tr16hAVX(h *uint16, stride, blocks int, dst *float32)

//go:noescape
func lanes16x4AVX(wt *float32, k int, x *float32, xstride int, acc *[64]float32)

//go:noescape
func lanes16x4RoundedAVX(wt *float32, k int, x *float32, xstride int, acc *[64]float32)

//go:noescape
func axpyRowsAVX(a, b *float32, sr, k, chunks int, acc *float32)

//go:noescape
func axpyRoundedRowsAVX(a, b *float32, sr, k, chunks int, acc *float32)

//go:noescape
func axpyRoundedRowsHAVX(a *float32, b *uint16, sr, k, chunks int, acc *float32)

//go:noescape
func round16AVX(s *float32, blocks int)

func cpuidex(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv0() (lo uint32)

// hasAVXF16C: the CPU has AVX and F16C and the OS saves the YMM registers.
var hasAVXF16C = func() bool {
	_, _, c, _ := cpuidex(1, 0)
	const osxsave, avx, f16c = 1 << 27, 1 << 28, 1 << 29
	if c&(osxsave|avx|f16c) != osxsave|avx|f16c {
		return false
	}
	return xgetbv0()&6 == 6 // XMM and YMM state enabled
}()

// useDot8 selects dot8h's vector path; tests turn it off to compare.
var useDot8 = hasAVXF16C

// dot8h computes dot4h for rows 0-3 and 4-7 of h (row r at r*stride): the
// same products and the same sequential sums, eight rows per pass. Where
// two NaNs meet, x86 keeps the first operand's payload; the vector kernel
// and the tail take the weight first in a product and the sum first in an
// add, as dot4h compiles (TestDot8hMatchesDot4h checks the bits).
func dot8h(x []float32, h []uint16, stride int, out *[8]float32) {
	K := len(x)
	if K == 0 {
		*out = [8]float32{}
		return
	}
	_ = h[7*stride+K-1] // every row in range before the unchecked loads
	row := func(r int) []uint16 { return h[r*stride : r*stride+K] }
	if !useDot8 {
		out[0], out[1], out[2], out[3] = dot4h(x, row(0), row(1), row(2), row(3))
		out[4], out[5], out[6], out[7] = dot4h(x, row(4), row(5), row(6), row(7))
		return
	}
	k0 := K / 8 * 8
	dot8hAVX(&x[0], &h[0], stride, K/8, out)
	for g := 0; g < 8; g += 4 {
		tail4h(out[g:g+4], x[k0:], row(g)[k0:], row(g + 1)[k0:], row(g + 2)[k0:], row(g + 3)[k0:])
	}
}

// dot16h computes dot8h for rows 0-7 and 8-15 of h (row r at r*stride)
// in one pass: the same bits as two dot8h calls, about twice the rate (two
// independent chains of adds, gemv_amd64.s).
func dot16h(x []float32, h []uint16, stride int, out *[16]float32) {
	K := len(x)
	if K == 0 {
		*out = [16]float32{}
		return
	}
	_ = h[15*stride+K-1] // every row in range before the unchecked loads
	if !useDot8 {
		var o [8]float32
		dot8h(x, h, stride, &o)
		copy(out[:8], o[:])
		dot8h(x, h[8*stride:], stride, &o)
		copy(out[8:], o[:])
		return
	}
	row := func(r int) []uint16 { return h[r*stride : r*stride+K] }
	k0 := K / 8 * 8
	dot16hAVX(&x[0], &h[0], stride, K/8, out)
	for g := 0; g < 16; g += 4 {
		tail4h(out[g:g+4], x[k0:], row(g)[k0:], row(g + 1)[k0:], row(g + 2)[k0:], row(g + 3)[k0:])
	}
}

// tail4h continues four of dot4h's sums over the last elements; its loop is
// dot4h's, so the compiled operand order is the same.
func tail4h(s []float32, x []float32, h0, h1, h2, h3 []uint16) {
	n := len(x)
	h0, h1, h2, h3 = h0[:n], h1[:n], h2[:n], h3[:n]
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	for k, v := range x {
		s0 += float32(v * f16.ToFloat32(h0[k]))
		s1 += float32(v * f16.ToFloat32(h1[k]))
		s2 += float32(v * f16.ToFloat32(h2[k]))
		s3 += float32(v * f16.ToFloat32(h3[k]))
	}
	s[0], s[1], s[2], s[3] = s0, s1, s2, s3
}

// round16 is f16.Round32 over a slice, eight values per instruction pair
// where the CPU has F16C (TestRound16MatchesRound32 checks the bits).
func round16(s []float32) {
	k0 := 0
	if useDot8 && len(s) >= 8 {
		k0 = len(s) / 8 * 8
		round16AVX(&s[0], len(s)/8)
	}
	for i := k0; i < len(s); i++ {
		s[i] = f16.Round32(s[i])
	}
}

// axpyRows sets acc[t] = Σ_k b[k*sr+t]·a[k] (k ascending, each product
// rounded to float32) for len(acc) a multiple of 8: matmulCore's row form
// eight columns per instruction.
func axpyRows(a, b []float32, sr int, acc []float32) {
	if chunks := axpyChunks(a, b, sr, acc); chunks > 0 {
		axpyRowsAVX(&a[0], &b[0], sr, len(a), chunks, &acc[0])
	}
}

// axpyChunks is how many groups of eight columns an axpy kernel's vector
// loop runs over acc (len(acc)/8; 0 when a is empty, acc then cleared, the
// empty sum), after checking that every row of b it reads (row k at k*sr)
// is in range, since the vector loop's loads are unchecked.
func axpyChunks[T float32 | uint16](a []float32, b []T, sr int, acc []float32) int {
	chunks := len(acc) / 8
	if chunks == 0 {
		return 0
	}
	if len(a) == 0 {
		clear(acc)
		return 0
	}
	_ = b[(len(a)-1)*sr+chunks*8-1] // every row in range before the unchecked loads
	return chunks
}

// dot8RoundedH computes dot4RoundedH (numerics_linalg.go) for rows 0-3 and
// 4-7 of h (row r at r*stride): every product rounded to fp16, the rounded
// products summed in float32 in k order, eight rows per pass. A product of
// two halves is exact in float32, so F16C's round trip is roundProd's
// rounding, and for any float32 but a NaN whose payload has bits below a
// half's ten (the vector form drops them, roundProd keeps them): callers
// recompute NaN sums with the scalar kernel (redoNaN, numerics_linalg.go).
// Operand order as dot8h, which is dot4RoundedH's too
// (TestDot8RoundedHMatchesScalar).
func dot8RoundedH(x []float32, h []uint16, stride int, out *[8]float32) {
	K := len(x)
	if K == 0 {
		*out = [8]float32{}
		return
	}
	_ = h[7*stride+K-1] // every row in range before the unchecked loads
	row := func(r int) []uint16 { return h[r*stride : r*stride+K] }
	if !useDot8 {
		out[0], out[1], out[2], out[3] = dot4RoundedH(x, row(0), row(1), row(2), row(3))
		out[4], out[5], out[6], out[7] = dot4RoundedH(x, row(4), row(5), row(6), row(7))
		return
	}
	k0 := K / 8 * 8
	dot8RoundedHAVX(&x[0], &h[0], stride, K/8, out)
	for g := 0; g < 8; g += 4 {
		tail4RoundedH(out[g:g+4], x[k0:], row(g)[k0:], row(g + 1)[k0:], row(g + 2)[k0:], row(g + 3)[k0:])
	}
}

// tail4RoundedH continues four of dot4RoundedH's sums over the last
// elements; its loop is dot4RoundedH's, so the compiled operand order is
// the same.
func tail4RoundedH(s []float32, x []float32, h0, h1, h2, h3 []uint16) {
	n := len(x)
	h0, h1, h2, h3 = h0[:n], h1[:n], h2[:n], h3[:n]
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
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
	s[0], s[1], s[2], s[3] = s0, s1, s2, s3
}

// axpyRoundedRows sets acc[t] = Σ_k half(b[k*sr+t]·a[k]) (k ascending, each
// product rounded to fp16 as roundProd does) for len(acc) a multiple of 8:
// the rounded matmul's row form (mmRoundedRowsStream) eight columns per
// instruction. As for dot8RoundedH, a row whose sums end NaN is for the
// scalar kernel (redoNaN, numerics_linalg.go).
func axpyRoundedRows(a, b []float32, sr int, acc []float32) {
	if chunks := axpyChunks(a, b, sr, acc); chunks > 0 {
		axpyRoundedRowsAVX(&a[0], &b[0], sr, len(a), chunks, &acc[0])
	}
}

// axpyRoundedRowsH is axpyRoundedRows with b raw f16 (a K×N weight).
func axpyRoundedRowsH(a []float32, b []uint16, sr int, acc []float32) {
	if chunks := axpyChunks(a, b, sr, acc); chunks > 0 {
		axpyRoundedRowsHAVX(&a[0], &b[0], sr, len(a), chunks, &acc[0])
	}
}

// widen16h sets wt[16k+r] = w_r[k] for the sixteen raw-f16 rows of h (row
// r at r*stride) and k < K: the weight block widened once, k-major, for
// lanes16x4. Whole groups of eight k convert as dot16hAVX does (F16C), the
// rest as tail4h does (f16.ToFloat32), so every float is the one the
// one-lane kernels multiply.
func widen16h(h []uint16, stride, K int, wt []float32) {
	if K == 0 {
		return
	}
	_ = h[15*stride+K-1] // every row in range before the unchecked loads
	_ = wt[16*K-1]
	k0 := 0
	if useDot8 && K >= 8 {
		k0 = K / 8 * 8
		tr16hAVX(&h[0], stride, K/8, &wt[0])
	}
	for k := k0; k < K; k++ {
		for r := range 16 {
			wt[16*k+r] = f16.ToFloat32(h[r*stride+k])
		}
	}
}

// lanes16x4 sets acc[16l+r] = Σ_k float32(w_r[k]·x_l[k]) (k ascending; with
// rounded, each product rounded to fp16 first) for the sixteen rows widened
// in wt (widen16h) and four activations, lane l at x[l*stride:], K long:
// dot16h's (or dot8RoundedH's) sums, bit for bit but for a rounded sum that
// ends NaN (redoNaN's case; the caller redoes it). Only with the vector
// kernel (useDot8).
func lanes16x4(wt []float32, K int, x []float32, stride int, acc *[64]float32, rounded bool) {
	if K == 0 {
		*acc = [64]float32{}
		return
	}
	_ = wt[16*K-1]
	_ = x[3*stride+K-1] // every lane in range before the unchecked loads
	if rounded {
		lanes16x4RoundedAVX(&wt[0], K, &x[0], stride, acc)
		return
	}
	lanes16x4AVX(&wt[0], K, &x[0], stride, acc)
}
