package anefacts

import "math"

// The magnitude of a decoder's residual stream, assumed where nothing
// measures it: check's fp16.unbounded-input rule (passes/ane) and
// residual-scale's k=auto (passes/residual_scale.go) share this one guess.
// Neither can run the model (passes do not import graph/interp), so both
// reason about the same assumed position of the stream.
const (
	// StreamPeakGuess is the largest |x| assumed for a massive channel of the
	// unscaled stream. A guess: trained LLMs carry channels "in the hundreds
	// to thousands" (issue 29); anefix's own stand-in reaches about 3,700
	// (full-scale synth arm A, graph/synth/massive.go), rounded up to 2^12.
	StreamPeakGuess = 4096
	// StreamMassiveGuess is how many channels of one position reach that
	// peak. A guess: synth arm A at full scale carries 4.
	StreamMassiveGuess = 4
	// StreamSquaresBudget is the most the guessed sum of squares of one
	// position may reach after scaling: half of fp16's largest finite value
	// (65504), a 2× margin for the guess and for the rounding of the fp16
	// running sum under the Neural Engine's narrow reduce_sum
	// (graph/interp/numerics.go). The margin is a guess too.
	StreamSquaresBudget = 32752
)

// StreamSumSquares is the guessed sum of squares of one position of an
// unscaled stream of width d: StreamMassiveGuess channels at
// StreamPeakGuess, every other channel at most 1 in magnitude (synth's
// ordinary channels stay below 1; a guess for trained models). d ≤ 0 (not
// known) counts the massive channels only.
func StreamSumSquares(d int64) float64 {
	rest := max(d-StreamMassiveGuess, 0)
	return StreamMassiveGuess*StreamPeakGuess*StreamPeakGuess + float64(rest)
}

// StreamSafeK returns the smallest k in 1..14 for which the guessed sum of
// squares of a stream of width d, divided by 2^2k (the stream divided by
// 2^k), stays within StreamSquaresBudget; 14 when none does. With the
// guesses above it is 6 for every width up to 2^20: 4·4096² = 2^26, and
// 2^26·2^-12 = 16384 ≤ 32752 while 2^26·2^-10 = 65536 is not.
func StreamSafeK(d int64) int {
	s := StreamSumSquares(d)
	for k := 1; k < 14; k++ {
		if math.Ldexp(s, -2*k) <= StreamSquaresBudget {
			return k
		}
	}
	return 14
}
