package synth

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"testing"

	"github.com/anefix/anefix/graph/f16"
)

// The bytes of a range must not depend on how it is split: writers stream
// and may read at any offset and length.
func TestBlobChunkingIndependent(t *testing.T) {
	b := newBlob(7, "model.layers.0.mlp.up_proj.weight", normal(0.05), 37, 11)
	whole := b.Bytes()
	if int64(len(whole)) != b.Size() || b.Size() != 2*37*11 {
		t.Fatalf("size %d, want %d", len(whole), 2*37*11)
	}
	for _, chunk := range []int{1, 3, 7, 8, 9, 64, 1000} {
		var got []byte
		for off := 0; off < len(whole); off += chunk {
			n := chunk
			if off+n > len(whole) {
				n = len(whole) - off
			}
			p := make([]byte, n)
			if _, err := b.ReadAt(p, int64(off)); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			got = append(got, p...)
		}
		if !bytes.Equal(got, whole) {
			t.Fatalf("chunk %d: bytes differ from a whole read", chunk)
		}
	}
	var buf bytes.Buffer
	if n, err := b.WriteTo(&buf); err != nil || n != b.Size() || !bytes.Equal(buf.Bytes(), whole) {
		t.Fatalf("WriteTo: n=%d err=%v equal=%v", n, err, bytes.Equal(buf.Bytes(), whole))
	}
	for i := int64(0); i < b.NumElements(); i++ {
		if got := binary.LittleEndian.Uint16(whole[2*i:]); got != b.Elem(i) {
			t.Fatalf("Elem(%d) = %#x, bytes say %#x", i, b.Elem(i), got)
		}
	}
}

func TestBlobReadAtBounds(t *testing.T) {
	b := newBlob(0, "w", normal(1), 4)
	p := make([]byte, 4)
	if n, err := b.ReadAt(p, 6); n != 2 || err != io.EOF {
		t.Fatalf("ReadAt past end: n=%d err=%v, want 2, EOF", n, err)
	}
	if n, err := b.ReadAt(p, 8); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt at end: n=%d err=%v", n, err)
	}
	if _, err := b.ReadAt(p, -1); err == nil {
		t.Fatal("negative offset accepted")
	}
}

func TestBlobSeedsAndKeys(t *testing.T) {
	a := newBlob(1, "k", normal(1), 64).Bytes()
	if !bytes.Equal(a, newBlob(1, "k", normal(1), 64).Bytes()) {
		t.Fatal("same seed and key gave different bytes")
	}
	if bytes.Equal(a, newBlob(2, "k", normal(1), 64).Bytes()) {
		t.Fatal("another seed gave the same bytes")
	}
	if bytes.Equal(a, newBlob(1, "k2", normal(1), 64).Bytes()) {
		t.Fatal("another key gave the same bytes")
	}
}

// The sample moments must match the requested distribution: the numerics
// work relies on realistic scales.
func TestBlobMoments(t *testing.T) {
	cases := []struct {
		name string
		d    dist
		// expected mean and std of the samples
		mean, std float64
	}{
		{"normal", normal(0.02), 0, 0.02},
		{"norm weight", dist{Mean: 1, Std: 0.05}, 1, 0.05},
		{"uniform", dist{Mean: 1.4, Std: 1.3, Uniform: true}, 1.4, 1.3 / math.Sqrt(3)},
	}
	for _, c := range cases {
		b := newBlob(3, c.name, c.d, 1<<16)
		var s, s2 float64
		n := float64(b.NumElements())
		for i := int64(0); i < b.NumElements(); i++ {
			v := f16.ToFloat64(b.Elem(i))
			s += v
			s2 += v * v
		}
		mean := s / n
		std := math.Sqrt(s2/n - mean*mean)
		if math.Abs(mean-c.mean) > 0.03*c.std+1e-3*math.Abs(c.mean) || math.Abs(std-c.std) > 0.03*c.std {
			t.Errorf("%s: mean %.5f std %.5f, want %.5f %.5f", c.name, mean, std, c.mean, c.std)
		}
	}
}

func BenchmarkBlobFill(b *testing.B) {
	blob := newBlob(0, "w", normal(0.02), 1<<20)
	buf := make([]byte, blob.Size())
	b.SetBytes(blob.Size())
	for i := 0; i < b.N; i++ {
		_, _ = blob.ReadAt(buf, 0)
	}
}
