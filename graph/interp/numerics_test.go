package interp

import (
	"math"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"

	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/mlirtext"
)

// aneRuleCases are TestANERules' rows: per rule of the Neural Engine
// profile, a graph, its input, and the outputs under IEEE and under the
// profile per family, each derived by hand in its comment.
var aneRuleCases = []struct {
	rule, name string
	in         string // type of %x
	body       string // ops ending in coreai.output
	x          []float32
	ieee       []float32
	pre, a16   []float32 // ane profile per family (a16 nil: same as pre)
}{
	{"fp16-operands-products", "matmul rounds each product before the sum",
		// (1+2^-10)² = 1 + 2^-9 + 2^-20 rounds to 1 + 2^-9, which the
		// second product (−1 · (1+2^-9)) cancels exactly; IEEE keeps
		// the 2^-20 (a half subnormal).
		"tensor<1x2xf16>", `
    %w = coreai.constant dense<[[1.000977e+00], [1.001953e+00]]> : tensor<2x1xf16>
    %y = "coreai.matmul"(%x, %w) : (tensor<1x2xf16>, tensor<2x1xf16>) -> tensor<1x1xf16>
    coreai.output %y : tensor<1x1xf16>`,
		[]float32{1.0009765625, -1}, []float32{0x1p-20}, []float32{0}, nil},
	{"fp16-operands-products", "an f32 matmul keeps IEEE arithmetic",
		"tensor<1x2xf32>", `
    %w = coreai.constant dense<[[1.0009765625], [1.001953125]]> : tensor<2x1xf32>
    %y = "coreai.matmul"(%x, %w) : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
    coreai.output %y : tensor<1x1xf32>`,
		[]float32{1.0009765625, -1}, []float32{0x1p-20}, []float32{0x1p-20}, nil},
	{"wide-accumulator", "4096 ones through matmul sum exactly",
		"tensor<1x4096xf16>", `
    %w = coreai.constant dense<1.000000e+00> : tensor<4096x1xf16>
    %y = "coreai.matmul"(%x, %w) : (tensor<1x4096xf16>, tensor<4096x1xf16>) -> tensor<1x1xf16>
    coreai.output %y : tensor<1x1xf16>`,
		onesF32(4096), []float32{4096}, []float32{4096}, nil},
	{"narrow-reduce", "4096 ones through reduce_sum stall at 2048",
		// 2048 + 1 = 2049 is a tie between halves 2048 and 2050 and
		// rounds to the even 2048, so the running sum stays there.
		"tensor<1x4096xf16>", `
    %ax = coreai.constant dense<[1]> : tensor<1xsi32>
    %y = coreai.reduce_sum %x, %ax : (tensor<1x4096xf16>, tensor<1xsi32>) -> tensor<1x1xf16>
    coreai.output %y : tensor<1x1xf16>`,
		onesF32(4096), []float32{4096}, []float32{2048}, nil},
	{"narrow-reduce", "reduce_mean is the narrow sum over the count",
		"tensor<1x4096xf16>", `
    %ax = coreai.constant dense<[1]> : tensor<1xsi32>
    %y = coreai.reduce_mean %x, %ax : (tensor<1x4096xf16>, tensor<1xsi32>) -> tensor<1x1xf16>
    coreai.output %y : tensor<1x1xf16>`,
		onesF32(4096), []float32{1}, []float32{0.5}, nil},
	{"narrow-reduce", "reduce_prod (the alias) rounds every product as reduce_product does",
		// 1.5^7 = 2187/128 is a tie between halves and rounds to
		// 2188/128; × 1.5 is 25.640625, exact. Rounded once at the
		// end, 1.5^8 = 6561/256 is 25.625 in half. The alias once
		// escaped the rule (the rule matched reduce_product only).
		"tensor<1x8xf16>", `
    %ax = coreai.constant dense<[1]> : tensor<1xsi32>
    %y = "coreai.reduce_prod"(%x, %ax) : (tensor<1x8xf16>, tensor<1xsi32>) -> tensor<1x1xf16>
    coreai.output %y : tensor<1x1xf16>`,
		[]float32{1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5}, []float32{25.625}, []float32{25.640625}, nil},
	{"narrow-reduce", "a sum that overflows half midway",
		// 30000+30000 = 60000, +30000 overflows half: inf stays inf.
		"tensor<1x6xf16>", `
    %ax = coreai.constant dense<[1]> : tensor<1xsi32>
    %y = coreai.reduce_sum %x, %ax : (tensor<1x6xf16>, tensor<1xsi32>) -> tensor<1x1xf16>
    coreai.output %y : tensor<1x1xf16>`,
		[]float32{30000, 30000, 30000, -30000, -30000, -29984}, []float32{16}, []float32{posInf}, nil},
	{"matmul-saturation", "an output of 32760 rounds to 32768 and saturates",
		"tensor<1x2xf16>", `
    %w = coreai.constant dense<1.000000e+00> : tensor<2x1xf16>
    %y = "coreai.matmul"(%x, %w) : (tensor<1x2xf16>, tensor<2x1xf16>) -> tensor<1x1xf16>
    coreai.output %y : tensor<1x1xf16>`,
		[]float32{16380, 16380}, []float32{32768}, []float32{posInf}, nil},
	{"matmul-saturation", "32752 itself stays finite; negative outputs saturate to -inf",
		"tensor<2x2xf16>", `
    %w = coreai.constant dense<1.000000e+00> : tensor<2x1xf16>
    %y = "coreai.matmul"(%x, %w) : (tensor<2x2xf16>, tensor<2x1xf16>) -> tensor<2x1xf16>
    coreai.output %y : tensor<2x1xf16>`,
		[]float32{16376, 16376, -16380, -16380}, []float32{32752, -32768}, []float32{32752, -posInf}, nil},
	{"slice-saturation", "a slice with last-axis begin 1 (pre-A16 only)",
		"tensor<1x4xf16>", `
    %b = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %e = coreai.constant dense<[1, 4]> : tensor<2xsi32>
    %s = coreai.constant dense<[1, 1]> : tensor<2xsi32>
    %y = "coreai.slice"(%x, %b, %e, %s) : (tensor<1x4xf16>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<1x3xf16>
    coreai.output %y : tensor<1x3xf16>`,
		[]float32{0, 4094, 4096, -5000}, []float32{4094, 4096, -5000}, []float32{4094, posInf, -posInf}, []float32{4094, 4096, -5000}},
	{"slice-saturation", "a slice with last-axis begin 0 passes every value",
		"tensor<1x4xf16>", `
    %b = coreai.constant dense<[0, 0]> : tensor<2xsi32>
    %e = coreai.constant dense<[1, 3]> : tensor<2xsi32>
    %s = coreai.constant dense<[1, 1]> : tensor<2xsi32>
    %y = "coreai.slice"(%x, %b, %e, %s) : (tensor<1x4xf16>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<1x3xf16>
    coreai.output %y : tensor<1x3xf16>`,
		[]float32{4094, 4096, -5000, 0}, []float32{4094, 4096, -5000}, []float32{4094, 4096, -5000}, nil},
}

