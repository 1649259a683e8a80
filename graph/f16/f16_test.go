package f16_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/interp/refvec"
	"github.com/anefix/anefix/graph/oracle"
)

// Every half widens exactly and narrows back to itself (NaNs stay NaN with
// the quiet bit set).
func TestAllHalvesRoundTrip(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := f16.ToFloat32(h)
		if f16.IsNaN(h) {
			if f == f {
				t.Fatalf("%#04x widened to %v, want NaN", h, f)
			}
			if g := f16.FromFloat32(f); g != h|0x200 {
				t.Fatalf("NaN %#04x -> %#04x, want %#04x", h, g, h|0x200)
			}
			continue
		}
		if g := f16.FromFloat32(f); g != h {
			t.Fatalf("FromFloat32(ToFloat32(%#04x)=%v) = %#04x", h, f, g)
		}
		if g := f16.FromFloat64(float64(f)); g != h {
			t.Fatalf("FromFloat64(%v) = %#04x, want %#04x", f, g, h)
		}
		if f16.ToFloat64(h) != float64(f) {
			t.Fatalf("ToFloat64(%#04x) differs from ToFloat32", h)
		}
	}
}

// Independent check of the widening: value = (-1)^s × 2^(e-15) × 1.m.
func TestToFloat32Formula(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		e, m := int(h>>10&0x1f), float64(h&0x3ff)
		if e == 0x1f {
			continue
		}
		var want float64
		if e == 0 {
			want = math.Ldexp(m, -24)
		} else {
			want = math.Ldexp(1+m/1024, e-15)
		}
		if h&0x8000 != 0 {
			want = -want
		}
		if got := float64(f16.ToFloat32(h)); got != want && !(got == 0 && want == 0) {
			t.Fatalf("%#04x: got %v want %v", h, got, want)
		}
	}
}

// Ties between consecutive halves go to the even one; a hair either side
// goes to the nearer one.
func TestTiesToEven(t *testing.T) {
	for i := 0; i < 0x7bff; i++ {
		lo, hi := uint16(i), uint16(i+1)
		a, b := f16.ToFloat64(lo), f16.ToFloat64(hi)
		mid := (a + b) / 2
		even := lo
		if lo&1 == 1 {
			even = hi
		}
		for _, sign := range []float64{1, -1} {
			s := uint16(0)
			if sign < 0 {
				s = 0x8000
			}
			if g := f16.FromFloat64(sign * mid); g != even|s {
				t.Fatalf("tie %v: got %#04x want %#04x", sign*mid, g, even|s)
			}
			if g := f16.FromFloat32(float32(sign * mid)); g != even|s {
				t.Fatalf("f32 tie %v: got %#04x want %#04x", sign*mid, g, even|s)
			}
			if g := f16.FromFloat64(sign * math.Nextafter(mid, 0)); g != lo|s {
				t.Fatalf("below tie %v: got %#04x want %#04x", mid, g, lo|s)
			}
			if g := f16.FromFloat64(sign * math.Nextafter(mid, math.Inf(1))); g != hi|s {
				t.Fatalf("above tie %v: got %#04x want %#04x", mid, g, hi|s)
			}
		}
	}
}

