package interp

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/anefix/anefix/graph/f16"
)

// mat is a strided view of a float operand that may still be raw f16 bytes
// (a weight used in place). Element (r, c) lives at off + r*sr + c*sc.
type mat struct {
	f           []float32
	h           []uint16
	off, sr, sc int
	// reads, when set, counts the bytes of a weight (a tensor still in its
	// blob) the kernels read from this view: Interp.WeightBytesRead.
	reads *atomic.Int64
	// widened, when set, counts the elements of a raw-f16 weight the
	// kernels convert to float32: Interp.WeightElemsWidened.
	widened *atomic.Int64
}

// counts are the counters a kernel's weight views add to (Interp.weightReads
// and Interp.weightWidened); nil counts nothing.
type counts struct{ reads, widened *atomic.Int64 }

// counted sets m to count its reads and widenings into c when t is a
// weight in place.
func (m mat) counted(t *Tensor, c *counts) mat {
	if c != nil && t.FromWeight() {
		m.reads = c.reads
		if m.h != nil {
			m.widened = c.widened
		}
	}
	return m
}

// widen adds n elements converted from f16 to m's count.
func (m *mat) widen(n int) {
	if m.widened != nil {
		m.widened.Add(int64(n))
	}
}

// tally adds n elements read from m to its count.
func (m *mat) tally(n int) {
	if m.reads == nil {
		return
	}
	eb := 4
	if m.h != nil {
		eb = 2
	}
	m.reads.Add(int64(n * eb))
}

// viewOf views t row-major, widening a lazily transposed weight first.
func viewOf(t *Tensor) mat {
	if t.rawT {
		return mat{f: t.Floats()}
	}
	return rawView(t)
}

// rawView keeps a raw weight in place, transposed or not; only MatMul,
// which honours rawT through its strides, uses it directly.
func rawView(t *Tensor) mat {
	if t.F == nil && t.raw != nil {
		switch t.rawEl {
		case F16:
			return mat{h: u16s(t.raw)}
		case F32:
			return mat{f: f32s(t.raw)}
		}
	}
	return mat{f: t.Floats()}
}

func (m *mat) at(i int) float32 {
	if m.h != nil {
		return f16.ToFloat32(m.h[i])
	}
	return m.f[i]
}

// load returns n elements starting at index start with the given stride,
// either in place or converted into buf.
func (m *mat) load(buf []float32, start, n, stride int) []float32 {
	m.tally(n)
	if m.h == nil && stride == 1 {
		return m.f[start : start+n]
	}
	buf = buf[:n]
	if m.h != nil {
		m.widen(n)
		h := m.h
		if stride == 1 {
			h = h[start : start+n]
			for t, v := range h {
				buf[t] = f16.ToFloat32(v)
			}
			return buf
		}
		for t := range buf {
			buf[t] = f16.ToFloat32(h[start+t*stride])
		}
		return buf
	}
	for t := range buf {
		buf[t] = m.f[start+t*stride]
	}
	return buf
}

// workers is the default parallelism of matmul and conv.
var workers = runtime.GOMAXPROCS(0)

type mmItem struct{ boff, aoff, ooff, i0, i1, j0, j1 int }

// mmScratch is one worker's buffers, each made when a kernel first asks
// for it (a wide product such as an lm_head would otherwise allocate
// N-long buffers its kernel never touches): a row of A (rowA, K long), up
// to four columns or rows of B (colsB, max(K, N) long; the IEEE kernels use
// the first only) and an output row's sums (sums, N long); tile and lanes,
// taken when a batch of activations meets a raw-f16 weight (gemvHLanes),
// go back to tiles when the worker is done.
type mmScratch struct {
	K, N, cols  int
	a, acc      []float32
	b           [4][]float32
	tile, lanes *[]float32
}

func newScratch(K, N, cols int) *mmScratch { return &mmScratch{K: K, N: N, cols: cols} }

func (s *mmScratch) rowA() []float32 {
	if s.a == nil {
		s.a = make([]float32, s.K)
	}
	return s.a
}

func (s *mmScratch) sums() []float32 {
	if s.acc == nil {
		s.acc = make([]float32, s.N)
	}
	return s.acc
}

