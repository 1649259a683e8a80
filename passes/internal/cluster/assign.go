package cluster

import "math"

// Assigner maps a value to the index of its nearest entry in an ascending
// palette (the reconstructed values): the largest j with x above the
// midpoint between entries j-1 and j, so a value exactly between two
// entries takes the lower index. One assigner serves the pass (for the
// error it reports) and the blob writer (for the indices it stores), so
// the two cannot disagree. The search runs over a power-of-two table of
// midpoints with a fixed number of steps.
type Assigner struct {
	t    []float64 // t[j] = midpoint(e[j-1], e[j]); t[0] unused; +Inf padding
	half int       // first step (len(t)/2)
}

// NewAssigner builds the assigner of ascending entries eff (at least one).
func NewAssigner(eff []float64) *Assigner {
	p := 1
	for p < len(eff) {
		p *= 2
	}
	t := make([]float64, p)
	t[0] = math.Inf(-1)
	for j := 1; j < p; j++ {
		if j < len(eff) {
			t[j] = eff[j-1] + (eff[j]-eff[j-1])/2
		} else {
			t[j] = math.Inf(1)
		}
	}
	return &Assigner{t: t, half: p / 2}
}

// Index is the nearest entry's index for x (0 for NaN).
func (a *Assigner) Index(x float64) int {
	j := 0
	for step := a.half; step > 0; step >>= 1 {
		if x > a.t[j+step] {
			j += step
		}
	}
	return j
}