func TestSpecials(t *testing.T) {
	cases := []struct {
		in   float64
		want uint16
	}{
		{0, 0}, {math.Copysign(0, -1), 0x8000},
		{65504, 0x7bff}, {65519.99, 0x7bff}, {65520, 0x7c00}, {-65520, 0xfc00}, {1e10, 0x7c00},
		{math.Inf(1), 0x7c00}, {math.Inf(-1), 0xfc00},
		{math.Ldexp(1, -24), 0x0001}, {math.Ldexp(1, -25), 0}, {math.Ldexp(1.0001, -25), 0x0001},
		{math.Ldexp(3, -25), 0x0002}, // 1.5 × 2^-24: tie between 1 and 2, to even
		{math.Ldexp(1, -14), 0x0400}, {math.Ldexp(1023, -24), 0x03ff}, {math.Ldexp(1023.5, -24), 0x0400},
		{1, 0x3c00}, {-2, 0xc000}, {1e-30, 0}, {5e-324, 0},
	}
	for _, c := range cases {
		if g := f16.FromFloat64(c.in); g != c.want {
			t.Errorf("FromFloat64(%g) = %#04x, want %#04x", c.in, g, c.want)
		}
		if float64(float32(c.in)) == c.in || c.in > 1e30 {
			if g := f16.FromFloat32(float32(c.in)); g != c.want {
				t.Errorf("FromFloat32(%g) = %#04x, want %#04x", c.in, g, c.want)
			}
		}
	}
	if h := f16.FromFloat32(float32(math.NaN())); !f16.IsNaN(h) {
		t.Errorf("NaN -> %#04x", h)
	}
	if h := f16.FromFloat64(-math.NaN()); !f16.IsNaN(h) {
		t.Errorf("-NaN -> %#04x", h)
	}
	// A signalling float32 NaN whose payload sits below half's mantissa must
	// not become infinity.
	if h := f16.FromFloat32(math.Float32frombits(0x7f800001)); !f16.IsNaN(h) {
		t.Errorf("sNaN -> %#04x", h)
	}
}

// The float32 fast path agrees with the float64 path (a float32 widens to
// float64 exactly, so both see the same value). All 2^32 inputs with
// ANEFIX_EXHAUSTIVE=1; otherwise every exponent/sign with varied mantissas.
func TestFromFloat32MatchesFloat64(t *testing.T) {
	step := uint64(1)
	if _, all := oracle.OptedIn("ANEFIX_EXHAUSTIVE"); !all {
		step = 4099 // prime stride: touches every exponent and many mantissa patterns
	}
	for b := uint64(0); b < 1<<32; b += step {
		f := math.Float32frombits(uint32(b))
		g32, g64 := f16.FromFloat32(f), f16.FromFloat64(float64(f))
		if f != f {
			if !f16.IsNaN(g32) || !f16.IsNaN(g64) {
				t.Fatalf("%#08x: NaN lost (%#04x, %#04x)", b, g32, g64)
			}
			continue
		}
		if g32 != g64 {
			t.Fatalf("%#08x (%g): FromFloat32 %#04x, FromFloat64 %#04x", b, f, g32, g64)
		}
	}
	// Around every half tie in float32 precision.
	for i := 0; i < 0x7c00; i++ {
		mid := float32((f16.ToFloat64(uint16(i)) + f16.ToFloat64(uint16(i+1))) / 2)
		for _, f := range []float32{mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, 1e9)} {
			if g32, g64 := f16.FromFloat32(f), f16.FromFloat64(float64(f)); g32 != g64 {
				t.Fatalf("%g: %#04x vs %#04x", f, g32, g64)
			}
		}
	}
}

