package interp

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"unsafe"
)

// Weights are mapped from their files (mapSection), so a file truncated or
// replaced under a running interpreter makes the next access fault
// (SIGBUS), which Go reports as "fatal error: fault" and a crash. Run sets
// debug.SetPanicOnFault on its goroutine and on every worker it starts,
// so that the fault is a panic, and turns it into an error naming the file.

// mapping is one mapped weight range, for naming the file of a fault.
type mapping struct {
	f         *os.File
	file      string
	off       int64 // file offset of data[0]
	base, end uintptr
}

// newMapping describes data mapped from f at off (nil when empty).
func newMapping(f *os.File, off int64, data []byte) *mapping {
	if len(data) == 0 {
		return nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return &mapping{f, f.Name(), off, p, p + uintptr(len(data))}
}

// checkMapped fails when a mapped file no longer holds its mapped ranges:
// truncated within a page, the tail of that page reads as zeros instead of
// faulting, so a run could finish on weights that are not the file's.
func (in *Interp) checkMapped() error {
	sizes := map[*os.File]int64{}
	for _, m := range in.maps {
		sz, ok := sizes[m.f]
		if !ok {
			st, err := m.f.Stat()
			if err != nil {
				return fmt.Errorf("%s: %w", m.file, err)
			}
			sz = st.Size()
			sizes[m.f] = sz
		}
		if end := m.off + int64(m.end-m.base); sz < end {
			return fmt.Errorf("%s changed while anefix read it: it now ends after %d bytes, but a weight mapped from it ends at byte %d (the file was truncated under anefix); run again on a file nothing is writing", m.file, sz, end)
		}
	}
	return nil
}

// faultAddr is the runtime error a fault becomes under SetPanicOnFault.
type faultAddr interface {
	error
	Addr() uintptr
}

// inMapping reports whether addr lies in a mapped weight.
func (in *Interp) inMapping(addr uintptr) bool {
	for _, m := range in.maps {
		if addr >= m.base && addr < m.end {
			return true
		}
	}
	return false
}

// faultAt is the error for a fault at a when a lies in m, else nil.
func (m *mapping) faultAt(a uintptr) error {
	if a < m.base || a >= m.end {
		return nil
	}
	return fmt.Errorf("%s changed while anefix read it: the weight mapped from byte offset %d faulted at offset %d (the file was truncated or replaced under anefix); run again on a file nothing is writing",
		m.file, m.off, m.off+int64(a-m.base))
}

// faultError is the error for a fault at addr in a mapped weight.
func (in *Interp) faultError(f faultAddr) error {
	a := f.Addr()
	for _, m := range in.maps {
		if err := m.faultAt(a); err != nil {
			return err
		}
	}
	files := map[string]bool{}
	var names []string
	for _, m := range in.maps {
		if !files[m.file] {
			files[m.file] = true
			names = append(names, m.file)
		}
	}
	return fmt.Errorf("a memory fault while running the graph (%v), with weights mapped from %v: a weight file was probably truncated or replaced under anefix; run again on files nothing is writing", f, names)
}

// catchFault turns a memory-fault panic into *err; other panics go on.
func (in *Interp) catchFault(err *error) {
	if r := recover(); r != nil {
		if f, ok := r.(faultAddr); ok {
			*err = in.faultError(f)
			return
		}
		panic(r)
	}
}

// workerPanic carries the first panic of a worker goroutine to the
// goroutine that waits for it, so that Run's catchFault sees it.
type workerPanic struct {
	mu sync.Mutex
	v  any
}

// guard is deferred first thing in a worker goroutine.
func (w *workerPanic) guard() {
	if r := recover(); r != nil {
		w.mu.Lock()
		if w.v == nil {
			w.v = r
		}
		w.mu.Unlock()
	}
}

// rethrow re-panics the first worker panic on the waiting goroutine.
func (w *workerPanic) rethrow() {
	if w.v != nil {
		panic(w.v)
	}
}

// panicOnFault is deferred as defer debug.SetPanicOnFault(panicOnFault()).
func panicOnFault() bool { return debug.SetPanicOnFault(true) }

// goWorkers runs fn(0) … fn(n-1) on n goroutines and waits for them all; a
// worker's panic (a fault in a mapped weight, a malformed op) is re-panicked
// here, so that Run's catchFault sees it. Every parallel kernel starts its
// goroutines through it (matmul's work items, linalg.go; row ranges,
// rows.go).
func goWorkers(n int, fn func(w int)) {
	var wg sync.WaitGroup
	var wp workerPanic
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer wp.guard()
			defer debug.SetPanicOnFault(panicOnFault())
			fn(w)
		}()
	}
	wg.Wait()
	wp.rethrow()
}