func (s *mmScratch) colsB() [4][]float32 {
	if s.b[0] == nil {
		for i := range s.cols {
			s.b[i] = make([]float32, max(s.K, s.N))
		}
	}
	return s.b
}

// tiles pools gemvHLanes' buffers (a widened block of sixteen weight rows
// is 64·K bytes): one per matmul per position would otherwise be most of
// what a batch of streams allocates.
var tiles sync.Pool

// buf returns *p at least n long, taken from tiles on first use.
func (s *mmScratch) buf(p **[]float32, n int) []float32 {
	if *p == nil {
		if v, ok := tiles.Get().(*[]float32); ok {
			*p = v
		} else {
			*p = new([]float32)
		}
	}
	if cap(**p) < n {
		**p = make([]float32, n)
	}
	return (**p)[:n]
}

// release returns the pooled buffers.
func (s *mmScratch) release() {
	for _, p := range []**[]float32{&s.tile, &s.lanes} {
		if *p != nil {
			tiles.Put(*p)
			*p = nil
		}
	}
}

// matmulCore computes out[o + i*N + j] = Σ_k A(i,k)·B(k,j) for every work
// item: products in float32, sequential float32 sums over k (or rounded to
// half after each addition with acc16), rounded to outEl at the end; with
// ane, under the Neural Engine profile (each product rounded to fp16
// first, numerics_linalg.go). Work items run serially with one worker or
// one item, else on up to workers goroutines that each take the next item.
func matmulCore(A, B mat, M, N, K int, items []mmItem, out []float32, outEl Elem, acc16, ane bool, workers int) {
	run := mmKernel(A, B, N, K, out, outEl, acc16, ane)
	cols := 1 // columns of B a worker buffers at once
	if ane {
		cols = 4
	}
	if workers <= 1 || len(items) == 1 {
		s := newScratch(K, N, cols)
		for _, it := range items {
			run(it, s)
		}
		s.release()
		return
	}
	var next atomic.Int64
	goWorkers(min(workers, len(items)), func(int) {
		s := newScratch(K, N, cols)
		defer s.release()
		for {
			k := int(next.Add(1)) - 1
			if k >= len(items) {
				return
			}
			run(items[k], s)
		}
	})
}

// mmKernel picks matmulCore's kernel for the operands' layout and the
// profile: rows of B streamed when B is contiguous along j, raw f16
// weights dotted in place (gemvH), else the general dot product.
func mmKernel(A, B mat, N, K int, out []float32, outEl Elem, acc16, ane bool) func(mmItem, *mmScratch) {
	if ane {
		acc16 = false // the profile's accumulator is its own (numerics.go)
	}
	switch {
	case B.sc == 1 && N >= 16: // B contiguous along j: stream rows of B
		if ane {
			return func(it mmItem, s *mmScratch) {
				mmRoundedRowsStream(A, B, N, K, it, s.rowA(), s.colsB(), s.sums(), out, outEl)
			}
		}
		return func(it mmItem, s *mmScratch) {
			mmRowsStream(A, B, N, K, it, s.rowA(), s.colsB()[0], s.sums(), out, outEl, acc16)
		}
	case !acc16 && A.h != nil && A.sc == 1 && B.h == nil:
		return func(it mmItem, s *mmScratch) { mmWeightRows(A, B, N, K, it, s, out, outEl, ane) }
	case !acc16 && B.h != nil && B.sr == 1 && A.h == nil:
		return func(it mmItem, s *mmScratch) { mmWeightCols(A, B, N, K, it, s, out, outEl, ane) }
	case ane:
		return func(it mmItem, s *mmScratch) { mmRoundedDot(A, B, N, K, it, s.rowA(), s.colsB(), out, outEl) }
	}
	return func(it mmItem, s *mmScratch) { mmDot(A, B, N, K, it, s.rowA(), s.colsB()[0], out, outEl, acc16) }
}

