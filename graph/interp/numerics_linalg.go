package interp

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// matmulRounded is matmulCore under the Neural Engine profile
// (numerics.go, rules fp16-operands-products and wide-accumulator): each
// product A(i,k)·B(k,j) is rounded to fp16, the rounded products are summed
// in float32 sequentially over k, and the sum is rounded to outEl. It is a
// kernel of its own so that the IEEE kernels stay as they are.
func matmulRounded(A, B mat, M, N, K int, items []mmItem, out []float32, outEl Elem, workers int) {
	rowForm := B.sc == 1 && N >= 16 // B contiguous along j: stream rows of B
	run := func(it mmItem, bufA []float32, bufB [4][]float32, acc []float32) {
		if rowForm {
			n := it.j1 - it.j0
			acc = acc[:n]
			for i := it.i0; i < it.i1; i++ {
				clear(acc)
				for k := 0; k < K; k++ {
					av := A.at(it.aoff + A.off + i*A.sr + k*A.sc)
					brow := B.load(bufB[0], it.boff+B.off+k*B.sr+it.j0, n, 1)
					for t, bv := range brow {
						acc[t] += roundProd(av * bv)
					}
				}
				o := out[it.ooff+i*N+it.j0 : it.ooff+i*N+it.j1]
				for t, v := range acc {
					o[t] = outEl.round(v)
				}
			}
			return
		}
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
				c0, c1, c2, c3 = c0[:len(arow)], c1[:len(arow)], c2[:len(arow)], c3[:len(arow)]
				var s0, s1, s2, s3 float32
				for k, av := range arow {
					s0 += roundProd(av * c0[k])
					s1 += roundProd(av * c1[k])
					s2 += roundProd(av * c2[k])
					s3 += roundProd(av * c3[k])
				}
				o := out[it.ooff+i*N+j : it.ooff+i*N+j+4]
				o[0], o[1], o[2], o[3] = outEl.round(s0), outEl.round(s1), outEl.round(s2), outEl.round(s3)
			}
			for ; j < it.j1; j++ {
				col := B.load(bufB[0], it.boff+B.off+j*B.sc, K, B.sr)
				var s float32
				for k, av := range arow {
					s += roundProd(av * col[k])
				}
				out[it.ooff+i*N+j] = outEl.round(s)
			}
		}
	}
	bufs := func() ([]float32, [4][]float32, []float32) {
		var b [4][]float32
		for i := range b {
			b[i] = make([]float32, max(K, N))
		}
		return make([]float32, K), b, make([]float32, N)
	}
	if workers <= 1 || len(items) == 1 {
		a, b, c := bufs()
		for _, it := range items {
			run(it, a, b, c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var wp workerPanic // a fault in a mapped weight reaches Run (fault.go)
	for w := 0; w < min(workers, len(items)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer wp.guard()
			defer debug.SetPanicOnFault(panicOnFault())
			a, b, c := bufs()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(items) {
					return
				}
				run(items[k], a, b, c)
			}
		}()
	}
	wg.Wait()
	wp.rethrow()
}
