package cluster

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/oracle"
)

func randPoints(r *rand.Rand, n int, std float64) Points {
	m := map[float64]float64{}
	for len(m) < n {
		v := f16.ToFloat64(f16.FromFloat64(r.NormFloat64() * std))
		m[v] += float64(1 + r.IntN(5))
	}
	var p Points
	for v := range m {
		p.V = append(p.V, v)
	}
	sort.Float64s(p.V)
	for _, v := range p.V {
		p.W = append(p.W, m[v])
	}
	return p
}

// bruteBest is the least error over every way to cut n sorted points into
// k contiguous runs (the partitions that hold every 1-D optimum).
func bruteBest(p Points, k int) float64 {
	pr := newPrefix(p)
	n := p.Len()
	best := math.Inf(1)
	cuts := make([]int, k+1)
	cuts[k] = n
	var rec func(j, from int, acc float64)
	rec = func(j, from int, acc float64) {
		if j == k {
			best = math.Min(best, acc+pr.sse(cuts[k-1], n))
			return
		}
		for c := from + 1; c <= n-(k-j); c++ {
			cuts[j] = c
			rec(j+1, c, acc+pr.sse(cuts[j-1], c))
		}
	}
	cuts[0] = 0
	if k == 1 {
		return pr.sse(0, n)
	}
	rec(1, 0, 0)
	return best
}

func TestOptimal1DIsOptimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 60; trial++ {
		n, k := 5+r.IntN(10), 1+r.IntN(4)
		p := randPoints(r, n, 0.05)
		want := bruteBest(p, k)
		got := sse(p, optimal1D(p, k))
		if got > want*(1+1e-9)+1e-18 {
			t.Fatalf("n=%d k=%d: Optimal1D error %g, brute force %g", n, k, got, want)
		}
	}
}

// kMeans1D is exact up to exactLimit values, and above it never worse
// than the rounded reference (the rounded points' optimum, each exact
// value given its rounded value's cluster).
func TestKMeans1DQuality(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		n   int
		std float64
	}{{300, 0.02}, {exactLimit, 0.02}, {9000, 0.02}, {9000, 0.05}, {6000, 0.004}} {
		p := randPoints(r, c.n, c.std)
		got := sse(p, kMeans1D(p, 16, 4))
		if c.n <= exactLimit {
			if want := sse(p, optimal1D(p, 16)); got > want*(1+1e-12) {
				t.Errorf("n=%d: %g, optimum %g", c.n, got, want)
			}
			continue
		}
		rp := round(p, 4)
		rc := Pad(optimal1D(rp, 16), 16)
		ra := NewAssigner(rc)
		var ref float64
		for i, v := range p.V {
			x := round(Points{V: []float64{v}, W: []float64{1}}, 4).V[0]
			d := v - rc[ra.Index(x)]
			ref += p.W[i] * d * d
		}
		if got > ref {
			t.Errorf("n=%d std=%g: error %g above the rounded reference's %g", c.n, c.std, got, ref)
		}
		opt := sse(p, optimal1D(p, 16))
		t.Logf("n=%d std=%g: error/optimum %.6f, reference/optimum %.6f", c.n, c.std, got/opt, ref/opt)
	}
}

func TestLloydNeverWorseThanSeeds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := randPoints(r, 5000, 0.03)
	seeds := quantileSeeds(p, newPrefix(p), 16)
	before := sse(p, seeds)
	after := sse(p, lloyd(p, newPrefix(p), append([]float64(nil), seeds...)))
	if after > before {
		t.Fatalf("Lloyd raised the error: %g → %g", before, after)
	}
	// Duplicate seeds (a padded palette) are re-seeded, not left empty.
	c := lloyd(p, newPrefix(p), Pad([]float64{-0.01, 0, 0.01}, 16))
	if len(dedup(c)) != 16 {
		t.Fatalf("padded seeds left %d distinct centroids: %v", len(dedup(c)), c)
	}
}

func dedup(c []float64) []float64 {
	var out []float64
	for i, v := range c {
		if i == 0 || v != c[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func TestAssignerNearestTiesLow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		k := 1 + r.IntN(20)
		e := make([]float64, k)
		for i := range e {
			e[i] = float64(r.IntN(40)) / 4
		}
		sort.Float64s(e)
		a := NewAssigner(e)
		for q := 0; q < 50; q++ {
			x := float64(r.IntN(200)-20) / 8
			want, wd := 0, math.Inf(1)
			for j, v := range e {
				if d := math.Abs(x - v); d < wd {
					want, wd = j, d
				}
			}
			got := a.Index(x)
			if math.Abs(x-e[got]) != wd || (got != want && e[got] != e[want]) {
				t.Fatalf("entries %v, x=%g: index %d (%g), want %d (%g)", e, x, got, e[got], want, e[want])
			}
		}
	}
	if NewAssigner([]float64{0, 1}).Index(0.5) != 0 {
		t.Error("a value midway between two entries takes the lower")
	}
}

func TestHist16Points(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	h := NewHist16(false)
	for trial := 0; trial < 3; trial++ {
		raw := make([]byte, 2*5000)
		want := map[float64]float64{}
		for i := 0; i < 5000; i++ {
			p := uint16(r.Uint32())
			if trial == 0 {
				p = f16.FromFloat64(r.NormFloat64() * 0.02)
			}
			binary.LittleEndian.PutUint16(raw[2*i:], p)
			v := f16.ToFloat64(p)
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				want[v]++
			}
		}
		h.Add(raw)
		p, nonFinite := h.Points()
		var wantNF int64
		for i := 0; i < 5000; i++ {
			v := f16.ToFloat64(binary.LittleEndian.Uint16(raw[2*i:]))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				wantNF++
			}
		}
		if nonFinite != wantNF || p.Len() != len(want) || !sort.Float64sAreSorted(p.V) {
			t.Fatalf("trial %d: %d points (%d non-finite), want %d (%d)", trial, p.Len(), nonFinite, len(want), wantNF)
		}
		for i, v := range p.V {
			if want[v] != p.W[i] {
				t.Fatalf("trial %d: value %g counted %g, want %g", trial, v, p.W[i], want[v])
			}
		}
	}
	if p, _ := h.Points(); p.Len() != 0 {
		t.Fatal("Points did not empty the histogram")
	}
}