// mmRowsStream computes one work item with B contiguous along j: each
// output row accumulates whole rows of B scaled by A(i,k), k in order.
func mmRowsStream(A, B mat, N, K int, it mmItem, bufA, bufB, acc []float32, out []float32, outEl Elem, acc16 bool) {
	n := it.j1 - it.j0
	acc = acc[:n]
	// With the vector kernel, whole groups of eight columns of a
	// float B run in axpyRows (gemv_amd64.s); the rest, below.
	v := 0
	if useDot8 && !acc16 && B.h == nil {
		v = n / 8 * 8
	}
	for i := it.i0; i < it.i1; i++ {
		clear(acc)
		if v > 0 {
			arow := A.load(bufA, it.aoff+A.off+i*A.sr, K, A.sc)
			axpyRows(arow, B.f[it.boff+B.off+it.j0:], B.sr, acc[:v])
		}
		if v == n {
			goto rowDone
		}
		for k := 0; k < K; k++ {
			av := A.at(it.aoff + A.off + i*A.sr + k*A.sc)
			brow := B.load(bufB, it.boff+B.off+k*B.sr+it.j0+v, n-v, 1)
			acc := acc[v:]
			if acc16 {
				for t, bv := range brow {
					acc[t] = f16.Round32(acc[t] + float32(av*bv))
				}
			} else {
				for t, bv := range brow {
					acc[t] += float32(av * bv)
				}
			}
		}
	rowDone:
		o := out[it.ooff+i*N+it.j0 : it.ooff+i*N+it.j1]
		copy(o, acc)
		roundInPlace(outEl, o) // outEl.round per element (rows.go)
	}
}

// mmWeightRows computes one work item of raw-f16 contiguous weight rows
// (A) times activation columns (B): each output column is one gemvH;
// rounded selects the Neural Engine profile's kernels. With several
// columns (a batch of streams, RunLanes) and the vector kernel, gemvHLanes
// widens each block of rows once for every column; without it the rows
// are taken a block at a time for every column, so the weight streams from
// memory once, not once per column; the blocks are multiples of sixteen
// rows, so gemvH splits each row into the same kernels as for the whole
// item. Either way every sum is the one-column sum bit for bit.
func mmWeightRows(A, B mat, N, K int, it mmItem, s *mmScratch, out []float32, outEl Elem, rounded bool) {
	h := A.h[it.aoff+A.off+it.i0*A.sr:]
	A.tally((it.i1 - it.i0) * K)
	n := it.i1 - it.i0
	o := out[it.ooff+it.i0*N+it.j0:]
	if L := it.j1 - it.j0; L > 1 && useDot8 && K > 0 {
		xs, xstride := lanesOf(&B, s, it.boff+B.off+it.j0*B.sc, L, K, B.sc, B.sr)
		gemvHLanes(xs, xstride, L, h, A.sr, n, o, N, 1, outEl, rounded, s, &A)
		return
	}
	blk := n
	if it.j1-it.j0 > 1 {
		blk = weightBlockRows
	}
	for r0 := 0; r0 < n; r0 += blk {
		rows := min(blk, n-r0)
		for j := it.j0; j < it.j1; j++ {
			x := B.load(s.colsB()[0], it.boff+B.off+j*B.sc, K, B.sr)
			A.widen(rows * K)
			gemvH(x, h[r0*A.sr:], A.sr, rows, out[it.ooff+(it.i0+r0)*N+j:], N, outEl, rounded)
		}
	}
}

// weightBlockRows is how many weight rows (or columns) mmWeightRows and
// mmWeightCols finish for every activation before the next: 32 rows of a
// 4096-wide f16 weight are 256 KiB, within a core's L2 cache.
const weightBlockRows = 32

// mmWeightCols computes one work item of activation rows (A) times raw-f16
// weight columns stored contiguously (B; a transposed weight such as a tied
// lm_head): each output row is one gemvH; rounded selects the Neural Engine
// profile's kernels. Several rows share each widened block of the weight
// (gemvHLanes) or, without the vector kernel, take the weight a block at a
// time, as mmWeightRows does.
func mmWeightCols(A, B mat, N, K int, it mmItem, s *mmScratch, out []float32, outEl Elem, rounded bool) {
	h := B.h[it.boff+B.off+it.j0*B.sc:]
	B.tally((it.j1 - it.j0) * K)
	n := it.j1 - it.j0
	if L := it.i1 - it.i0; L > 1 && useDot8 && K > 0 {
		xs, xstride := lanesOf(&A, s, it.aoff+A.off+it.i0*A.sr, L, K, A.sr, A.sc)
		gemvHLanes(xs, xstride, L, h, B.sc, n, out[it.ooff+it.i0*N+it.j0:], 1, N, outEl, rounded, s, &B)
		return
	}
	blk := n
	if it.i1-it.i0 > 1 {
		blk = weightBlockRows
	}
	for c0 := 0; c0 < n; c0 += blk {
		cols := min(blk, n-c0)
		for i := it.i0; i < it.i1; i++ {
			x := A.load(s.rowA(), it.aoff+A.off+i*A.sr, K, A.sc)
			B.widen(cols * K)
			gemvH(x, h[c0*B.sc:], B.sc, cols, out[it.ooff+i*N+it.j0+c0:], 1, outEl, rounded)
		}
	}
}

