package main

import "math"

// count32 is a count as the report schema holds it: int32, so that
// protojson prints a JSON number (proto/common.proto says which integers
// are 32-bit). Counts of in-memory things never come near 2^31; a count
// that does (the lines of a huge compiler log) saturates rather than wraps.
func count32[T ~int | ~int64](n T) int32 {
	if int64(n) > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(n)
}
