package synth

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/anefix/anefix/graph/f16"
)

// dist is the distribution of a synthetic fp16 weight tensor: Mean + Std·N(0,1)
// (Uniform false) or Mean + U(-Std, Std) (Uniform true). Values are drawn by
// table lookup: a 16-bit uniform variate indexes a 65536-entry table of fp16
// quantiles, which is both fast (about a nanosecond per element) and gives a
// real Gaussian shape clipped near ±4.3σ.
type dist struct {
	Mean, Std float64
	Uniform   bool
	// InvSoftplusExp draws t = Mean + Std·z as above and stores
	// softplus⁻¹(exp(t)) = log(expm1(exp(t))): with Uniform, the bias whose
	// softplus is log-uniform on [exp(Mean−Std), exp(Mean+Std)], the way
	// Mamba2 and gated-delta models initialise dt_bias.
	InvSoftplusExp bool
}

// normal is a zero-mean Gaussian with the given standard deviation.
func normal(std float64) dist { return dist{Std: std} }

// blob is one synthetic weight tensor stored as a dense_resource blob: little
// endian fp16, generated on demand. Any byte range can be generated on its
// own (the generator is counter based), so a writer can stream a 1.5 GB
// module in chunks, in parallel, without holding it in memory, and the bytes
// do not depend on how the range is split.
type blob struct {
	Key   string  // resource key, the parameter's dotted name
	Shape []int64 // tensor shape
	Dist  dist
	seed  uint64
	// cols draw whole columns from their own distribution, and elems fix
	// single elements (sorted by index): the structure a stand-in for a
	// trained model needs on top of i.i.d. noise (massive.go).
	cols  []colDist
	elems []elemValue
}

// colDist draws the elements i with i mod Stride == Col (a column of a
// row-major matrix with Stride columns) from Dist instead of the blob's.
type colDist struct {
	Col, Stride int64
	Dist        dist
}

// elemValue fixes element Index of a blob to Value (rounded to fp16).
type elemValue struct {
	Index int64
	Value float64
}

// Patch returns b with columns and single elements overridden (a later
// element wins over an earlier column). Element indices must be in range.
func (b *blob) Patch(cols []colDist, elems []elemValue) *blob {
	n := b.NumElements()
	for _, c := range cols {
		if c.Stride <= 0 || c.Col < 0 || c.Col >= c.Stride {
			panic(fmt.Sprintf("synth: blob %s: column %d of stride %d", b.Key, c.Col, c.Stride))
		}
	}
	for _, e := range elems {
		if e.Index < 0 || e.Index >= n {
			panic(fmt.Sprintf("synth: blob %s: element %d out of range %d", b.Key, e.Index, n))
		}
	}
	b.cols = append(b.cols, cols...)
	b.elems = append(b.elems, elems...)
	slices.SortStableFunc(b.elems, func(x, y elemValue) int { return cmp.Compare(x.Index, y.Index) })
	return b
}

// newBlob returns the fp16 blob named key of the given shape, drawn from d
// with the generator seeded by (seed, key).
func newBlob(seed uint64, key string, d dist, shape ...int64) *blob {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return &blob{Key: key, Shape: append([]int64(nil), shape...), Dist: d, seed: mix64(seed ^ mix64(h.Sum64()))}
}

// NumElements of the tensor.
func (b *blob) NumElements() int64 {
	n := int64(1)
	for _, d := range b.Shape {
		n *= d
	}
	return n
}

// Size is the blob's length in bytes (2 per element).
func (b *blob) Size() int64 { return 2 * b.NumElements() }

// Alignment is the blob's required alignment in bytes.
func (b *blob) Alignment() int { return 2 }

// ReadAt fills p with bytes [off, off+len(p)) of the blob (io.ReaderAt).
func (b *blob) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("synth: blob %s: negative offset %d", b.Key, off)
	}
	size := b.Size()
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := len(p)
	var err error
	if int64(n) > size-off {
		n = int(size - off)
		err = io.EOF
	}
	b.fill(p[:n], off)
	return n, err
}