func onesF32(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// TestANERules checks each rule of the Neural Engine profile (aneRules)
// against values computed by hand, beside what IEEE numerics give for the
// same graph, so that a row passing under both would show a rule that does
// nothing.
func TestANERules(t *testing.T) {
	known := map[string]bool{}
	for _, r := range aneRules {
		known[r.Name] = true
	}
	tested := map[string]bool{}
	for _, c := range aneRuleCases {
		if !known[c.rule] {
			t.Fatalf("%s: no rule %q in ANERules", c.name, c.rule)
		}
		tested[c.rule] = true
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			text := "module {\n  coreai.graph @main(%x: " + c.in + ") -> " + c.body[strings.LastIndex(c.body, ": ")+2:] + " {" + c.body + "\n  }\n}\n"
			m, _, err := mlirtext.Parse("t.mlir", text)
			if err != nil {
				t.Fatal(err)
			}
			el := F16
			if strings.Contains(c.in, "f32") {
				el = F32
			}
			shape := []int{1, len(c.x)}
			if strings.HasPrefix(c.in, "tensor<2x2") {
				shape = []int{2, 2}
			}
			a16 := c.a16
			if a16 == nil {
				a16 = c.pre
			}
			for _, run := range []struct {
				name string
				opts Options
				want []float32
			}{
				{"ieee", Options{}, c.ieee},
				{"ane pre-a16", Options{ANE: &ANE{Family: PreA16}}, c.pre},
				{"ane a16", Options{ANE: &ANE{Family: A16}}, a16},
			} {
				outs, err := New(m, run.opts).Run("main", []*Tensor{FromF32(el, shape, c.x)})
				if err != nil {
					t.Fatalf("%s: %v", run.name, err)
				}
				if got := outs[0].Floats(); !equalF(got, run.want) {
					t.Errorf("%s: got %v, want %v", run.name, got, run.want)
				}
			}
		})
	}
	for n := range known {
		if !tested[n] {
			t.Errorf("rule %s has no test row", n)
		}
	}
}

// roundProd's bit path must agree with f16.Round32 everywhere, above all
// at the ends of its exponent window.
func TestRoundProd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(p float32) {
		if got, want := roundProd(p), f16.Round32(p); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("roundProd(%g = %#x) = %g, want %g", p, math.Float32bits(p), got, want)
		}
	}
	for _, p := range []float32{0, 1, -1, 65504, 65519, 65520, 0x1p-14, 0x1p-15, 0x1p-24, 0x1p-25, 0x1.8p-25, 32760, 2049,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, math.SmallestNonzeroFloat32} {
		check(p)
		check(-p)
	}
	for i := 0; i < 1<<20; i++ {
		// Products of two random halves, and raw float32 bit patterns.
		a := f16.ToFloat32(uint16(r.Uint32()))
		b := f16.ToFloat32(uint16(r.Uint32()))
		check(a * b)
		check(math.Float32frombits(r.Uint32()))
	}
}

