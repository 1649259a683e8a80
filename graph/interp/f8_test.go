package interp

import (
	"math"
	"testing"
)

func TestF8E4M3FN(t *testing.T) {
	// Every code decodes and encodes back to itself (NaN codes to NaN).
	for c := 0; c < 256; c++ {
		v := f8Decode(byte(c))
		if c&0x7f == 0x7f {
			if v == v {
				t.Errorf("code %#02x = %v, want NaN", c, v)
			}
			continue
		}
		if got := f8Encode(float64(v)); got != byte(c) {
			t.Errorf("code %#02x = %v encodes to %#02x", c, v, got)
		}
	}
	cases := []struct {
		x    float64
		want float32
	}{
		{448, 448}, {-448, -448}, {460, 448}, {464, float32(math.NaN())}, {1e9, float32(math.NaN())},
		{1.0625, 1},    // halfway between 1 (code 0x38, even) and 1.125: to even
		{1.1875, 1.25}, // halfway between 1.125 (0x39) and 1.25 (0x3a, even)
		{math.Ldexp(1, -9), float32(math.Ldexp(1, -9))}, // smallest subnormal
		{math.Ldexp(1, -10), 0},                         // half of it: ties to even (0)
		{0.3, 0.3125},
	}
	for _, c := range cases {
		got := f8Round(c.x)
		if got != c.want && !(got != got && c.want != c.want) {
			t.Errorf("f8Round(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

// f8Dense reads text the parser kept verbatim: any text gives a tensor or
// false, never a panic.
func FuzzF8Dense(f *testing.F) {
	f.Add(`dense<"0x38C07E01"> : tensor<4xf8E4M3FN>`)
	f.Add(`dense<[[0x38, 0xC0], [0x7E, 0x01]]> : tensor<2x2xf8E4M3FN>`)
	f.Add(`dense<0x38> : tensor<3xf8E4M3FN>`)
	f.Add(`dense<"0x3"> : tensor<1xf8E4M3FN>`)
	f.Add(`dense<[1, 2]> : tensor<?xf8E4M3FN>`)
	f.Fuzz(func(t *testing.T, s string) {
		if tt, ok := f8Dense(s); ok && tt.Len() != len(tt.F) {
			t.Fatalf("%q: %d elements for shape %v", s, len(tt.F), tt.Shape)
		}
	})
}