// Round rounds fp16 values as numpy's np.round(x, 4) does for an fp16
// array (coreai-optimization's fast k-means mode), for every fp16 value.
func TestRoundMatchesNumpy(t *testing.T) {
	py := oracle.Python3Numpy(t)
	out, err := exec.Command(py, "-c", `
import numpy as np, sys
a = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
with np.errstate(all="ignore"):
    r = np.round(a, 4)
sys.stdout.write(" ".join(str(int(x)) for x in r.view(np.uint16)))
`).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 1<<16 {
		t.Fatalf("numpy printed %d values", len(fields))
	}
	bad := 0
	for i, f := range fields {
		want, _ := strconv.Atoi(f)
		v := f16.ToFloat64(uint16(i))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		got := round(Points{V: []float64{v}, W: []float64{1}}, 4).V[0]
		if got != f16.ToFloat64(uint16(want)) && bad < 5 {
			t.Errorf("fp16 %#04x (%g): rounds to %g, numpy %g", i, v, got, f16.ToFloat64(uint16(want)))
			bad++
		}
	}
}

func TestVectorKMeansDeterministicAndExactForFewPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	x := make([]float64, 2*500)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	a, _, _ := VectorKMeans(x, 2, 8, 3, MaxVectorIterations)
	b, _, _ := VectorKMeans(x, 2, 8, 3, MaxVectorIterations)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("VectorKMeans is not deterministic")
		}
	}
	few := []float64{1, 2, 3, 4, 1, 2, 3, 4, 5, 6}
	c, _, _ := VectorKMeans(few, 2, 4, 0, MaxVectorIterations)
	if len(c) != 6 {
		t.Fatalf("3 distinct points give %d centroid values, want them exactly: %v", len(c), c)
	}
}

// IndexKey (integer comparisons on fp16 keys) gives Index's answer for
// every finite fp16 value, for palettes of every size the passes use.
func TestIndexKeyMatchesIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, k := range []int{2, 4, 8, 16, 64, 256} {
		e := make([]float64, k)
		for i := range e {
			e[i] = f16.ToFloat64(f16.FromFloat64(r.NormFloat64() * 0.05))
		}
		e[0] = 0 // a palette entry at zero: −0 and +0 meet it
		sort.Float64s(e)
		a := NewAssigner(e)
		for p := 0; p < 1<<16; p++ {
			v := f16.ToFloat64(uint16(p))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if got, want := a.IndexKey(Key(uint16(p))), a.Index(v); got != want {
				t.Fatalf("k=%d, fp16 %#04x (%g): IndexKey %d, Index %d", k, p, v, got, want)
			}
		}
	}
}

// KeyTable/LookupKey and Sorted give IndexKey's and Index's answers.
func TestKeyTableAndSorted(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, k := range []int{2, 16, 64} {
		e := make([]float64, k)
		for i := range e {
			e[i] = f16.ToFloat64(f16.FromFloat64(r.NormFloat64() * 0.05))
		}
		sort.Float64s(e)
		e = Pad(e[:k-1], k) // a repeated last entry, as padded palettes have
		a := NewAssigner(e)
		tab, lo := a.KeyTable(nil)
		var vals []float64
		for p := 0; p < 1<<16; p++ {
			v := f16.ToFloat64(uint16(p))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if got, want := LookupKey(tab, lo, a.Last(), Key(uint16(p))), a.IndexKey(Key(uint16(p))); got != want {
				t.Fatalf("k=%d fp16 %#04x: table %d, IndexKey %d", k, p, got, want)
			}
			vals = append(vals, v)
		}
		sort.Float64s(vals)
		a.Sorted(vals, func(i, j int) {
			if j != a.Index(vals[i]) {
				t.Fatalf("k=%d %g: Sorted %d, Index %d", k, vals[i], j, a.Index(vals[i]))
			}
		})
	}
}

// VectorKMeans stops after maxIter Lloyd iterations and says it did not
// converge; given room it converges (the caller bounds its work this way).
func TestVectorKMeansIterationCap(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	x := make([]float64, 2*2000)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	_, iters, converged := VectorKMeans(x, 2, 16, 5, 1)
	if iters != 1 || converged {
		t.Errorf("maxIter 1: %d iterations, converged %v; want 1, false", iters, converged)
	}
	_, iters, converged = VectorKMeans(x, 2, 16, 5, MaxVectorIterations)
	if !converged || iters < 2 || iters > MaxVectorIterations {
		t.Errorf("no cap: %d iterations, converged %v", iters, converged)
	}
}