// Every path of the rounded matmul (rows streamed, four columns at once, the
// remainder, raw f16 weights, transposed operands) must equal the plain
// definition: Σ_k roundProd(a·b) in k order, rounded to half.
func TestMatmulRoundedPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	halves := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = f16.Round32(float32(r.NormFloat64() * 3))
		}
		return v
	}
	for _, c := range []struct {
		M, K, N    int
		ta, tb     bool
		rawB, rawA bool
	}{
		{1, 64, 32, false, false, false, false}, // rows streamed (N ≥ 16)
		{3, 21, 21, false, false, false, false}, // rows streamed, eight columns at once and a tail of 5
		{3, 40, 7, false, true, false, false},   // four columns and a remainder
		{2, 33, 20, true, true, false, false},
		{1, 64, 32, false, false, true, false}, // raw weight, rows streamed
		{2, 48, 9, false, true, true, false},   // raw transposed weight
		{7, 36, 3, false, false, false, true},  // raw weight rows times columns
		{19, 37, 3, false, false, false, true}, // eight rows at once (vector kernel), then 4 and 1
		{2, 45, 19, false, true, true, false},  // raw transposed weight, eight columns at once
	} {
		a := halves(c.M * c.K)
		b := halves(c.K * c.N)
		aShape := []int{c.M, c.K}
		if c.ta {
			aShape = []int{c.K, c.M}
		}
		bShape := []int{c.K, c.N}
		if c.tb {
			bShape = []int{c.N, c.K}
		}
		A := NewFloat(F16, aShape, a)
		B := NewFloat(F16, bShape, b)
		raw := func(v []float32, shape []int) *Tensor {
			r := make([]byte, 2*len(v))
			for i, x := range v {
				h := f16.FromFloat32(x)
				r[2*i], r[2*i+1] = byte(h), byte(h>>8)
			}
			return &Tensor{Elem: F16, Shape: shape, raw: r, rawEl: F16}
		}
		if c.rawB {
			B = raw(b, bShape)
		}
		if c.rawA {
			A = raw(a, aShape)
		}
		got, err := matMul(A, B, c.ta, c.tb, F16, false, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		at := func(i, k int) float32 {
			if c.ta {
				return a[k*c.M+i]
			}
			return a[i*c.K+k]
		}
		bt := func(k, j int) float32 {
			if c.tb {
				return b[j*c.K+k]
			}
			return b[k*c.N+j]
		}
		for i := 0; i < c.M; i++ {
			for j := 0; j < c.N; j++ {
				var s float32
				for k := 0; k < c.K; k++ {
					s += roundProd(at(i, k) * bt(k, j))
				}
				if w, g := f16.Round32(s), got.F[i*c.N+j]; w != g {
					t.Fatalf("%+v: out[%d,%d] = %g, want %g", c, i, j, g, w)
				}
			}
		}
	}
}

// BenchmarkMatVec is one decode-shaped product, x[1,1024] times a raw f16
// weight of 4096 outputs (stored [K,N], or [N,K] and transposed as a tied
// lm_head is), under IEEE and under the ane profile: the kernel ratio
// without the page cache in it (BenchmarkDecodeStep{,ANE} measure the step).
func BenchmarkMatVec(b *testing.B) {
	const K, N = 1024, 4096
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, K)
	for i := range x {
		x[i] = f16.Round32(float32(r.NormFloat64()))
	}
	w := make([]byte, 2*K*N)
	for i := 0; i < K*N; i++ {
		h := f16.FromFloat32(float32(r.NormFloat64() * 0.02))
		w[2*i], w[2*i+1] = byte(h), byte(h>>8)
	}
	X := NewFloat(F16, []int{1, K}, x)
	for _, layout := range []struct {
		name  string
		shape []int
		tb    bool
	}{{"KxN", []int{K, N}, false}, {"NxK-transposed", []int{N, K}, true}} {
		W := &Tensor{Elem: F16, Shape: layout.shape, raw: w, rawEl: F16}
		for _, ane := range []bool{false, true} {
			name := layout.name + "/ieee"
			if ane {
				name = layout.name + "/ane"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				cpu0 := processCPU()
				for b.Loop() {
					if _, err := matMul(X, W, false, layout.tb, F16, false, ane, nil); err != nil {
						b.Fatal(err)
					}
				}
				// CPU time per product: comparable while other processes
				// share the cores and wall time is not.
				b.ReportMetric((processCPU()-cpu0)/float64(b.N)*1e3, "cpu-ms/op")
			})
		}
	}
}

func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
