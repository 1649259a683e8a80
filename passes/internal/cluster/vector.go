package cluster

import "math"

// MaxVectorIterations bounds VectorKMeans' Lloyd iterations (it stops
// earlier when no assignment changes).
const MaxVectorIterations = 300

// VectorKMeans clusters the n = len(x)/dim points of x (each dim
// consecutive values) into k centroids of dim values, returned flat (k·dim;
// fewer than k when there are fewer distinct points: the distinct points
// themselves). Seeds are chosen by k-means++ (D² sampling) from a
// generator seeded with seed, so the result depends only on the data and
// seed; then Lloyd's iterations run to the fixed point or maxIter
// iterations, whichever comes first (at most MaxVectorIterations; the
// caller bounds the work, n·k·dim distance terms per iteration). It
// returns the iterations run and whether an iteration changed nothing. This is the
// vector palettization of coreai-optimization (scikit-learn's KMeans with
// k-means++ and one initialization, _utils/palettize_utils.py), run to
// convergence instead of to its tol=1e-2.
func VectorKMeans(x []float64, dim, k int, seed uint64, maxIter int) (c []float64, iters int, converged bool) {
	n := len(x) / dim
	if distinct := distinctVectors(x, dim, k+1); len(distinct)/dim <= k {
		return distinct, 0, true
	}
	c = make([]float64, 0, k*dim)
	rng := seed*0x9E3779B97F4A7C15 + 1
	next := func() float64 { // splitmix64 → [0, 1)
		rng += 0x9E3779B97F4A7C15
		z := rng
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		z ^= z >> 31
		return float64(z>>11) / (1 << 53)
	}
	d2 := make([]float64, n)
	first := int(next() * float64(n))
	c = append(c, x[first*dim:(first+1)*dim]...)
	for i := range d2 {
		d2[i] = dist2(x[i*dim:(i+1)*dim], c[:dim])
	}
	for len(c) < k*dim {
		var tot float64
		for _, d := range d2 {
			tot += d
		}
		pick := n - 1
		if tot > 0 {
			t := next() * tot
			for i, d := range d2 {
				if t < d {
					pick = i
					break
				}
				t -= d
			}
		}
		nc := x[pick*dim : (pick+1)*dim]
		c = append(c, nc...)
		for i := range d2 {
			d2[i] = math.Min(d2[i], dist2(x[i*dim:(i+1)*dim], nc))
		}
	}
	assign := make([]int32, n)
	for i := range assign {
		assign[i] = -1
	}
	sum := make([]float64, k*dim)
	cnt := make([]float64, k)
	for iters = 0; iters < min(maxIter, MaxVectorIterations); iters++ {
		changed := false
		for i := 0; i < n; i++ {
			j := int32(NearestVector(c, x[i*dim:(i+1)*dim]))
			if j != assign[i] {
				assign[i], changed = j, true
			}
		}
		if !changed {
			return c, iters + 1, true
		}
		clear(sum)
		clear(cnt)
		for i := 0; i < n; i++ {
			j := int(assign[i])
			cnt[j]++
			for v := 0; v < dim; v++ {
				sum[j*dim+v] += x[i*dim+v]
			}
		}
		for j := 0; j < k; j++ {
			if cnt[j] == 0 {
				continue // an empty cluster keeps its centroid
			}
			for v := 0; v < dim; v++ {
				c[j*dim+v] = sum[j*dim+v] / cnt[j]
			}
		}
	}
	return c, iters, false
}

// NearestVector is the index of the centroid of c (flat, len(p) values
// each) nearest to p; ties take the lower index.
func NearestVector(c, p []float64) int {
	dim := len(p)
	best, bi := math.Inf(1), 0
	for j := 0; j*dim < len(c); j++ {
		if d := dist2(c[j*dim:(j+1)*dim], p); d < best {
			best, bi = d, j
		}
	}
	return bi
}

func dist2(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// distinctVectors returns up to limit distinct points of x (flat, dim
// values each) in order of first appearance; it stops at limit.
func distinctVectors(x []float64, dim, limit int) []float64 {
	var out []float64
	for i := 0; i*dim < len(x); i++ {
		p := x[i*dim : (i+1)*dim]
		dup := false
		for j := 0; j*dim < len(out); j++ {
			if dist2(out[j*dim:(j+1)*dim], p) == 0 {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, p...)
			if len(out)/dim >= limit {
				return out
			}
		}
	}
	return out
}

// UniqueVectors is the palette of the distinct points of x when there are
// at most k of them; ok is false otherwise.
func UniqueVectors(x []float64, dim, k int) ([]float64, bool) {
	d := distinctVectors(x, dim, k+1)
	if len(d)/dim > k {
		return nil, false
	}
	return d, true
}
