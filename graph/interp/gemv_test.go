package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/oracle"
)

// randHalfBits draws weight bits: mostly ordinary weights, some arbitrary
// bit patterns (subnormals, ±inf, ±0) and NaNs with payloads, so that
// NaN meets NaN in products and sums (x86 keeps the first operand's).
func randHalfBits(r *rand.Rand) uint16 {
	switch r.IntN(8) {
	case 0, 1:
		return uint16(r.Uint32())
	case 2: // a NaN with a random payload, sign and quiet bit
		return 0x7c01 | uint16(r.Uint32())&0x83ff
	}
	return f16.FromFloat32(float32(r.NormFloat64() * 0.05))
}

// randAct draws activations: f16 values, float32 values, arbitrary float32
// bits, huge values that overflow a product, and zeros of both signs.
func randAct(r *rand.Rand) float32 {
	switch r.IntN(9) {
	case 0:
		return math.Float32frombits(r.Uint32())
	case 8: // a NaN with a random payload, sign and quiet bit
		return math.Float32frombits(0x7f800001 | r.Uint32()&0x807fffff)
	case 1:
		return float32(r.NormFloat64() * 1e30)
	case 2:
		return float32(math.Copysign(0, r.NormFloat64()))
	case 3:
		return f16.ToFloat32(f16.FromFloat32(float32(r.NormFloat64())))
	}
	return float32(r.NormFloat64() * 3)
}

