// Package cluster holds the numerics of weight palettization: the 1-D
// k-means, uniform and unique palettes of a weighted point set, vector
// k-means, the 16-bit-pattern histogram that turns a group of fp16 weights
// into at most 65,536 weighted points, and nearest-entry assignment. It
// knows nothing of IR; passes/palettize.go and passes/legalize_weights.go
// call it. Every function is deterministic: the same input gives the same
// bits, whatever the machine or the number of goroutines.
package cluster

import (
	"math"
	"sort"
	"sync"

	"github.com/anefix/anefix/graph/f16"
)

// Points is a weighted set of distinct values in ascending order (a
// histogram's non-empty bins).
type Points struct {
	V []float64 // ascending, distinct
	W []float64 // weight (count) of each value, > 0
	// K, when set, holds each value's fp16 key (Hist16's order-preserving
	// key of its pattern), so rounding can look values up.
	K []uint16
}

// Workspace holds the buffers kMeans1D reuses from one group to the next;
// one goroutine uses it at a time. The zero value is ready.
type Workspace struct {
	pr, rpr prefix
	rnd     Points
	dp      exactDP
}

// Len is the number of distinct values.
func (p Points) Len() int { return len(p.V) }

// prefix holds prefix sums of weight, weight·x and weight·x² over the
// points, x being the value minus the weighted mean (centring keeps the
// sum of squares from cancelling when the values sit far from zero).
type prefix struct {
	w, s, q []float64
	mean    float64
}

func newPrefix(p Points) *prefix { return new(prefix).fill(p) }

// grow returns b with length n, reusing its storage.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

func (pr *prefix) fill(p Points) *prefix {
	n := p.Len()
	var tw, ts float64
	for i := 0; i < n; i++ {
		tw += p.W[i]
		ts += p.W[i] * p.V[i]
	}
	pr.w, pr.s, pr.q = grow(pr.w, n+1), grow(pr.s, n+1), grow(pr.q, n+1)
	pr.w[0], pr.s[0], pr.q[0], pr.mean = 0, 0, 0, 0
	if tw > 0 {
		pr.mean = ts / tw
	}
	for i := 0; i < n; i++ {
		x := p.V[i] - pr.mean
		pr.w[i+1] = pr.w[i] + p.W[i]
		pr.s[i+1] = pr.s[i] + p.W[i]*x
		pr.q[i+1] = pr.q[i] + p.W[i]*x*x
	}
	return pr
}

// mean of points [a, b) (b > a, non-empty), in the points' units.
func (pr *prefix) meanOf(a, b int) float64 {
	return (pr.s[b]-pr.s[a])/(pr.w[b]-pr.w[a]) + pr.mean
}

// sse of points [a, b) around their mean.
func (pr *prefix) sse(a, b int) float64 {
	w := pr.w[b] - pr.w[a]
	if w <= 0 {
		return 0
	}
	s := pr.s[b] - pr.s[a]
	return math.Max(0, pr.q[b]-pr.q[a]-s*s/w)
}

// maxLloydIterations bounds Lloyd's iterations; they stop earlier at the
// fixed point (no boundary moved). A run that hits the bound keeps its last
// centroids, whose error is still no higher than its seeds'.
const maxLloydIterations = 1000

// exactLimit is the number of distinct values up to which kMeans1D solves
// the exact problem on the values themselves.
const exactLimit = 4096

// kMeans1D is k-means of weighted 1-D points, ascending, min(k, p.Len())
// centroids. Up to exactLimit distinct values it is the optimum
// (optimal1D). Above that it is what coreai-optimization's default does
// (its "fast mode": the values rounded to decimals places, 4 by default,
// then the exact k-means of the rounded values, which its kmeans1d
// computes; src/coreai_opt/coreai_utils/passes/weight_palettization.py and
// _utils/palettize_utils.py), followed by Lloyd's iterations on the exact
// values, and the better of that and Lloyd's iterations from quantile
// seeds. Lloyd's iterations never raise the error and nearest-entry
// assignment is no worse than the rounded values' clusters, so the result
// is never worse than that reference on the same points. Where rounding
// to decimals still leaves more than exactLimit values (weights far from
// zero), it rounds to fewer places (a guess at what keeps the cost
// bounded; the reference would use all of them). decimals < 0 skips the
// rounded problem (Lloyd's from quantile seeds only).
func kMeans1D(p Points, k, decimals int) []float64 {
	return new(Workspace).KMeans1D(p, k, decimals)
}

