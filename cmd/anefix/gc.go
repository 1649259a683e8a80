package main

import (
	"os"
	"runtime/debug"
)

// codecGCPercent is the garbage collector's target (GOGC) while convert
// decodes a module and encodes it again. Nearly everything a decoder
// allocates stays live until the command ends, so each collection while
// the module is read marks a heap that only grows: with the default of
// 100, collections took about 40% of the CPU time of converting issue 22's
// 25.8k-op module from bytecode to bytecode, for no memory back (peak RSS
// 37 MiB either way). With 400 the first collection waits until the heap
// is 16 MiB and the next one until it is five times what the last one
// kept. Peak RSS measured with 100 and 400 (README, Performance): the same
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