// The vector kernel gives dot4h's bits (the kernel it replaces for these
// rows), NaN payloads and signed zeros included, for every length (whole
// blocks of 8 and tails) and stride.
func TestDot8hMatchesDot4h(t *testing.T) {
	if !useDot8 {
		t.Skip("no vector kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, K := range []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1024, 1029} {
		for _, pad := range []int{0, 1, 13} {
			for trial := range 20 {
				stride := K + pad
				x := make([]float32, K)
				h := make([]uint16, 7*stride+K)
				special := trial%2 == 0 // half the trials: plain values only
				for i := range x {
					if special {
						x[i] = randAct(r)
					} else {
						x[i] = float32(r.NormFloat64())
					}
				}
				for i := range h {
					if special {
						h[i] = randHalfBits(r)
					} else {
						h[i] = f16.FromFloat32(float32(r.NormFloat64() * 0.05))
					}
				}
				var got [8]float32
				dot8h(x, h, stride, &got)
				row := func(r int) []uint16 { return h[r*stride : r*stride+K] }
				var want [8]float32
				want[0], want[1], want[2], want[3] = dot4h(x, row(0), row(1), row(2), row(3))
				want[4], want[5], want[6], want[7] = dot4h(x, row(4), row(5), row(6), row(7))
				for row := range 8 {
					want := want[row]
					if math.Float32bits(got[row]) != math.Float32bits(want) {
						t.Fatalf("K=%d stride=%d trial %d row %d: vector %#08x (%g), scalar %#08x (%g)", K, stride, trial, row,
							math.Float32bits(got[row]), got[row], math.Float32bits(want), want)
					}
				}
			}
		}
	}
}

// Sums that are long enough to depend on their order (many terms of mixed
// magnitude) come out the same: the vector kernel does not reassociate.
func TestDot8hKeepsOrder(t *testing.T) {
	if !useDot8 {
		t.Skip("no vector kernel on this CPU")
	}
	K := 4096
	x := make([]float32, K)
	h := make([]uint16, 8*K)
	for k := range x {
		x[k] = float32(math.Pow(-1, float64(k))) * float32(1+k%7) * 1e3
	}
	for i := range h {
		h[i] = f16.FromFloat32(1 / float32(1+i%11))
	}
	var got [8]float32
	dot8h(x, h, K, &got)
	differs := false
	for row := range 8 {
		want := dot1h(x, h[row*K:(row+1)*K])
		// the pairwise (reordered) sum differs, so this case can tell
		var pair float32
		var p [8]float32
		for k, v := range x {
			p[k%8] += float32(v * f16.ToFloat32(h[row*K+k]))
		}
		for _, v := range p {
			pair += v
		}
		if math.Float32bits(got[row]) != math.Float32bits(want) {
			t.Fatalf("row %d: vector %g, sequential %g (reordered would be %g)", row, got[row], want, pair)
		}
		differs = differs || pair != want
	}
	if !differs {
		t.Fatal("the inputs do not tell a reordered sum from the sequential one")
	}
}

// MatMul and a 1×1 Conv give the same bits with the vector kernels as
// without them: raw f16 weights in both orientations (row counts that leave
// 4- and 1-row remainders) and the row form over a float B (column counts
// that leave a tail of fewer than eight).
func TestMatMulVectorKernelSameBits(t *testing.T) {
	if !useDot8 {
		t.Skip("no vector kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(3, 4))
	raw := func(n int) []byte {
		b := make([]byte, 2*n)
		for i := 0; i < n; i++ {
			h := randHalfBits(r)
			b[2*i], b[2*i+1] = byte(h), byte(h>>8)
		}
		return b
	}
	act := func(shape ...int) *Tensor {
		v := make([]float32, numel(shape))
		for i := range v {
			v[i] = randAct(r)
		}
		return NewFloat(F32, shape, v)
	}
	run := func(f func() (*Tensor, error)) []float32 {
		got, err := f()
		if err != nil {
			t.Fatal(err)
		}
		return got.Floats()
	}
	for _, tc := range []struct{ M, K, N int }{{1, 67, 29}, {1, 1024, 77}, {3, 40, 13}, {2, 9, 8}} {
		for _, outEl := range []Elem{F16, F32} {
			// x [M,K] · W^T where W [N,K] is a raw weight transposed lazily
			w := &Tensor{Elem: F16, Shape: []int{tc.N, tc.K}, raw: raw(tc.N * tc.K), rawEl: F16}
			x := act(tc.M, tc.K)
			mm := func() (*Tensor, error) { return MatMul(x, w, false, true, outEl, false) }
			// conv1x1: W [N,K,1,1] rows times x [1,K,1,M]
			cw := &Tensor{Elem: F16, Shape: []int{tc.N, tc.K, 1, 1}, raw: w.raw, rawEl: F16}
			cx := act(1, tc.K, 1, tc.M)
			cv := func() (*Tensor, error) { return Conv(cx, cw, nil, convParams{}, outEl, false) }
			// row form: x [M,K] · B [K,N] with B float (activations, a
			// KV cache), and the same with x a raw f16 weight
			rb := act(tc.K, tc.N+16)
			rx := &Tensor{Elem: F16, Shape: []int{tc.M, tc.K}, raw: raw(tc.M * tc.K), rawEl: F16}
			rf := func() (*Tensor, error) { return MatMul(x, rb, false, false, outEl, false) }
			rr := func() (*Tensor, error) { return MatMul(rx, rb, false, false, outEl, false) }
			for name, f := range map[string]func() (*Tensor, error){"matmul": mm, "conv1x1": cv, "row form": rf, "row form, raw A": rr} {
				useDot8 = true
				vec := run(f)
				useDot8 = false
				sc := run(f)
				useDot8 = true
				for i := range vec {
					if math.Float32bits(vec[i]) != math.Float32bits(sc[i]) {
						t.Fatalf("%s %v out %s: element %d: vector %g, scalar %g", name, tc, outEl, i, vec[i], sc[i])
					}
				}
			}
		}
	}
}

// round16 (F16C on amd64) gives f16.Round32's bits around every half: each
// half value, its float32 neighbours, the midpoints to the next half and
// theirs (ties to even), both signs, NaNs with payloads, float32 subnormals,
// the overflow threshold, plus random bit patterns. With
// ANEFIX_EXHAUSTIVE=1 it checks all 2^32 float32 bit patterns.
func TestRound16MatchesRound32(t *testing.T) {
	var in []float32
	add := func(b uint32) { in = append(in, math.Float32frombits(b)) }
	for h := 0; h < 1<<16; h++ {
		v := math.Float32bits(f16.ToFloat32(uint16(h)))
		next := math.Float32bits(f16.ToFloat32(uint16(h + 1)))
		mid := v + (next-v)/2
		for _, b := range []uint32{v, v - 1, v + 1, mid, mid - 1, mid + 1} {
			add(b)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 1 << 20 {
		add(r.Uint32())
	}
	for _, b := range []uint32{0x477fefff, 0x477ff000, 0x477ff001, 0x7f800001, 0xffbfffff, 0x00000001, 0x807fffff} {
		add(b)
	}
	check := func(in []float32) {
		got := append([]float32(nil), in...)
		round16(got)
		for i, v := range in {
			if w := f16.Round32(v); math.Float32bits(got[i]) != math.Float32bits(w) {
				t.Fatalf("%#08x: round16 %#08x, Round32 %#08x", math.Float32bits(v), math.Float32bits(got[i]), math.Float32bits(w))
			}
		}
	}
	check(in)
	check(in[:13]) // a tail shorter than a block
	if _, all := oracle.OptedIn("ANEFIX_EXHAUSTIVE"); !all {
		return
	}
	buf := make([]float32, 1<<20)
	for hi := uint64(0); hi < 1<<32; hi += uint64(len(buf)) {
		for i := range buf {
			buf[i] = math.Float32frombits(uint32(hi) + uint32(i))
		}
		check(buf)
	}
}

// broadcastBinary's direct loops (binRowDirect) give the bits of binaryFloat's
// functions, NaN payloads included, same-shape and with a scalar operand.
func TestBinRowDirectSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	n := 4096
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = randAct(r), randAct(r)
	}
	for _, op := range []string{"add", "sub", "mul"} {
		fn := binaryFloat[op]
		for _, scalar := range []bool{false, true} {
			got := make([]float32, n)
			if !binRowDirect(op, got, x, y, scalar) {
				t.Fatalf("%s: no direct loop", op)
			}
			for i := range got {
				yv := y[i]
				if scalar {
					yv = y[0]
				}
				if w := fn(x[i], yv); math.Float32bits(got[i]) != math.Float32bits(w) {
					t.Fatalf("%s scalar=%v: %#08x op %#08x: direct %#08x, function %#08x", op, scalar,
						math.Float32bits(x[i]), math.Float32bits(yv), math.Float32bits(got[i]), math.Float32bits(w))
				}
			}
		}
	}
	for _, op := range []string{"add", "sub", "mul"} {
		fn := binaryFloat[op]
		got := make([]float32, n)
		if !binRowScalarFirst(op, got, x[0], y) {
			t.Fatalf("%s: no direct loop for a scalar first operand", op)
		}
		for i := range got {
			if w := fn(x[0], y[i]); math.Float32bits(got[i]) != math.Float32bits(w) {
				t.Fatalf("%s scalar first: %#08x op %#08x: direct %#08x, function %#08x", op,
					math.Float32bits(x[0]), math.Float32bits(y[i]), math.Float32bits(got[i]), math.Float32bits(w))
			}
		}
	}
	// and through broadcastBinary, broadcasting a [n] row against [1] and [n]
	a := NewFloat(F32, []int{n}, x)
	for _, b := range []*Tensor{NewFloat(F32, []int{n}, y), NewFloat(F32, []int{1}, y[:1])} {
		for _, op := range []string{"add", "sub", "mul"} {
			got, err := broadcastBinary(op, a, b, F32)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range got.F {
				w := binaryFloat[op](x[i], b.F[i%len(b.F)])
				if math.Float32bits(v) != math.Float32bits(w) {
					t.Fatalf("Binary %s %v: element %d: %#08x, want %#08x", op, b.Shape, i, math.Float32bits(v), math.Float32bits(w))
				}
			}
		}
	}
}

// Transpose gives the definition's order, float (by rows) and integer
// tensors alike: output element c is input element Σ_i c[i]·st[perm[i]]
// (st the input's row-major strides), for every permutation of a rank-4
// tensor, ranks 0 and 1, and an empty tensor.
func TestTransposeOrder(t *testing.T) {
	count := 0
	check := func(shape []int, p []int64) {
		f := make([]float32, numel(shape))
		iv := make([]int64, len(f))
		for i := range f {
			f[i], iv[i] = float32(i), int64(i)
		}
		a, err := transpose(NewFloat(F32, shape, f), p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := transpose(NewInt(SI64, shape, iv), p)
		if err != nil {
			t.Fatal(err)
		}
		ist := stridesOf(shape)
		oshape := make([]int, len(p))
		for i, d := range p {
			oshape[i] = shape[d]
		}
		if !slices.Equal(a.Shape, oshape) || !slices.Equal(b.Shape, oshape) || len(a.F) != len(f) || len(b.I) != len(f) {
			t.Fatalf("shape %v perm %v: shapes %v and %v, want %v", shape, p, a.Shape, b.Shape, oshape)
		}
		c := make([]int, len(p))
		for k := range f {
			want := 0
			for i, d := range p {
				want += c[i] * ist[d]
			}
			if int(a.F[k]) != want || int(b.I[k]) != want {
				t.Fatalf("shape %v perm %v: element %d: float %v, int %v, want %d", shape, p, k, a.F[k], b.I[k], want)
			}
			for i := len(c) - 1; i >= 0; i-- {
				if c[i]++; c[i] < oshape[i] {
					break
				}
				c[i] = 0
			}
		}
		count++
	}
	var perm func(p []int64, used int)
	perm = func(p []int64, used int) {
		if len(p) == 4 {
			check([]int{2, 3, 4, 5}, p)
			return
		}
		for d := int64(0); d < 4; d++ {
			if used&(1<<d) == 0 {
				perm(append(append([]int64(nil), p...), d), used|1<<d)
			}
		}
	}
	perm(nil, 0)
	check(nil, nil)
	check([]int{7}, []int64{0})
	check([]int{3, 0, 2}, []int64{2, 0, 1})
	if count != 27 {
		t.Fatalf("checked %d permutations, want 27", count)
	}
}

// randActANE draws activations for the ane kernels: mostly halves (the
// profile's operands), with ±0, ±inf, half NaNs with payloads, half
// subnormals (products underflow the half range), values large enough
// that products pass 65504 (overflow to inf) or land near it, values whose
// products fall on rounding midpoints, and raw float32 bits. wide adds
// NaNs whose payload has bits below a half's ten.
func randActANE(r *rand.Rand, wide bool) float32 {
	switch r.IntN(12) {
	case 0:
		return float32(math.Copysign(0, r.NormFloat64()))
	case 1:
		return float32(math.Inf(1 - 2*r.IntN(2)))
	case 2: // a half NaN: payload in the top ten bits
		return f16.ToFloat32(0x7c01 | uint16(r.Uint32())&0x83ff)
	case 3: // half subnormals and the smallest normals
		return f16.ToFloat32(uint16(r.IntN(0x800)) | uint16(r.IntN(2))<<15)
	case 4: // with weights near 0.05-1, products past 65504 or near it
		return f16.Round32(float32(r.NormFloat64() * 6e4))
	case 5:
		b := math.Float32frombits(r.Uint32())
		if wide || b == b {
			return b
		}
		return f16.Round32(b) // a NaN, its payload cut to a half's
	case 6:
		if wide {
			return math.Float32frombits(0x7f800001 | r.Uint32()&0x807fffff)
		}
	}
	return f16.Round32(float32(r.NormFloat64() * 3))
}

// dot8RoundedH gives dot4RoundedH's bits (the scalar ane kernel it stands
// in for), NaN payloads, signed zeros, overflow and underflow included, for
// every length and stride, on activations without wide NaNs (NaN sums are
// recomputed by the scalar kernel; TestDot8RoundedHWideNaN shows why).
func TestDot8RoundedHMatchesScalar(t *testing.T) {
	if !useDot8 {
		t.Skip("no vector kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, K := range []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1024, 1029} {
		for _, pad := range []int{0, 1, 13} {
			for trial := range 20 {
				stride := K + pad
				x := make([]float32, K)
				h := make([]uint16, 7*stride+K)
				special := trial%2 == 0
				for i := range x {
					if special {
						x[i] = randActANE(r, false)
					} else {
						x[i] = f16.Round32(float32(r.NormFloat64()))
					}
				}
				for i := range h {
					if special {
						h[i] = randHalfBits(r)
					} else {
						h[i] = f16.FromFloat32(float32(r.NormFloat64() * 0.05))
					}
				}
				for _, v := range x {
					if b := math.Float32bits(v); v != v && b&0x1fff != 0 {
						t.Fatalf("test input %#08x is a wide NaN", b)
					}
				}
				var got [8]float32
				dot8RoundedH(x, h, stride, &got)
				row := func(r int) []uint16 { return h[r*stride : r*stride+K] }
				var want [8]float32
				want[0], want[1], want[2], want[3] = dot4RoundedH(x, row(0), row(1), row(2), row(3))
				want[4], want[5], want[6], want[7] = dot4RoundedH(x, row(4), row(5), row(6), row(7))
				for row := range 8 {
					if math.Float32bits(got[row]) != math.Float32bits(want[row]) {
						t.Fatalf("K=%d stride=%d trial %d row %d: vector %#08x (%g), scalar %#08x (%g)", K, stride, trial, row,
							math.Float32bits(got[row]), got[row], math.Float32bits(want[row]), want[row])
					}
				}
			}
		}
	}
}

// The one input the F16C round trip rounds differently from roundProd: a
// NaN activation whose payload has bits below a half's ten. Through
// matMul the NaN sum is recomputed by the scalar kernel (redoNaN).
func TestDot8RoundedHWideNaN(t *testing.T) {
	if !useDot8 {
		t.Skip("no vector kernel on this CPU")
	}
	const K = 8
	x := make([]float32, K)
	x[3] = math.Float32frombits(0x7fc00001)
	h := make([]uint16, 8*K)
	for i := range h {
		h[i] = f16.FromFloat32(1)
	}
	var vec [8]float32
	dot8RoundedH(x, h, K, &vec)
	s, _, _, _ := dot4RoundedH(x, h[:K], h[:K], h[:K], h[:K])
	if math.Float32bits(vec[0]) == math.Float32bits(s) {
		t.Fatalf("vector and scalar agree (%#08x): redoNaN would not be needed", math.Float32bits(s))
	}
	W := &Tensor{Elem: F16, Shape: []int{8, K}, raw: make([]byte, 2*len(h)), rawEl: F16}
	for i, v := range h {
		W.raw[2*i], W.raw[2*i+1] = byte(v), byte(v>>8)
	}
	got, err := matMul(W, NewFloat(F32, []int{K, 1}, x), false, false, F32, false, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Float32bits(got.F[0]) != math.Float32bits(s) {
		t.Fatalf("matMul %#08x, scalar kernel %#08x", math.Float32bits(got.F[0]), math.Float32bits(s))
	}
}

// matMul under the ane profile gives the same bits with the vector kernels
// as without them, wide NaNs included: raw f16 weight rows times
// activation columns (matmul and 1×1 conv), activation rows times a
// lazily transposed weight, and the row form over a float or raw f16 B, with row
// counts that leave 4- and 1-row remainders, lengths that leave tails and
// column counts that leave fewer than eight.
func TestMatMulRoundedVectorSameBits(t *testing.T) {
	if !useDot8 {
		t.Skip("no vector kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(13, 14))
	mode := 0
	// Three input modes: finite (no NaN or inf in, so that most sums stay
	// off the NaN recomputation and test the vector kernels: ±0, half
	// subnormals whose products underflow, large values whose products pass
	// 65504), specials (half NaNs with payloads, ±inf, arbitrary bits) and
	// specials with wide NaNs.
	const finite, specials, wideNaNs = 0, 1, 2
	raw := func(n int) []byte {
		b := make([]byte, 2*n)
		for i := 0; i < n; i++ {
			var h uint16
			switch {
			case mode != finite:
				h = randHalfBits(r)
			case r.IntN(10) == 0: // subnormal halves of either sign
				h = uint16(r.IntN(0x400)) | uint16(r.IntN(2))<<15
			case r.IntN(10) == 0:
				h = f16.FromFloat32(float32(r.NormFloat64() * 2))
			default:
				h = f16.FromFloat32(float32(r.NormFloat64() * 0.05))
			}
			b[2*i], b[2*i+1] = byte(h), byte(h>>8)
		}
		return b
	}
	act := func(shape ...int) *Tensor {
		v := make([]float32, numel(shape))
		for i := range v {
			if mode != finite {
				v[i] = randActANE(r, mode == wideNaNs)
				continue
			}
			switch r.IntN(6) {
			case 0:
				v[i] = float32(math.Copysign(0, r.NormFloat64()))
			case 1:
				v[i] = f16.ToFloat32(uint16(r.IntN(0x800)) | uint16(r.IntN(2))<<15)
			case 2:
				v[i] = f16.Round32(float32(r.NormFloat64() * 2e4))
			default:
				v[i] = f16.Round32(float32(r.NormFloat64() * 3))
			}
		}
		return NewFloat(F16, shape, v)
	}
	for _, tc := range []struct{ M, K, N int }{{1, 67, 29}, {1, 1024, 77}, {3, 40, 13}, {2, 9, 8}, {5, 128, 8}} {
		for mode = range 3 {
			for _, outEl := range []Elem{F16, F32} {
				w := &Tensor{Elem: F16, Shape: []int{tc.N, tc.K}, raw: raw(tc.N * tc.K), rawEl: F16}
				x := act(tc.M, tc.K)
				xt := act(tc.K, tc.M)
				cw := &Tensor{Elem: F16, Shape: []int{tc.N, tc.K, 1, 1}, raw: w.raw, rawEl: F16}
				cx := act(1, tc.K, 1, tc.M)
				// row form: x [M,K] · B [K,N+16] with B float (activations,
				// a KV cache), and the same with x a raw f16 weight
				rb := act(tc.K, tc.N+16)
				rx := &Tensor{Elem: F16, Shape: []int{tc.M, tc.K}, raw: raw(tc.M * tc.K), rawEl: F16}
				// and x [M,K] · W [K,N+16] with W a raw f16 weight stored K×N
				rw := &Tensor{Elem: F16, Shape: []int{tc.K, tc.N + 16}, raw: raw(tc.K * (tc.N + 16)), rawEl: F16}
				for name, f := range map[string]func() (*Tensor, error){
					"row form, raw B": func() (*Tensor, error) { return matMul(x, rw, false, false, outEl, false, true, nil) },
					"x·Wᵀ":            func() (*Tensor, error) { return matMul(x, w, false, true, outEl, false, true, nil) },
					"W·x":             func() (*Tensor, error) { return matMul(w, xt, false, false, outEl, false, true, nil) },
					"conv1x1":         func() (*Tensor, error) { return conv(cx, cw, nil, convParams{}, outEl, false, true, nil) },
					"row form":        func() (*Tensor, error) { return matMul(x, rb, false, false, outEl, false, true, nil) },
					"row form, raw A": func() (*Tensor, error) { return matMul(rx, rb, false, false, outEl, false, true, nil) },
				} {
					run := func(vec bool) []float32 {
						useDot8 = vec
						defer func() { useDot8 = true }()
						got, err := f()
						if err != nil {
							t.Fatal(err)
						}
						return got.Floats()
					}
					vec, sc := run(true), run(false)
					for i := range vec {
						if math.Float32bits(vec[i]) != math.Float32bits(sc[i]) {
							t.Fatalf("%s %v mode %d out %s: element %d: vector %#08x (%g), scalar %#08x (%g)", name, tc, mode, outEl, i,
								math.Float32bits(vec[i]), vec[i], math.Float32bits(sc[i]), sc[i])
						}
					}
				}
			}
		}
	}
}

// dot16h gives two dot8h calls' bits (rows 0-7 and 8-15), NaN payloads and
// signed zeros included, for every length and stride.
func TestDot16hMatchesDot8h(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, K := range []int{0, 1, 7, 8, 9, 16, 17, 64, 100, 1029} {
		for _, pad := range []int{0, 1, 13} {
			for trial := range 20 {
				stride := K + pad
				x := make([]float32, K)
				h := make([]uint16, 15*stride+K)
				for i := range x {
					x[i] = randAct(r)
				}
				for i := range h {
					h[i] = randHalfBits(r)
				}
				var got [16]float32
				dot16h(x, h, stride, &got)
				var lo, hi [8]float32
				dot8h(x, h, stride, &lo)
				dot8h(x, h[8*stride:], stride, &hi)
				want := append(lo[:], hi[:]...)
				for row := range 16 {
					if math.Float32bits(got[row]) != math.Float32bits(want[row]) {
						t.Fatalf("K=%d stride=%d trial %d row %d: dot16h %#08x, dot8h %#08x", K, stride, trial, row, math.Float32bits(got[row]), math.Float32bits(want[row]))
					}
				}
			}
		}
	}
}

// gemvHLanes gives every lane gemvH's bits for that lane alone (the
// one-stream kernel), under IEEE and the ane profile's rounded products,
// NaN payloads (wide ones too under ane: the scalar kernel redoes those
// sums), signed zeros and overflow included, for every length, row count
// (whole blocks of sixteen and the rest), lane count (groups of four and a
// padded last group), lane stride and output layout; and it widens each
// block of sixteen rows once for all lanes, where gemvH lane by lane
// widens it once per lane.
func TestGemvHLanesMatchesGemvH(t *testing.T) {
	if !useDot8 {
		t.Skip("no vector kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, rounded := range []bool{false, true} {
		for _, K := range []int{1, 7, 8, 9, 17, 64, 100, 1029} {
			for _, n := range []int{1, 15, 16, 17, 33, 48} {
				for _, L := range []int{1, 2, 3, 4, 5, 8, 9} {
					for _, outEl := range []Elem{F32, F16} {
						for _, rowsOut := range []bool{false, true} { // o[r*L+l] (mmWeightRows) or o[l*n+r] (mmWeightCols)
							hstride, xstride := K+r.IntN(3), K+r.IntN(3)
							h := make([]uint16, (n-1)*hstride+K)
							for i := range h {
								h[i] = randHalfBits(r)
							}
							xs := make([]float32, (L-1)*xstride+K)
							for i := range xs {
								if rounded {
									xs[i] = randActANE(r, true)
								} else {
									xs[i] = randAct(r)
								}
							}
							ostride, lstride := 1, n
							if rowsOut {
								ostride, lstride = L, 1
							}
							want := make([]float32, n*L)
							for l := range L {
								gemvH(xs[l*xstride:l*xstride+K], h, hstride, n, want[l*lstride:], ostride, outEl, rounded)
							}
							var widened atomic.Int64
							got := make([]float32, n*L)
							gemvHLanes(xs, xstride, L, h, hstride, n, got, ostride, lstride, outEl, rounded, &mmScratch{}, &mat{widened: &widened})
							for i := range want {
								if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
									t.Fatalf("rounded=%v K=%d n=%d L=%d %s rowsOut=%v: output %d is %#08x (%g), gemvH gives %#08x (%g)",
										rounded, K, n, L, outEl, rowsOut, i, math.Float32bits(got[i]), got[i], math.Float32bits(want[i]), want[i])
								}
							}
							full := n / 16 * 16
							if w, exp := widened.Load(), int64(full*K+(n-full)*K*L); w != exp {
								t.Fatalf("rounded=%v K=%d n=%d L=%d: widened %d weight elements, want %d (each block of sixteen rows once)", rounded, K, n, L, w, exp)
							}
						}
					}
				}
			}
		}
	}
}
