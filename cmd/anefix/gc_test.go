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
	t.Setenv("GOGC", "100")
	loadedGC(nil)()
	if l := debug.SetMemoryLimit(-1); l != before {
		t.Errorf("with GOGC set the limit became %d; want it left at %d", l, before)
	}
}

// TestLoadedLimit: the tables that do not grow with the work (fixed) count
// once, the rest of the live heap factor times, the mapped input once
// (hand-derived figures, factor 2, slack 64 MiB).
func TestLoadedLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live          uint64
		fixed, mapped int64
		want          int64
	}{
		{live: 100 * mib, want: 264 * mib},                  // 2×100 + 64
		{live: 100 * mib, fixed: 40 * mib, want: 224 * mib}, // 2×60 + 40 + 64
		{live: 100 * mib, fixed: 40 * mib, mapped: 9 * mib, want: 233 * mib},
		{live: 30 * mib, fixed: 40 * mib, want: 94 * mib}, // fixed above live: live counts once
	} {
		if got := loadedLimit(c.live, c.fixed, c.mapped, 2.0); got != c.want {
			t.Errorf("loadedLimit(%d MiB live, %d fixed, %d mapped) = %d MiB; want %d", c.live/mib, c.fixed/mib, c.mapped/mib, got/mib, c.want/mib)
		}
	}
}