// lanesOf returns L activation vectors of m, K long, vector l starting at
// start + l*lstride with its elements estride apart, as one slice with the
// vectors xstride apart: m's own floats when they lie that way, else
// copies (widened if raw) in s.
func lanesOf(m *mat, s *mmScratch, start, L, K, lstride, estride int) (xs []float32, xstride int) {
	if m.h == nil && estride == 1 && lstride >= K && start+(L-1)*lstride+K <= len(m.f) {
		m.tally(L * K)
		return m.f[start : start+(L-1)*lstride+K], lstride
	}
	buf := s.buf(&s.lanes, L*K)
	for l := range L {
		m.load(buf[l*K:(l+1)*K], start+l*lstride, K, estride)
	}
	return buf, K
}

// gemvHLanes is gemvH for L activations at once (lane l at xs[l*xstride:],
// K = len of each; its outputs at o[l*lstride + r*ostride]): each block of
// sixteen raw-f16 rows is widened once (widen16h) and applied to four
// lanes at a time (lanes16x4, a padded copy for a last group of fewer), so
// the weight is converted once for all lanes, not once per lane. Every sum
// is gemvH's for that lane bit for bit: the same float32 products summed
// sequentially over k (a rounded sum that ends NaN is redone by the scalar
// kernel, as redoNaN does). Rows past the last whole block run in gemvH,
// lane by lane. w counts the widening.
func gemvHLanes(xs []float32, xstride, L int, h []uint16, hstride, n int, o []float32, ostride, lstride int, outEl Elem, rounded bool, s *mmScratch, w *mat) {
	K := len(xs) - (L-1)*xstride
	lane := func(l int) []float32 { return xs[l*xstride : l*xstride+K] }
	full := n / 16 * 16
	if full > 0 {
		// Groups of four lanes as (data, stride); a last group of fewer
		// lanes repeats its last lane in a copy.
		type group struct {
			x      []float32
			stride int
		}
		var groups []group
		for g := 0; g < L; g += 4 {
			if g+4 <= L {
				groups = append(groups, group{xs[g*xstride:], xstride})
				continue
			}
			pad := make([]float32, 4*K)
			for t := range 4 {
				copy(pad[t*K:(t+1)*K], lane(min(g+t, L-1)))
			}
			groups = append(groups, group{pad, K})
		}
		wt := s.buf(&s.tile, 16*K)
		var acc [64]float32
		for r0 := 0; r0 < full; r0 += 16 {
			w.widen(16 * K)
			widen16h(h[r0*hstride:], hstride, K, wt)
			for gi, g := range groups {
				lanes16x4(wt, K, g.x, g.stride, &acc, rounded)
				for t := range min(4, L-4*gi) {
					l := 4*gi + t
					a := acc[16*t : 16*t+16]
					if rounded {
						for r, v := range a {
							if v != v {
								row := h[(r0+r)*hstride : (r0+r)*hstride+K]
								a[r], _, _, _ = dot4RoundedH(lane(l), row, row, row, row)
							}
						}
					}
					storeRounded(o[l*lstride:], r0, ostride, a, outEl)
				}
			}
		}
	}
	if full < n {
		for l := range L {
			w.widen((n - full) * K)
			gemvH(lane(l), h[full*hstride:], hstride, n-full, o[l*lstride+full*ostride:], ostride, outEl, rounded)
		}
	}
}

