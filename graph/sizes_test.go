package graph_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/anefix/anefix/graph"
)

// TestShapeSizes: element counts and byte sizes of shapes MLIR accepts,
// including counts past int64 (tensor<1x4294967296x4294967296xf16> is a legal
// type; its count wrapped to 0 before the checked arithmetic).
func TestShapeSizes(t *testing.T) {
	const big32 = int64(1) << 32
	cases := []struct {
		typ       string
		count     int64 // -1: an error
		bytes     int64 // -1: an error
		overflows bool  // the error is a SizeError
	}{
		{"tensor<2x3xf16>", 6, 12, false},
		{"tensor<f32>", 1, 4, false},
		{"tensor<0x4294967296x4294967296xf16>", 0, 0, false},
		{"tensor<4294967296x4294967296x0xf16>", 0, 0, false},
		{"tensor<1x4294967296x4294967296xf16>", -1, -1, true},
		{"tensor<4294967296x2147483648xi8>", -1, -1, true}, // 2^63
		{"tensor<4294967296x2147483647xi8>", big32 * (big32/2 - 1), big32 * (big32/2 - 1), false},
		{"tensor<2305843009213693952xf32>", 1 << 61, -1, true}, // 2^61 elements, 2^63 bytes
		{"tensor<1152921504606846976xf32>", 1 << 60, 1 << 62, false},
		{"tensor<9223372036854775807xi1>", math.MaxInt64, math.MaxInt64, false},
		{"tensor<9223372036854775807xi16>", math.MaxInt64, -1, true},
		{"tensor<?x4xf16>", -1, -1, false},
		{"tensor<*xf16>", -1, -1, false},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			tt := mustType(t, c.typ).(*graph.TensorType)
			n, err := tt.ElementCount()
			if c.count < 0 != (err != nil) || err == nil && n != c.count {
				t.Errorf("ElementCount = %d, %v; want %d", n, err, c.count)
			}
			if c.count < 0 && tt.NumElements() != -1 || c.count >= 0 && tt.NumElements() != c.count {
				t.Errorf("NumElements = %d, want %d", tt.NumElements(), c.count)
			}
			b, err := tt.ByteSize()
			if c.bytes < 0 != (err != nil) || err == nil && b != c.bytes {
				t.Errorf("ByteSize = %d, %v; want %d", b, err, c.bytes)
			}
			var se *graph.SizeError
			if c.overflows != errors.As(err, &se) || c.overflows != errors.Is(err, graph.ErrSizeOverflow) {
				t.Errorf("ByteSize error %v: SizeError %v, want %v", err, errors.As(err, &se), c.overflows)
			}
		})
	}
}

// TestSizeArithmetic checks MulSize, AddSize, SatMul, SatAdd, ShapeElements
// and ShapeElementsInt against exact big-integer arithmetic over generated
// operands: small, near 2^31, 2^32, 2^62 and MaxInt64, and negative.
func TestSizeArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	pick := func() int64 {
		switch r.IntN(8) {
		case 0:
			return r.Int64N(4)
		case 1:
			return 1<<31 + r.Int64N(3) - 1
		case 2:
			return 1<<32 + r.Int64N(3) - 1
		case 3:
			return 1<<62 + r.Int64N(3) - 1
		case 4:
			return math.MaxInt64 - r.Int64N(2)
		case 5:
			return -r.Int64N(3) - 1
		case 6:
			return r.Int64()
		}
		return r.Int64N(100000)
	}
	maxI := big.NewInt(math.MaxInt64)
	fits := func(x *big.Int) bool { return x.Sign() >= 0 && x.Cmp(maxI) <= 0 }
	for range 20000 {
		a, b := pick(), pick()
		ba, bb := big.NewInt(a), big.NewInt(b)
		prod := new(big.Int).Mul(ba, bb)
		sum := new(big.Int).Add(ba, bb)
		neg := a < 0 || b < 0
		if got, ok := graph.MulSize(a, b); ok != (!neg && fits(prod)) || ok && got != prod.Int64() {
			t.Fatalf("MulSize(%d, %d) = %d, %v; exact %s", a, b, got, ok, prod)
		}
		if got, ok := graph.AddSize(a, b); ok != (!neg && fits(sum)) || ok && got != sum.Int64() {
			t.Fatalf("AddSize(%d, %d) = %d, %v; exact %s", a, b, got, ok, sum)
		}
		ca, cb := max(a, 0), max(b, 0)
		wantMul := new(big.Int).Mul(big.NewInt(ca), big.NewInt(cb))
		if a <= 0 || b <= 0 {
			wantMul.SetInt64(0)
		}
		if !fits(wantMul) {
			wantMul.Set(maxI)
		}
		if got := graph.SatMul(a, b); got != wantMul.Int64() {
			t.Fatalf("SatMul(%d, %d) = %d, want %s", a, b, got, wantMul)
		}
		wantAdd := new(big.Int).Add(big.NewInt(ca), big.NewInt(cb))
		if !fits(wantAdd) {
			wantAdd.Set(maxI)
		}
		if got := graph.SatAdd(a, b); got != wantAdd.Int64() {
			t.Fatalf("SatAdd(%d, %d) = %d, want %s", a, b, got, wantAdd)
		}
	}
	for range 20000 {
		dims := make([]int64, r.IntN(6))
		exact := big.NewInt(1)
		neg := false
		for i := range dims {
			dims[i] = pick()
			neg = neg || dims[i] < 0
			exact.Mul(exact, big.NewInt(dims[i]))
		}
		got, ok := graph.ShapeElements(dims)
		if want := !neg && fits(exact); ok != want || ok && got != exact.Int64() {
			t.Fatalf("ShapeElements(%v) = %d, %v; exact %s", dims, got, ok, exact)
		}
		ints := make([]int, len(dims))
		for i, d := range dims {
			ints[i] = int(d)
		}
		gi, oki := graph.ShapeElementsInt(ints)
		if oki != ok || oki && int64(gi) != got {
			t.Fatalf("ShapeElementsInt(%v) = %d, %v; ShapeElements %d, %v", ints, gi, oki, got, ok)
		}
	}
}
