package anefacts

import "testing"

// StreamSafeK against hand derivations: the guess is 4 channels at 4096
// (4·2^24 = 2^26) plus one per other channel, and k is the smallest with
// sum·2^-2k ≤ 32752.
func TestStreamSafeK(t *testing.T) {
	for _, c := range []struct {
		d    int64
		want int
		why  string
	}{
		{0, 6, "2^26·2^-10 = 65536 > 32752; 2^26·2^-12 = 16384"},
		{32, 6, "tiny synth arm A's width: (2^26 + 28)·2^-12 = 16384.0068"},
		{1024, 6, "(2^26 + 1020)·2^-12 = 16384.25"},
		{1 << 26, 7, "(2^27 - 4)·2^-12 = 32767.999 > 32752; ·2^-14 = 8192"},
		{1 << 40, 13, "(2^40 + 2^26 - 4)·2^-26 = 16385 ≤ 32752; ·2^-24 = 65540 > 32752"},
	} {
		if got := StreamSafeK(c.d); got != c.want {
			t.Errorf("StreamSafeK(%d) = %d, want %d (%s)", c.d, got, c.want, c.why)
		}
	}
	if got := StreamSafeK(1 << 50); got != 14 {
		t.Errorf("StreamSafeK(2^50) = %d, want the cap 14 (2^50·2^-28 = 2^22 > 32752)", got)
	}
}