// storeRounded sets o[(at+t)*stride] = outEl.round(v[t]); a contiguous
// run rounds in place, eight at a time for f16 (roundInPlace, rows.go).
func storeRounded(o []float32, at, stride int, v []float32, outEl Elem) {
	if stride == 1 {
		dst := o[at : at+len(v)]
		copy(dst, v)
		roundInPlace(outEl, dst)
		return
	}
	for t, x := range v {
		o[(at+t)*stride] = outEl.round(x)
	}
}

// gemvH sets o[r*ostride] = outEl.round(x·row r) for the n raw-f16 rows
// of h (row r at r*hstride, len(x) long), each row summed sequentially over
// k: sixteen rows at a time with the vector kernel where the CPU has one
// (dot16h, gemv_amd64.s), then eight, then four for instruction-level
// parallelism, then one. rounded is the Neural Engine profile: every
// product rounded to fp16 (dot8RoundedH and dot4RoundedH,
// numerics_linalg.go; eight rows at most, and a NaN sum of the vector
// kernel summed again by the scalar one, redoNaN). The kernels are called
// directly, not through function values, so that o8 and o16 stay on the
// stack.
func gemvH(x []float32, h []uint16, hstride, n int, o []float32, ostride int, outEl Elem, rounded bool) {
	K := len(x)
	var o8 [8]float32
	var o16 [16]float32
	r := 0
	for ; useDot8 && !rounded && r+16 <= n; r += 16 {
		base := r * hstride
		dot16h(x, h[base:base+15*hstride+K], hstride, &o16)
		storeRounded(o, r, ostride, o16[:], outEl)
	}
	for ; useDot8 && r+8 <= n; r += 8 {
		base := r * hstride
		rows := h[base : base+7*hstride+K]
		if rounded {
			dot8RoundedH(x, rows, hstride, &o8)
			redoNaN(&o8, x, rows, hstride)
		} else {
			dot8h(x, rows, hstride, &o8)
		}
		storeRounded(o, r, ostride, o8[:], outEl)
	}
	for ; r+4 <= n; r += 4 {
		base := r * hstride
		h0, h1, h2, h3 := h[base:base+K], h[base+hstride:base+hstride+K], h[base+2*hstride:base+2*hstride+K], h[base+3*hstride:base+3*hstride+K]
		var s0, s1, s2, s3 float32
		if rounded {
			s0, s1, s2, s3 = dot4RoundedH(x, h0, h1, h2, h3)
		} else {
			s0, s1, s2, s3 = dot4h(x, h0, h1, h2, h3)
		}
		o4 := [4]float32{s0, s1, s2, s3}
		storeRounded(o, r, ostride, o4[:], outEl)
	}
	for ; r < n; r++ {
		row := h[r*hstride : r*hstride+K]
		var s float32
		if rounded {
			s, _, _, _ = dot4RoundedH(x, row, row, row, row)
		} else {
			s = dot1h(x, row)
		}
		o[r*ostride] = outEl.round(s)
	}
}

// mmDot computes one work item by the general path: one sequential dot
// product over k per output element. When B is a weight in place and A is
// not, each column of B is loaded once for all rows of A (a batch of
// streams reads the weight once); the sums are the same either way.
func mmDot(A, B mat, N, K int, it mmItem, bufA, bufB []float32, out []float32, outEl Elem, acc16 bool) {
	dot := func(arow, bcol []float32) float32 {
		var s float32
		if acc16 {
			for k, av := range arow {
				s = f16.Round32(s + float32(av*bcol[k]))
			}
		} else {
			for k, av := range arow {
				s += float32(av * bcol[k])
			}
		}
		return s
	}
	if B.reads != nil && A.reads == nil && it.i1-it.i0 > 1 {
		for j := it.j0; j < it.j1; j++ {
			bcol := B.load(bufB, it.boff+B.off+j*B.sc, K, B.sr)
			for i := it.i0; i < it.i1; i++ {
				arow := A.load(bufA, it.aoff+A.off+i*A.sr, K, A.sc)
				out[it.ooff+i*N+j] = outEl.round(dot(arow, bcol))
			}
		}
		return
	}
	for i := it.i0; i < it.i1; i++ {
		arow := A.load(bufA, it.aoff+A.off+i*A.sr, K, A.sc)
		for j := it.j0; j < it.j1; j++ {
			bcol := B.load(bufB, it.boff+B.off+j*B.sc, K, B.sr)
			out[it.ooff+i*N+j] = outEl.round(dot(arow, bcol))
		}
	}
}