// kMeans1D is the package's kMeans1D with ws's buffers.
func (ws *Workspace) KMeans1D(p Points, k, decimals int) []float64 {
	n := p.Len()
	if n <= k {
		return append([]float64(nil), p.V...)
	}
	if n <= exactLimit {
		return ws.optimal(p, k)
	}
	pr := ws.pr.fill(p)
	if decimals < 0 {
		return lloyd(p, pr, quantileSeeds(p, pr, k))
	}
	r := ws.round(p, decimals)
	for r.Len() > exactLimit && decimals > 0 {
		decimals--
		r = ws.round(p, decimals)
	}
	if !finite(r.V) {
		return lloyd(p, pr, quantileSeeds(p, pr, k))
	}
	c := lloyd(p, pr, Pad(ws.optimal(r, k), k))
	if r.Len() >= 4*k {
		return c
	}
	// Rounding left few values (weights small against 10^-decimals): the
	// quantile-seeded run may do better, and the better one is kept.
	if q := lloyd(p, pr, quantileSeeds(p, pr, k)); sse(p, q) < sse(p, c) {
		return q
	}
	return c
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
	}
	return true
}

// round rounds every value to decimals decimal places, half to even, the
// way numpy's round does for an fp16 array: the product by 10^decimals is
// rounded to fp16, rounded to an integer, and divided back in fp16
// (TestRoundMatchesNumpy checks every fp16 value), and merges the values
// that meet.
func round(p Points, decimals int) Points {
	var ws Workspace
	q := ws.round(p, decimals)
	return Points{V: append([]float64(nil), q.V...), W: append([]float64(nil), q.W...)}
}

// roundValue is Round of one value.
func roundValue(v float64, decimals int) float64 {
	scale := math.Pow(10, float64(decimals))
	h := func(x float64) float64 { return f16.ToFloat64(f16.FromFloat64(x)) }
	return h(math.RoundToEven(h(v*h(scale))) / h(scale))
}

// roundTables caches the rounded value of every fp16 key, per decimals.
var roundTables sync.Map // int → *[1 << 16]float64

func roundTable(decimals int) *[1 << 16]float64 {
	if t, ok := roundTables.Load(decimals); ok {
		return t.(*[1 << 16]float64)
	}
	t := new([1 << 16]float64)
	for k := 0; k < 1<<16; k++ {
		t[k] = roundValue(f16.ToFloat64(keyPattern(uint16(k))), decimals)
	}
	v, _ := roundTables.LoadOrStore(decimals, t)
	return v.(*[1 << 16]float64)
}

// round is Round into ws's buffer (valid until the next round).
func (ws *Workspace) round(p Points, decimals int) Points {
	q := Points{V: ws.rnd.V[:0], W: ws.rnd.W[:0]}
	var tab *[1 << 16]float64
	if p.K != nil {
		tab = roundTable(decimals)
	}
	for i, v := range p.V {
		var r float64
		if tab != nil {
			r = tab[p.K[i]]
		} else {
			r = roundValue(v, decimals)
		}
		if n := len(q.V); n > 0 && q.V[n-1] == r {
			q.W[n-1] += p.W[i]
			continue
		}
		q.V = append(q.V, r)
		q.W = append(q.W, p.W[i])
	}
	ws.rnd.V, ws.rnd.W = q.V, q.W
	return q
}

// lloyd runs Lloyd's iterations on p from ascending centroids c (len k,
// modified in place) to the fixed point.
func lloyd(p Points, pr *prefix, c []float64) []float64 {
	k := len(c)
	bounds := make([]int, k+1)
	prev := make([]int, k+1)
	for it := 0; it < maxLloydIterations; it++ {
		lloydBounds(p.V, c, bounds)
		if it > 0 && equalInts(bounds, prev) {
			break
		}
		copy(prev, bounds)
		for j := 0; j < k; j++ {
			if bounds[j+1] > bounds[j] {
				c[j] = pr.meanOf(bounds[j], bounds[j+1])
			}
		}
		if reseedEmpty(pr, c, bounds) {
			sort.Float64s(c)
			prev[0] = -1 // the boundaries must be recomputed
		}
	}
	return c
}

// quantileSeeds picks k distinct values at the weighted quantiles
// (j+½)/k, moved apart where several land on one value.
func quantileSeeds(p Points, pr *prefix, k int) []float64 {
	n := p.Len()
	total := pr.w[n]
	idx := make([]int, k)
	for j := 0; j < k; j++ {
		t := (float64(j) + 0.5) / float64(k) * total
		i := sort.Search(n, func(i int) bool { return pr.w[i+1] > t })
		idx[j] = min(i, n-1)
	}
	for j := 1; j < k; j++ { // strictly increasing, room left for the rest
		idx[j] = max(idx[j], idx[j-1]+1)
	}
	for j := k - 1; j >= 0; j-- {
		idx[j] = min(idx[j], n-k+j)
		if j < k-1 {
			idx[j] = min(idx[j], idx[j+1]-1)
		}
	}
	c := make([]float64, k)
	for j, i := range idx {
		c[j] = p.V[i]
	}
	return c
}

