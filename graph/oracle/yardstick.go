//go:build unix

package oracle

import (
	"encoding/binary"
	"syscall"
)

// The yardsticks the benchmarks measure anefix against (one read of the
// weights from the page cache: BenchmarkPerfTable in cmd/anefix and
// BenchmarkDecodeStep in graph/interp) share these two helpers.

// FoldWords folds d into a word, four independent lanes of 8 bytes, so that
// a pass over d is bound by its loads, not by the xor chain, and no load
// can be left out (print or keep the result).
func FoldWords(d []byte) uint64 {
	var s0, s1, s2, s3 uint64
	for len(d) >= 32 {
		s0 ^= binary.LittleEndian.Uint64(d[0:8])
		s1 ^= binary.LittleEndian.Uint64(d[8:16])
		s2 ^= binary.LittleEndian.Uint64(d[16:24])
		s3 ^= binary.LittleEndian.Uint64(d[24:32])
		d = d[32:]
	}
	for ; len(d) >= 8; d = d[8:] {
		s0 ^= binary.LittleEndian.Uint64(d)
	}
	return s0 ^ s1 ^ s2 ^ s3
}

// CPUSeconds is this process's user + system time in seconds (0 if the
// system cannot say).
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