// split cuts the M×N output of one batch into work items so that each
// worker gets a share of large products and small ones stay serial.
func split(M, N, K, workers int, base mmItem) []mmItem {
	work := M * N * K
	parts := 1
	if workers > 1 && work >= 1<<15 {
		parts = min(4*workers, max(M, N))
	}
	var out []mmItem
	// Steps of whole blocks of sixteen (along an axis that long): the f16
	// kernels take sixteen rows at a time (gemvH, gemvHLanes), and an
	// item's ragged end runs in narrower ones.
	blocks := func(step, dim int) int {
		if dim >= 16 {
			return max(16, (step+15)/16*16)
		}
		return step
	}
	if N >= M {
		step := blocks((N+parts-1)/parts, N)
		for j := 0; j < N; j += step {
			it := base
			it.i0, it.i1, it.j0, it.j1 = 0, M, j, min(N, j+step)
			out = append(out, it)
		}
	} else {
		step := blocks((M+parts-1)/parts, M)
		for i := 0; i < M; i += step {
			it := base
			it.i0, it.i1, it.j0, it.j1 = i, min(M, i+step), 0, N
			out = append(out, it)
		}
	}
	return out
}

// matMul multiplies [..., M, K] by [..., K, N] with numpy batch
// broadcasting (transposeA/B swap the last two axes of an operand; a rank-1
// operand is a row or column vector whose unit axis is dropped). ane
// rounds every product to fp16 before the float32 sum (the Neural Engine
// profile, numerics.go).
// reads, when set, counts the weight bytes the kernels read and the f16
// weight elements they widen.
func matMul(a, b *Tensor, transposeA, transposeB bool, out Elem, acc16, ane bool, reads *counts) (*Tensor, error) {
	if !a.Elem.IsFloat() || !b.Elem.IsFloat() {
		return nil, fmt.Errorf("matmul of %s and %s: only float operands are supported", a, b)
	}
	as, bs := a.Shape, b.Shape
	vecA, vecB := len(as) == 1, len(bs) == 1
	if vecA {
		as = []int{1, as[0]}
		transposeA = false
	}
	if vecB {
		bs = []int{bs[0], 1}
		transposeB = false
	}
	if len(as) < 2 || len(bs) < 2 {
		return nil, fmt.Errorf("matmul of rank-0 operand")
	}
	ra, rb := len(as), len(bs)
	// Logical row/column strides of each operand's last two axes; a lazily
	// transposed weight (rawT) is column-major.
	sam, sak := as[ra-1], 1
	if a.rawT {
		sam, sak = 1, as[ra-2]
	}
	sbk, sbn := bs[rb-1], 1
	if b.rawT {
		sbk, sbn = 1, bs[rb-2]
	}
	M, K := as[ra-2], as[ra-1]
	if transposeA {
		M, K = K, M
		sam, sak = sak, sam
	}
	K2, N := bs[rb-2], bs[rb-1]
	if transposeB {
		K2, N = N, K2
		sbk, sbn = sbn, sbk
	}
	if K != K2 {
		return nil, fmt.Errorf("matmul: contracting dimensions differ (%v × %v)", a.Shape, b.Shape)
	}
	batch, err := broadcastShape(as[:ra-2], bs[:rb-2])
	if err != nil {
		return nil, fmt.Errorf("matmul batch: %w", err)
	}
	A, B := rawView(a).counted(a, reads), rawView(b).counted(b, reads)
	A.sr, A.sc = sam, sak
	B.sr, B.sc = sbk, sbn
	res := make([]float32, numel([]int{numel(batch), M, N}))
	var items []mmItem
	forEachBroadcast(batch, [][]int{as[:ra-2], bs[:rb-2]}, func(o int, idx []int) {
		items = append(items, split(M, N, K, workers, mmItem{aoff: idx[0] * M * K, boff: idx[1] * K * N, ooff: o * M * N})...)
	})
	matmulCore(A, B, M, N, K, items, res, out, acc16, ane, workers)
	shape := append(append([]int(nil), batch...), M, N)
	switch {
	case vecA && vecB:
		shape = batch
	case vecA:
		shape = append(append([]int(nil), batch...), N)
	case vecB:
		shape = append(append([]int(nil), batch...), M)
	}
	return NewFloat(out, shape, res), nil
}

