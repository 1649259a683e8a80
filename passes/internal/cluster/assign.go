package cluster

import (
	"math"
	"sort"
)

// Assigner maps a value to the index of its nearest entry in an ascending
// palette (the reconstructed values): the largest j with x above the
// midpoint between entries j-1 and j, so a value exactly between two
// entries takes the lower index. One assigner serves the pass (for the
// error it reports) and the blob writer (for the indices it stores), so
// the two cannot disagree.
type Assigner struct {
	t    []float64 // t[j] = midpoint(e[j-1], e[j]); t[0] = −Inf; +Inf padding
	half int       // first step of the binary search (len(t)/2)
	// kt[j] is the smallest fp16 key (Key) whose value is above t[j], so
	// that for an fp16 pattern with key k, k ≥ kt[j] exactly when its
	// value is above t[j]: IndexKey compares integers.
	kt []int32
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
	a := &Assigner{t: t, half: p / 2}
	a.keyThresholds()
	return a
}

// linearMax is the palette size up to which the searches count the
// thresholds below x instead of bisecting: independent comparisons
// pipeline, where a bisection's steps wait on each other.
const linearMax = 16

// Index is the nearest entry's index for x. Branch-free: x > t exactly
// when t − x is negative, so the sign bit of the difference decides (t =
// +Inf padding never passes; NaN takes an arbitrary index, and the passes
// refuse NaN weights).
func (a *Assigner) Index(x float64) int {
	t := a.t
	if len(t) <= linearMax {
		j := 0
		for _, v := range t[1:] {
			j += int(math.Float64bits(v-x) >> 63)
		}
		return j
	}
	j := 0
	for step := a.half; step > 0; step >>= 1 {
		j += step & int(int64(math.Float64bits(t[j+step]-x))>>63)
	}
	return j
}

// IndexKey is Index of the fp16 value whose pattern has key k (Key): the
// same index, from integer comparisons.
func (a *Assigner) IndexKey(k uint16) int {
	kt, x := a.kt, int32(k)
	if len(kt) <= linearMax {
		j := 0
		for _, v := range kt[1:] {
			j += int(uint32(v-x-1) >> 31)
		}
		return j
	}
	j := 0
	for step := a.half; step > 0; step >>= 1 {
		j += step & int(int32(kt[j+step]-x-1)>>31)
	}
	return j
}

func (a *Assigner) keyThresholds() {
	vals := keyValueTable()
	kt := make([]int32, len(a.t))
	for j, t := range a.t {
		switch {
		case math.IsInf(t, -1):
			kt[j] = math.MinInt32 / 2
		case math.IsInf(t, 1):
			kt[j] = math.MaxInt32 / 2
		default:
			// first key above t among the finite values (keys of
			// −Inf..+Inf are ascending in value)
			lo, hi := int(Key(0xFC00)), int(Key(0x7C00)) // −Inf, +Inf
			kt[j] = int32(lo + sort.Search(hi-lo+1, func(i int) bool { return vals[lo+i] > t }))
		}
	}
	a.kt = kt
}

// KeyTable fills buf (grown as needed) with the index of every key from
// the first threshold's key to the last one's, and returns it with that
// first key: IndexKey(k) is 0 below lo, tab[k − lo] inside, and the last
// index above. Filling costs one byte per key in the palette's span, so a
// caller that indexes many values of one palette (a group's elements)
// looks each up with one load.
func (a *Assigner) KeyTable(buf []uint8) (tab []uint8, lo int32) {
	kt := a.kt
	last := len(kt) - 1
	for last > 0 && kt[last] >= math.MaxInt32/4 { // +Inf padding
		last--
	}
	if last == 0 {
		return buf[:0], 0
	}
	lo, hi := kt[1], kt[last]
	n := int(hi - lo)
	if cap(buf) < n {
		buf = make([]uint8, n)
	}
	tab = buf[:n]
	for j := 1; j < last; j++ {
		s, e := kt[j]-lo, kt[j+1]-lo
		for x := s; x < e; x++ {
			tab[x] = uint8(j)
		}
	}
	return tab, lo
}

// LookupKey is IndexKey through a table from KeyTable; last is the
// palette's last index (what keys at or above the last threshold get).
func LookupKey(tab []uint8, lo int32, last int, k uint16) int {
	x := int32(k) - lo
	switch {
	case x < 0:
		return 0
	case int(x) >= len(tab):
		return last
	}
	return int(tab[x])
}

// Last is the index keys above every threshold get.
func (a *Assigner) Last() int {
	last := len(a.kt) - 1
	for last > 0 && a.kt[last] >= math.MaxInt32/4 {
		last--
	}
	return last
}

// Sorted calls f(i, j) for every value of ascending v with its index j,
// walking the thresholds alongside (O(len(v) + entries)).
func (a *Assigner) Sorted(v []float64, f func(i, j int)) {
	j := 0
	t := a.t
	for i, x := range v {
		for j+1 < len(t) && x > t[j+1] {
			j++
		}
		f(i, j)
	}
}

// keyValueTable is the fp16 value of every key.
func keyValueTable() *[1 << 16]float64 {
	keyOnce.Do(initKeyTables)
	return keyF16
}
