package main

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
)

// TestLoadedGC checks that loadedGC puts a soft limit above the heap live
// when it is called, by the factor gc.go documents, puts the previous limit
// back, and leaves the limit alone when GOGC or GOMEMLIMIT is set.
func TestLoadedGC(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	keep := make([]byte, 32<<20) // a heap to be in proportion to
	before := debug.SetMemoryLimit(-1)
	restore := loadedGC(nil)
	limit := debug.SetMemoryLimit(-1)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	restore()
	runtime.KeepAlive(keep)
	lo := int64(float64(len(keep))*loadedHeapFactor) + loadedHeapSlack
	hi := int64(float64(ms.HeapAlloc)*loadedHeapFactor) + loadedHeapSlack
	if limit < lo || limit > hi {
		t.Errorf("limit %d MiB; want between %d and %d MiB (%.1fx the live heap + %d MiB)", limit>>20, lo>>20, hi>>20, loadedHeapFactor, loadedHeapSlack>>20)
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("limit after restore %d; want %d", after, before)
	}
	// A bytecode input's mapping counts in full.
	mapped := &modelio.Loaded{Input: &bundle.Input{Bytecode: true, Size: 1 << 30}}
	restore = loadedGC(mapped)
	if l := debug.SetMemoryLimit(-1); l < lo+1<<30 || l > hi+1<<30+16<<20 {
		t.Errorf("limit with 1 GiB mapped %d MiB; want about %d MiB more than without", l>>20, 1<<10)
	}
	restore()
	runtime.KeepAlive(keep)
	// check's factor (gc.go) in place of the default.
	restore = loadedGCWith(nil, checkHeapFactor)
	l := debug.SetMemoryLimit(-1)
	restore()
	runtime.KeepAlive(keep)
	if clo, chi := int64(float64(len(keep))*checkHeapFactor)+loadedHeapSlack, int64(float64(ms.HeapAlloc)*checkHeapFactor)+loadedHeapSlack+16<<20; l < clo || l > chi {
		t.Errorf("limit with check's factor %d MiB; want between %d and %d MiB", l>>20, clo>>20, chi>>20)
	}
	t.Setenv("GOGC", "100")
	loadedGC(nil)()
	if l := debug.SetMemoryLimit(-1); l != before {
		t.Errorf("with GOGC set the limit became %d; want it left at %d", l, before)
	}
}
