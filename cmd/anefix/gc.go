package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/anefix/anefix/graph/modelio"
)

// codecGCPercent is the garbage collector's target (GOGC) while convert
// decodes a module and encodes it again. Nearly everything a decoder
// allocates stays live until the command ends, so each collection while
// the module is read marks a heap that only grows: with the default of
// 100, collections took about 40% of the CPU time of converting issue 22's
// 25.8k-op module from bytecode to bytecode, for no memory back (peak RSS
// 37 MiB either way). With 400 the first collection waits until the heap
// is 16 MiB and the next one until it is five times what the last one
// kept. Peak RSS measured with 100 and 400 (one run each, at the time): the same
// within 1 MiB on issue 22's module, +1% or less on the million-op and
// large-attribute stand-ins, +4% for the million-op chain read from text.
// Commands that run passes or the interpreter, which leave garbage behind,
// keep the default.
const codecGCPercent = 400

// codecGC applies codecGCPercent unless GOGC is set in the environment,
// and returns what puts the previous target back (the command may run
// inside a test binary).
func codecGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(codecGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// Once check or rewrite has loaded its input, the rule model, the passes'
// previews and the report build per-op records beside the module (on issue
// 28's 500k-op chain the live heap grows from about 190 MiB after the load
// to about 400 MiB), and with the default target the heap may grow to
// twice what the last collection kept before the next one: peak RSS about
// 2x mlir-opt 22's on the same text. loadedGC puts a soft limit on the
// heap in proportion to what the loaded input holds: loadedHeapFactor
// times the live heap after the load, plus loadedHeapSlack. It only makes
// the collector run sooner near the limit; it never refuses memory (past
// the limit the runtime caps the collector at about half the CPU and the
// heap grows on). Measured on the chain (/usr/bin/time, load 3-5, noisy;
// mlir-opt 22: 365 MiB): check 750 -> 490 MiB peak RSS, rewrite 720 -> 491
// MiB, for about 40% more CPU time than with no limit; with a factor of 2,
// check 445-460 MiB for twice the CPU time.
// A bytecode input's weights stay in its mapping, outside the heap, while
// the passes that compress them allocate in proportion to them: the
// mapped main module's size is added (mapped). GOMEMLIMIT or GOGC in the
// environment turns it off.
//
// check and rewrite hold a report made so that its groups are made one at
// a time as the text prints them (textGroups, rwVerdictText), and check
// drops the bytecode reader's tables (modelio.Loaded.ReadOnly), so the
// live heap peaks at about twice what the load left, while check's rules
// run (on the chain read from bytecode: 182 MB after the load, 372-387 MB
// in rewrite's check of its output). Measured on the chain read from
// bytecode (/usr/bin/time, load about 27, noisy; mlir-opt 22: 298 MiB
// writing bytecode, 256 MiB printing text): check 426 MiB and 7.6 s CPU
// with a factor of 2.5, 370 MiB and 10.8 s with 2.0; from text 474 -> 402
// MiB, 7.4 -> 10.6 s. rewrite (load about 11): 520 MiB and 6.8 s CPU with
// 2.5, 443-455 MiB and 8.4-8.6 s with 2.0.
// rewrite keeps the bytecode reader's tables (the writer reuses them), and
// they do not grow while the command works: they count once, beside the
// mapped input, not factor times (bytecode.Source.TableBytes; on the chain
// about 40 MB of the 182 MB live after the load).
const (
	loadedHeapFactor = 2.0
	loadedHeapSlack  = 64 << 20
)

// loadedLimit is the soft heap limit for a live heap of live bytes, of
// which fixed bytes do not grow with the work, and mapped bytes of input
// outside the heap.
func loadedLimit(live uint64, fixed, mapped int64, factor float64) int64 {
	grows := max(int64(live)-fixed, 0)
	return int64(float64(grows)*factor) + min(fixed, int64(live)) + mapped + loadedHeapSlack
}

// loadedGC sets the limit for ld from the heap live now (after one
// collection) and returns what puts the previous limit back.
func loadedGC(ld *modelio.Loaded) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func() {}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var fixed, mapped int64
	if ld != nil && ld.Input != nil && ld.Input.Bytecode {
		mapped = ld.Input.Size
	}
	if ld != nil {
		fixed = ld.Bytecode.TableBytes()
	}
	old := debug.SetMemoryLimit(loadedLimit(ms.HeapAlloc, fixed, mapped, loadedHeapFactor))
	return func() { debug.SetMemoryLimit(old) }
}