func loadVec(t *testing.T) *refvec.File {
	t.Helper()
	f, err := refvec.ReadFile(filepath.Join("..", "..", "testdata", "numpy", "f16_round.vec.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// numpy's float32/float64 → float16 casts (testdata/numpy/gen.py), bit for bit.
func TestAgainstNumpy(t *testing.T) {
	f := loadVec(t)
	in32, _ := f.Get("round32/in0")
	out32, _ := f.Get("round32/out")
	in64, _ := f.Get("round64/in0")
	out64, _ := f.Get("round64/out")
	if in32 == nil || out32 == nil || in64 == nil || out64 == nil || in32.Len() != out32.Len() || in64.Len() != out64.Len() {
		t.Fatal("f16_round.vec.gz lacks the round32/round64 records")
	}
	check := func(kind string, n int, in func(int) float64, got func(int) uint16, want func(int) uint16) {
		bad := 0
		for i := 0; i < n; i++ {
			g, w := got(i), want(i)
			if f16.IsNaN(w) && f16.IsNaN(g) {
				continue
			}
			if g != w {
				if bad < 10 {
					t.Errorf("%s %g: got %#04x, numpy %#04x", kind, in(i), g, w)
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d differ from numpy", kind, bad, n)
		}
		t.Logf("%s: %d values bit-identical to numpy", kind, n)
	}
	check("float32", in32.Len(),
		func(i int) float64 { return float64(math.Float32frombits(in32.F32(i))) },
		func(i int) uint16 { return f16.FromFloat32(math.Float32frombits(in32.F32(i))) },
		out32.U16)
	check("float64", in64.Len(),
		func(i int) float64 { return math.Float64frombits(in64.U64(i)) },
		func(i int) uint16 { return f16.FromFloat64(math.Float64frombits(in64.U64(i))) },
		out64.U16)
}

func TestBF16(t *testing.T) {
	// Every bfloat16 round-trips; float32 and float64 paths agree.
	for i := 0; i < 1<<16; i++ {
		b := uint16(i)
		f := f16.BF16ToFloat32(b)
		g := f16.BF16FromFloat32(f)
		if f != f {
			if g&0x7f80 != 0x7f80 || g&0x7f == 0 {
				t.Fatalf("bf16 NaN %#04x -> %#04x", b, g)
			}
			continue
		}
		if g != b || f16.BF16FromFloat64(float64(f)) != b {
			t.Fatalf("bf16 %#04x -> %v -> %#04x", b, f, g)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := math.Float32frombits(r.Uint32())
		if f != f {
			continue
		}
		if a, b := f16.BF16FromFloat32(f), f16.BF16FromFloat64(float64(f)); a != b {
			t.Fatalf("bf16(%g): f32 path %#04x, f64 path %#04x", f, a, b)
		}
	}
	// Ties to even and overflow.
	if g := f16.BF16FromFloat32(math.Float32frombits(0x3f808000)); g != 0x3f80 {
		t.Errorf("tie down: %#04x", g)
	}
	if g := f16.BF16FromFloat32(math.Float32frombits(0x3f818000)); g != 0x3f82 {
		t.Errorf("tie up: %#04x", g)
	}
	if g := f16.BF16FromFloat32(math.MaxFloat32); g != 0x7f80 {
		t.Errorf("overflow: %#04x", g)
	}
	// A float64 just above a bfloat16 tie by less than float32 resolution:
	// a float32 detour would land on the tie and round to even (down).
	x := float64(math.Float32frombits(0x3f808000)) + math.Ldexp(1, -40)
	if g := f16.BF16FromFloat64(x); g != 0x3f81 {
		t.Errorf("double rounding: %#04x, want 0x3f81", g)
	}
}

func TestF32ToF16LE(t *testing.T) {
	vals := []float32{1, 65504, 65520, -1e6, 1e-8, -1e-9, 0, float32(math.NaN()), float32(math.Inf(1)), 3e-8}
	src := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(v))
	}
	dst := make([]byte, 2*len(vals))
	st, err := f16.F32ToF16LE(dst, src)
	if err != nil {
		t.Fatal(err)
	}
	want := f16.Stats{Count: 10, Overflow: 2, Underflow: 2, NaN: 1}
	if st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	for i, v := range vals {
		if g, w := binary.LittleEndian.Uint16(dst[2*i:]), f16.FromFloat32(v); g != w {
			t.Errorf("elem %d: %#04x want %#04x", i, g, w)
		}
	}
	back := make([]byte, len(src))
	if err := f16.F16ToF32LE(back, dst); err != nil {
		t.Fatal(err)
	}
	if math.Float32frombits(binary.LittleEndian.Uint32(back)) != 1 {
		t.Error("widen back failed")
	}
	if _, err := f16.F32ToF16LE(dst, src[:5]); err == nil {
		t.Error("odd length accepted")
	}
	if _, err := f16.F32ToF16LE(dst[:3], src); err == nil {
		t.Error("short destination accepted")
	}
	if err := f16.F16ToF32LE(back[:3], dst); err == nil {
		t.Error("short destination accepted")
	}
}

func BenchmarkFromFloat32(b *testing.B) {
	xs := make([]float32, 4096)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range xs {
		xs[i] = float32(r.NormFloat64())
	}
	b.SetBytes(4)
	var sink uint16
	for i := 0; b.Loop(); i++ {
		sink ^= f16.FromFloat32(xs[i&4095])
	}
	_ = sink
}

func BenchmarkToFloat32(b *testing.B) {
	b.SetBytes(2)
	var sink float32
	for i := 0; b.Loop(); i++ {
		sink += f16.ToFloat32(uint16(i))
	}
	_ = sink
}
