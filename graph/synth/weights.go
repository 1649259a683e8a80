package synth

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"sync"

	"github.com/anefix/anefix/graph/f16"
)

// Dist is the distribution of a synthetic fp16 weight tensor: Mean + Std·N(0,1)
// (Uniform false) or Mean + U(-Std, Std) (Uniform true). Values are drawn by
// table lookup: a 16-bit uniform variate indexes a 65536-entry table of fp16
// quantiles, which is both fast (about a nanosecond per element) and gives a
// real Gaussian shape clipped near ±4.3σ.
type Dist struct {
	Mean, Std float64
	Uniform   bool
}

// Normal is a zero-mean Gaussian with the given standard deviation.
func Normal(std float64) Dist { return Dist{Std: std} }

// Blob is one synthetic weight tensor stored as a dense_resource blob: little
// endian fp16, generated on demand. Any byte range can be generated on its
// own (the generator is counter based), so a writer can stream a 1.5 GB
// module in chunks, in parallel, without holding it in memory, and the bytes
// do not depend on how the range is split.
type Blob struct {
	Key   string  // resource key, the parameter's dotted name
	Shape []int64 // tensor shape
	Dist  Dist
	seed  uint64
}

// NewBlob returns the fp16 blob named key of the given shape, drawn from d
// with the generator seeded by (seed, key).
func NewBlob(seed uint64, key string, d Dist, shape ...int64) *Blob {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return &Blob{Key: key, Shape: append([]int64(nil), shape...), Dist: d, seed: mix64(seed ^ mix64(h.Sum64()))}
}

// NumElements of the tensor.
func (b *Blob) NumElements() int64 {
	n := int64(1)
	for _, d := range b.Shape {
		n *= d
	}
	return n
}

// Size is the blob's length in bytes (2 per element).
func (b *Blob) Size() int64 { return 2 * b.NumElements() }

// Alignment is the blob's required alignment in bytes.
func (b *Blob) Alignment() int { return 2 }

// ReadAt fills p with bytes [off, off+len(p)) of the blob (io.ReaderAt).
func (b *Blob) ReadAt(p []byte, off int64) (int, error) {
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
func (b *Blob) WriteTo(w io.Writer) (int64, error) {
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
func (b *Blob) Bytes() []byte {
	p := make([]byte, b.Size())
	b.fill(p, 0)
	return p
}

// Elem returns the fp16 bits of element i.
func (b *Blob) Elem(i int64) uint16 {
	tbl := tableFor(b.Dist)
	r := mix64(b.seed + uint64(i/4)*golden)
	return tbl[uint16(r>>(16*uint(i%4)))]
}

const golden = 0x9E3779B97F4A7C15

// fill writes bytes [off, off+len(p)) of the blob into p. Element i is the
// (i%4)-th 16-bit lane of mix64(seed + (i/4)·golden), mapped through the
// distribution's table.
func (b *Blob) fill(p []byte, off int64) {
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
func tableFor(d Dist) *[65536]uint16 {
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
		t[u] = f16.FromFloat64(d.Mean + d.Std*z)
	}
	actual, _ := tables.LoadOrStore(d, t)
	return actual.(*[65536]uint16)
}