// WriteTo streams the whole blob to w in 1 MiB chunks (io.WriterTo).
func (b *blob) WriteTo(w io.Writer) (int64, error) {
	buf := make([]byte, 1<<20)
	var done int64
	size := b.Size()
	for done < size {
		n := int64(len(buf))
		if size-done < n {
			n = size - done
		}
		b.fill(buf[:n], done)
		m, err := w.Write(buf[:n])
		done += int64(m)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// Bytes generates the whole blob in memory; only for small (tiny-scale)
// tensors and tests.
func (b *blob) Bytes() []byte {
	p := make([]byte, b.Size())
	b.fill(p, 0)
	return p
}

// Elem returns the fp16 bits of element i.
func (b *blob) Elem(i int64) uint16 {
	if len(b.elems) > 0 {
		k, ok := slices.BinarySearchFunc(b.elems, i, func(e elemValue, i int64) int { return cmp.Compare(e.Index, i) })
		for ok && k+1 < len(b.elems) && b.elems[k+1].Index == i {
			k++ // the last patch of an element wins
		}
		if ok {
			return f16.FromFloat64(b.elems[k].Value)
		}
	}
	d := b.Dist
	for _, c := range b.cols {
		if i%c.Stride == c.Col {
			d = c.Dist
		}
	}
	tbl := tableFor(d)
	r := mix64(b.seed + uint64(i/4)*golden)
	return tbl[uint16(r>>(16*uint(i%4)))]
}

const golden = 0x9E3779B97F4A7C15

// fill writes bytes [off, off+len(p)) of the blob into p. Element i is the
// (i%4)-th 16-bit lane of mix64(seed + (i/4)·golden), mapped through the
// distribution's table.
func (b *blob) fill(p []byte, off int64) {
	if len(p) == 0 {
		return
	}
	start, off0 := p, off
	tbl := tableFor(b.Dist)
	// Unaligned head: byte-by-byte through Elem.
	for len(p) > 0 && off%8 != 0 {
		e := b.Elem(off / 2)
		p[0] = byte(e >> (8 * uint(off%2)))
		p, off = p[1:], off+1
	}
	word := uint64(off / 8)
	for len(p) >= 8 {
		r := mix64(b.seed + word*golden)
		v := uint64(tbl[uint16(r)]) | uint64(tbl[uint16(r>>16)])<<16 |
			uint64(tbl[uint16(r>>32)])<<32 | uint64(tbl[uint16(r>>48)])<<48
		binary.LittleEndian.PutUint64(p, v)
		p, word, off = p[8:], word+1, off+8
	}
	for len(p) > 0 {
		e := b.Elem(off / 2)
		p[0] = byte(e >> (8 * uint(off%2)))
		p, off = p[1:], off+1
	}
	b.patch(start, off0)
}

// patch rewrites, in p (bytes [off, off+len(p)) of the blob), the elements
// the blob's columns and single elements override.
func (b *blob) patch(p []byte, off int64) {
	if len(b.cols) == 0 && len(b.elems) == 0 {
		return
	}
	end := off + int64(len(p))
	put := func(i int64) {
		e := b.Elem(i)
		for k := int64(0); k < 2; k++ {
			if at := 2*i + k; at >= off && at < end {
				p[at-off] = byte(e >> (8 * uint(k)))
			}
		}
	}
	first, last := off/2, (end-1)/2
	for _, c := range b.cols {
		i := first - (first%c.Stride+c.Stride-c.Col)%c.Stride // first i ≥ first with i ≡ Col
		if i < first {
			i += c.Stride
		}
		for ; i <= last; i += c.Stride {
			put(i)
		}
	}
	k, _ := slices.BinarySearchFunc(b.elems, first, func(e elemValue, i int64) int { return cmp.Compare(e.Index, i) })
	for ; k < len(b.elems) && b.elems[k].Index <= last; k++ {
		put(b.elems[k].Index)
	}
}

// mix64 is SplitMix64's finalizer: a bijective 64-bit mix with good
// avalanche, so consecutive counters give independent-looking words.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xBF58476D1CE4E5B9
	z ^= z >> 27
	z *= 0x94D049BB133111EB
	z ^= z >> 31
	return z
}

var tables sync.Map // Dist -> *[65536]uint16

// tableFor returns the quantile table of d: entry u is the fp16 value at
// probability (u+0.5)/65536.
func tableFor(d dist) *[65536]uint16 {
	if t, ok := tables.Load(d); ok {
		return t.(*[65536]uint16)
	}
	t := new([65536]uint16)
	for u := range t {
		p := (float64(u) + 0.5) / 65536
		var z float64
		if d.Uniform {
			z = 2*p - 1
		} else {
			z = math.Sqrt2 * math.Erfinv(2*p-1)
		}
		v := d.Mean + d.Std*z
		if d.InvSoftplusExp {
			v = math.Log(math.Expm1(math.Exp(v)))
		}
		t[u] = f16.FromFloat64(v)
	}
	actual, _ := tables.LoadOrStore(d, t)
	return actual.(*[65536]uint16)
}