// convParams are 2-D convolution attributes (NCHW input, OIHW weight).
type convParams struct {
	Strides   [2]int
	Dilations [2]int
	Pads      [4]int // top, bottom, left, right
	Groups    int
}

// conv is a 2-D convolution (rank-3 NCW inputs are treated as H=1). Each
// output accumulates in float32 over input channel, kernel row, kernel
// column in that order; a 1×1 stride-1 unpadded conv runs as a matmul with
// the weight used in place. ane rounds every product to fp16 before the
// float32 sum (the Neural Engine profile, numerics.go).
// reads, when set, counts the weight bytes the kernels read and the f16
// weight elements they widen.
func conv(x, w, bias *Tensor, p convParams, out Elem, acc16, ane bool, reads *counts) (*Tensor, error) {
	xs, ws := x.Shape, w.Shape
	conv1d := len(xs) == 3
	if conv1d {
		xs = []int{xs[0], xs[1], 1, xs[2]}
		if len(ws) == 3 {
			ws = []int{ws[0], ws[1], 1, ws[2]}
		}
	}
	if len(xs) != 4 || len(ws) != 4 {
		return nil, fmt.Errorf("conv: input %v and weight %v must be rank 4 (NCHW, OIHW) or 3", x.Shape, w.Shape)
	}
	g := max(p.Groups, 1)
	Nb, C, H, W := xs[0], xs[1], xs[2], xs[3]
	O, Cg, KH, KW := ws[0], ws[1], ws[2], ws[3]
	if C != Cg*g || O%g != 0 {
		return nil, fmt.Errorf("conv: %d input channels, weight %v, groups %d do not match", C, w.Shape, g)
	}
	sh, sw := max(p.Strides[0], 1), max(p.Strides[1], 1)
	dh, dw := max(p.Dilations[0], 1), max(p.Dilations[1], 1)
	OH := (H+p.Pads[0]+p.Pads[1]-dh*(KH-1)-1)/sh + 1
	OW := (W+p.Pads[2]+p.Pads[3]-dw*(KW-1)-1)/sw + 1
	if OH <= 0 || OW <= 0 {
		return nil, fmt.Errorf("conv: empty output for input %v, weight %v", x.Shape, w.Shape)
	}
	res := make([]float32, numel([]int{Nb, O, OH, OW}))
	if KH == 1 && KW == 1 && g == 1 && sh == 1 && sw == 1 && p.Pads == [4]int{} && H*W == 1 && Nb > 1 {
		// A batch of single positions (the streams of RunLanes): out =
		// X[Nb×C] · Wᵀ[C×O], the weight's rows as columns, so one pass over
		// the weight serves every row of X. Each sum is the same products
		// in the same order as the per-row path below.
		A, B := viewOf(x), viewOf(w).counted(w, reads)
		A.sr, A.sc = C, 1
		B.sr, B.sc = 1, C
		matmulCore(A, B, Nb, O, C, split(Nb, O, C, workers, mmItem{}), res, out, acc16, ane, workers)
	} else if KH == 1 && KW == 1 && g == 1 && sh == 1 && sw == 1 && p.Pads == [4]int{} {
		// out[n] = W[O×C] · X[n][C×HW]
		A, B := viewOf(w).counted(w, reads), viewOf(x)
		A.sr, A.sc = C, 1
		B.sr, B.sc = H*W, 1
		var items []mmItem
		for n := 0; n < Nb; n++ {
			items = append(items, split(O, H*W, C, workers, mmItem{boff: n * C * H * W, ooff: n * O * H * W})...)
		}
		matmulCore(A, B, O, H*W, C, items, res, out, acc16, ane, workers)
	} else {
		xf, wf := x.Floats(), w.Floats()
		Og := O / g
		for n := 0; n < Nb; n++ {
			for o := 0; o < O; o++ {
				gi := o / Og
				for oh := 0; oh < OH; oh++ {
					for ow := 0; ow < OW; ow++ {
						var acc float32
						for c := 0; c < Cg; c++ {
							ic := gi*Cg + c
							for kh := 0; kh < KH; kh++ {
								ih := oh*sh - p.Pads[0] + kh*dh
								if ih < 0 || ih >= H {
									continue
								}
								for kw := 0; kw < KW; kw++ {
									iw := ow*sw - p.Pads[2] + kw*dw
									if iw < 0 || iw >= W {
										continue
									}
									prod := float32(xf[((n*C+ic)*H+ih)*W+iw] * wf[((o*Cg+c)*KH+kh)*KW+kw])
									if ane {
										prod = roundProd(prod)
									}
									acc += prod
									if acc16 {
										acc = f16.Round32(acc)
									}
								}
							}
						}
						res[((n*O+o)*OH+oh)*OW+ow] = out.round(acc)
					}
				}
			}
		}
	}
	if bias != nil {
		bf := bias.Floats()
		if len(bf) != O {
			return nil, fmt.Errorf("conv: bias has %d elements, want %d", len(bf), O)
		}
		for n := 0; n < Nb; n++ {
			for o := 0; o < O; o++ {
				s := res[(n*O+o)*OH*OW : (n*O+o+1)*OH*OW]
				for i := range s {
					s[i] = out.round(s[i] + bf[o])
				}
			}
		}
	}
	shape := []int{Nb, O, OH, OW}
	if conv1d {
		shape = []int{Nb, O, OW}
	}
	return NewFloat(out, shape, res), nil
}