// lloydBounds sets bounds[j] to the first point of cluster j for ascending
// centroids c: a value exactly between two centroids goes to the lower.
func lloydBounds(v, c []float64, bounds []int) {
	k := len(c)
	bounds[0], bounds[k] = 0, len(v)
	for j := 1; j < k; j++ {
		mid := c[j-1] + (c[j]-c[j-1])/2
		bounds[j] = sort.Search(len(v), func(i int) bool { return v[i] > mid })
	}
}

// reseedEmpty moves the centroid of the first empty cluster to split the
// cluster of largest error (one holding two distinct values or more) at its
// mean; it reports whether it moved one (the next iteration recomputes the
// boundaries, and finds the next empty cluster if there is one).
func reseedEmpty(pr *prefix, c []float64, bounds []int) bool {
	k := len(c)
	for j := 0; j < k; j++ {
		if bounds[j+1] > bounds[j] {
			continue
		}
		best, bestE := -1, 0.0
		for i := 0; i < k; i++ {
			if bounds[i+1]-bounds[i] >= 2 {
				if e := pr.sse(bounds[i], bounds[i+1]); e > bestE {
					best, bestE = i, e
				}
			}
		}
		if best < 0 {
			return false
		}
		a, b := bounds[best], bounds[best+1]
		m := pr.meanOf(a, b) - pr.mean
		s := a + 1 // first point above the mean, keeping both sides non-empty
		for s < b-1 && (pr.s[s+1]-pr.s[s])/(pr.w[s+1]-pr.w[s]) <= m {
			s++
		}
		c[best], c[j] = pr.meanOf(a, s), pr.meanOf(s, b)
		return true
	}
	return false
}

func equalInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// exactDP holds the buffers of the exact 1-D k-means.
type exactDP struct {
	cells []dpCell  // per split m of the current layer
	prev  []float64 // D_{j-1}[m]: least error of [0, m) in j clusters
	cur   []float64
	args  []int32 // (k-1)·(n+1): the best split of each layer and end
	arg   []int32 // the current layer's part of args
	below []int32 // the previous layer's part: a lower bound (see solve)
	q     []float64
}

// dpCell is what the inner loop reads of split m: D_{j-1}[m] − q[m], and
// the prefix sums s[m] and w[m], side by side.
type dpCell struct{ a, s, w float64 }

// solve fills cur[i] and arg[i] for i in [lo, hi], the best split of each
// lying in [optLo, optHi]: the last cluster's start is monotone in its end
// i (divide and conquer), and no earlier than with one cluster fewer
// (below[i]: with more clusters the last one is no longer), the two
// monotonicities of the 1-D k-means recurrence.
func (d *exactDP) solve(lo, hi, optLo, optHi int, pr *prefix) {
	for lo <= hi {
		mid := int(uint(lo+hi) >> 1)
		wi, si := pr.w[mid], pr.s[mid]
		from := optLo
		if d.below != nil {
			from = max(from, min(int(d.below[mid]), optHi))
		}
		best, bestM := math.Inf(1), from
		top := min(mid-1, optHi)
		if top >= from {
			// v = a − ds²/dw < best  ⇔  (a − best)·dw < ds²  (dw > 0):
			// the division is taken only for a new best.
			cells := d.cells[from : top+1]
			for j := range cells {
				c := &cells[j]
				ds, dw := si-c.s, wi-c.w
				if (c.a-best)*dw < ds*ds {
					best, bestM = c.a-ds*ds/dw, from+j
				}
			}
		}
		d.cur[mid], d.arg[mid] = best+pr.q[mid], int32(bestM)
		if mid-lo < hi-mid { // recurse on the smaller side, loop on the other
			d.solve(lo, mid-1, optLo, bestM, pr)
			lo, optLo = mid+1, bestM
		} else {
			d.solve(mid+1, hi, bestM, optHi, pr)
			hi, optHi = mid-1, bestM
		}
	}
}

