package graph

import (
	"math/rand/v2"
	"testing"
)

// PackBits and UnpackBits round-trip every width and length, and agree
// with the bit stream written bit by bit (element i at bits [i·w, (i+1)·w),
// LSB first: graph/subbyte.go's layout).
func TestPackBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, w := range []int{1, 2, 3, 4, 6, 8} {
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 31, 100} {
			vals := make([]uint8, n)
			for i := range vals {
				vals[i] = uint8(r.IntN(1 << w))
			}
			got := make([]byte, PackedSize(int64(n), w))
			PackBits(got, vals, w)
			want := make([]byte, len(got))
			for i, v := range vals {
				for b := 0; b < w; b++ {
					if v>>b&1 == 1 {
						k := i*w + b
						want[k/8] |= 1 << (k % 8)
					}
				}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("w=%d n=%d: byte %d is %#02x, want %#02x", w, n, i, got[i], want[i])
				}
			}
			back := make([]uint8, n)
			UnpackBits(back, got, n, w)
			for i := range vals {
				if back[i] != vals[i] {
					t.Fatalf("w=%d n=%d: element %d unpacks to %d, want %d", w, n, i, back[i], vals[i])
				}
			}
			if e, b := PackUnit(w); int64(b) != PackedSize(int64(e), w) || (e*w)%8 != 0 {
				t.Fatalf("PackUnit(%d) = %d, %d", w, e, b)
			}
		}
	}
	if SubByteWidth(I1) != 0 || SubByteWidth(&IntegerType{Width: 1, Signedness: Unsigned}) != 1 || SubByteWidth(SI8) != 0 || SubByteWidth(&IntegerType{Width: 4, Signedness: Signed}) != 4 {
		t.Fatal("SubByteWidth")
	}
}