// dot1h is Σ_k x[k]·h[k] with h raw f16: products rounded to float32, sums
// sequential in k (the interpreter's defined order).
func dot1h(x []float32, h []uint16) float32 {
	h = h[:len(x)]
	var s float32
	for k, v := range x {
		s += float32(v * f16.ToFloat32(h[k]))
	}
	return s
}

// dot4h computes four dot1h at once; the independent chains hide the add
// latency while each keeps its sequential order.
func dot4h(x []float32, h0, h1, h2, h3 []uint16) (s0, s1, s2, s3 float32) {
	n := len(x)
	h0, h1, h2, h3 = h0[:n], h1[:n], h2[:n], h3[:n]
	for k, v := range x {
		s0 += float32(v * f16.ToFloat32(h0[k]))
		s1 += float32(v * f16.ToFloat32(h1[k]))
		s2 += float32(v * f16.ToFloat32(h2[k]))
		s3 += float32(v * f16.ToFloat32(h3[k]))
	}
	return
}

func matmulOp(c opCall) (*Tensor, error) {
	if err := need(c.ins, 2); err != nil {
		return nil, err
	}
	ta, tb := matmulTransposes(c.op)
	return matMul(c.ins[0], c.ins[1], ta, tb, c.el, c.acc16, false, c.in.counts())
}

// convOp runs conv (1-D and 2-D) under the wide-accumulator rule of the
// Neural Engine profile when it is on and the result is f16.
func convOp(c opCall) (*Tensor, error) {
	op, ins := c.op, c.ins
	if err := need(ins, 2); err != nil {
		return nil, err
	}
	p := convParams{Strides: [2]int{1, 1}, Dilations: [2]int{1, 1}, Groups: 1}
	two := func(v []int64, dst *[2]int) {
		switch len(v) {
		case 1:
			dst[0], dst[1] = 1, int(v[0]) // 1-D conv: the spatial axis is W
		case 2:
			dst[0], dst[1] = int(v[0]), int(v[1])
		}
	}
	if v, ok := intArg(op, ins, 2, "strides"); ok {
		two(v, &p.Strides)
	}
	if v, ok := intArg(op, ins, 3, "dilations"); ok {
		two(v, &p.Dilations)
	}
	if v, ok := intArg(op, ins, 4, "groups"); ok && len(v) == 1 {
		p.Groups = int(v[0])
	}
	if v, ok := intArg(op, ins, 5, "pad"); ok {
		switch len(v) {
		case 2: // 1-D: left, right
			p.Pads = [4]int{0, 0, int(v[0]), int(v[1])}
		case 4:
			p.Pads = [4]int{int(v[0]), int(v[1]), int(v[2]), int(v[3])}
		}
	}
	var bias *Tensor
	if len(ins) > 6 {
		bias = ins[6]
	}
	return conv(ins[0], ins[1], bias, p, c.el, c.acc16, c.in.opts.ANE != nil && c.el == F16, c.in.counts())
}
