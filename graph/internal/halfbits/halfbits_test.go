package halfbits

import (
	"math"
	"testing"
)

// Every finite half must decode and re-encode to itself.
func TestRoundTripAllHalves(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := ToFloat64(h)
		got := FromFloat64(f)
		if math.IsNaN(f) {
			if got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("NaN %#04x re-encoded as %#04x", h, got)
			}
			continue
		}
		if got != h {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, got)
		}
	}
}

func TestRounding(t *testing.T) {
	cases := []struct {
		in   float64
		want uint16
	}{
		{1, 0x3c00},
		{65504, 0x7bff},
		{65519.99, 0x7bff}, // below the midpoint to 2^16: stays max finite
		{65520, 0x7c00},    // midpoint, ties to even -> inf
		{-1e9, 0xfc00},
		{0x1p-24, 0x0001},     // smallest subnormal
		{0x1p-25, 0x0000},     // half of it: tie to even -> 0
		{0x1.8p-25, 0x0001},   // above the tie
		{1 + 0x1p-11, 0x3c00}, // tie between 1 and next: even (1)
		{1 + 3*0x1p-11, 0x3c02},
		{0x1.ffcp-15, 0x0400}, // rounds up into the smallest normal
		{math.Copysign(0, -1), 0x8000},
	}
	for _, c := range cases {
		if got := FromFloat64(c.in); got != c.want {
			t.Errorf("FromFloat64(%v) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	// bf16 must agree with truncating float32 bits after RNE on exact float32 inputs.
	for _, f := range []float32{1, 3.14159, -2.5e-3, 1e38, 1.0000001} {
		b := math.Float32bits(f)
		r := b + 0x7fff + (b>>16)&1
		if got, want := BF16FromFloat64(float64(f)), uint16(r>>16); got != want {
			t.Errorf("BF16FromFloat64(%v) = %#04x, want %#04x", f, got, want)
		}
	}
}