// upperBound is the error of Lloyd's iterations from quantile seeds on p,
// cluster by cluster from pr's sums (p.Len() > k).
func (ws *Workspace) upperBound(p Points, pr *prefix, k int) float64 {
	c := lloyd(p, pr, quantileSeeds(p, pr, k))
	bounds := make([]int, k+1)
	lloydBounds(p.V, c, bounds)
	var e float64
	for j := 0; j < k; j++ {
		e += pr.sse(bounds[j], bounds[j+1])
	}
	return e
}

// optimal1D is the exact k-means of weighted 1-D points: the least squared
// error over all partitions into k contiguous runs of the sorted values
// (which contain every optimum), by dynamic programming with the
// divide-and-conquer rule for its monotone split points, O(k·n·log n) cost
// evaluations. Ascending, min(k, p.Len()) centroids.
func optimal1D(p Points, k int) []float64 { return new(Workspace).optimal(p, k) }

func (ws *Workspace) optimal(p Points, k int) []float64 {
	n := p.Len()
	if n <= k {
		return append([]float64(nil), p.V...)
	}
	pr := ws.rpr.fill(p)
	d := &ws.dp
	d.cells = grow(d.cells, n+1)
	d.prev, d.cur = grow(d.prev, n+1), grow(d.cur, n+1)
	d.args = grow(d.args, (k-1)*(n+1))
	for i := 1; i <= n; i++ {
		d.prev[i] = pr.sse(0, i)
	}
	// An upper bound on the optimum (Lloyd's iterations on these points,
	// its clusters' errors summed from the same prefix sums): a split m
	// whose first part alone costs more, D_{j-1}[m] > bound, is on no
	// optimal path, and D_{j-1} grows with m, so each layer's splits stop
	// at the last m within the bound. The slack covers rounding.
	bound := ws.upperBound(p, pr, k) * (1 + 1e-9)
	d.below = nil
	for j := 1; j < k; j++ {
		d.arg = d.args[(j-1)*(n+1) : j*(n+1)]
		if j > 1 {
			d.below = d.args[(j-2)*(n+1) : (j-1)*(n+1)]
		}
		hiCol := n - 1
		if lim := sort.Search(n-j, func(x int) bool { return d.prev[j+x] > bound }); j+lim-1 >= j {
			hiCol = min(hiCol, j+lim-1)
		}
		for m := j; m <= hiCol; m++ {
			d.cells[m] = dpCell{a: d.prev[m] - pr.q[m], s: pr.s[m], w: pr.w[m]}
		}
		d.solve(j+1, n, j, hiCol, pr)
		d.prev, d.cur = d.cur, d.prev
	}
	c := make([]float64, k)
	end := n
	for j := k - 1; j >= 0; j-- {
		start := 0
		if j > 0 {
			start = int(d.args[(j-1)*(n+1)+end])
		}
		c[j] = pr.meanOf(start, end)
		end = start
	}
	return c
}

// Uniform is the evenly spaced palette from the smallest to the largest
// value, k entries (coreai-optimization's compress_uniform:
// lut = min + j·(max − min)/(k − 1)).
func Uniform(p Points, k int) []float64 {
	if p.Len() == 0 {
		return nil
	}
	lo, hi := p.V[0], p.V[p.Len()-1]
	c := make([]float64, k)
	for j := range c {
		if k == 1 {
			c[j] = lo
			continue
		}
		c[j] = lo + float64(j)*(hi-lo)/float64(k-1)
	}
	return c
}

// Unique is the palette of the distinct values themselves when there are
// at most k of them (exact); ok is false otherwise.
func Unique(p Points, k int) ([]float64, bool) {
	if p.Len() > k {
		return nil, false
	}
	return append([]float64(nil), p.V...), true
}

// Pad fills a palette of fewer than k entries up to k by repeating its
// largest entry (an unused entry; coreai-optimization fills zeros, which
// would break the ascending order Assigner relies on), or zeros when it is
// empty.
func Pad(c []float64, k int) []float64 {
	out := make([]float64, k)
	copy(out, c)
	for j := len(c); j < k; j++ {
		if len(c) > 0 {
			out[j] = c[len(c)-1]
		}
	}
	return out
}

// sse is the squared error of assigning every point to its nearest entry
// of eff (ascending; the values the program reconstructs).
func sse(p Points, eff []float64) float64 {
	var e float64
	NewAssigner(eff).Sorted(p.V, func(i, j int) {
		d := p.V[i] - eff[j]
		e += p.W[i] * d * d
	})
	return e
}

// Index is the nearest entry of eff to point i, by key when p has them.
func (p Points) Index(a *Assigner, i int) int {
	if p.K != nil {
		return a.IndexKey(p.K[i])
	}
	return a.Index(p.V[i])
}
