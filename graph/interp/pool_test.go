package interp

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// A panic in a worker goroutine (a fault in a mapped weight, an index out
// of range in a kernel) reaches the goroutine that waits for the workers,
// so that Run's catchFault turns it into an error instead of the process
// dying: goWorkers itself, and matmul's pool under both profiles with an
// output too short for its work items.
func TestWorkerPanicReachesCaller(t *testing.T) {
	caught := func(f func()) (r any) {
		defer func() { r = recover() }()
		f()
		return nil
	}
	var ran atomic.Int64
	if r := caught(func() {
		goWorkers(4, func(w int) {
			ran.Add(1)
			if w == 2 {
				panic("worker 2")
			}
		})
	}); r != "worker 2" || ran.Load() != 4 {
		t.Fatalf("goWorkers: recovered %v after %d workers, want the panic of worker 2 after all 4", r, ran.Load())
	}
	const M, N, K = 8, 64, 64 // M·N·K = 2^15: split cuts it
	a := mat{f: make([]float32, M*K), sr: K, sc: 1}
	b := mat{f: make([]float32, K*N), sr: N, sc: 1}
	items := split(M, N, K, 2, mmItem{})
	if len(items) < 2 {
		t.Fatalf("%d work items: the test needs the parallel path", len(items))
	}
	for _, ane := range []bool{false, true} {
		short := make([]float32, M*N-1)
		r := caught(func() { matmulCore(a, b, M, N, K, items, short, F32, false, ane, 2) })
		if _, ok := r.(runtime.Error); !ok {
			t.Errorf("ane=%v: recovered %v, want the worker's runtime error", ane, r)
		}
	}
}
