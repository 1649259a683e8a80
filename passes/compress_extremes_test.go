package passes_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// extremeModule is weightModule with given values in elem (f16 or f32):
// w0 read by a matmul as its y operand, w1 by a gather_nd of every row,
// both returned whole. The values are stored as elem rounds them.
func extremeModule(elem string, rows, cols int, w0, w1 []float64) (string, [2][]float64) {
	var w [2][]float64
	var blobs [2]string
	for k, vals := range [2][]float64{w0, w1} {
		eb := 2
		if elem == "f32" {
			eb = 4
		}
		raw := make([]byte, 4+eb*rows*cols)
		binary.LittleEndian.PutUint32(raw, uint32(eb))
		for i, x := range vals {
			if elem == "f32" {
				binary.LittleEndian.PutUint32(raw[4+4*i:], math.Float32bits(float32(x)))
				w[k] = append(w[k], float64(float32(x)))
				continue
			}
			h := f16.FromFloat64(x)
			binary.LittleEndian.PutUint16(raw[4+2*i:], h)
			w[k] = append(w[k], f16.ToFloat64(h))
		}
		blobs[k] = "0x" + strings.ToUpper(hex.EncodeToString(raw))
	}
	var idx []string
	for i := 0; i < rows; i++ {
		idx = append(idx, fmt.Sprintf("[%d]", i))
	}
	T := func(a, b int) string { return fmt.Sprintf("tensor<%dx%dx%s>", a, b, elem) }
	src := fmt.Sprintf(`module {
  coreai.graph @main(%%arg0: %[3]s {coreai.name = "eye"}) -> (%[4]s {coreai.name = "w0"}, %[4]s {coreai.name = "w1"}) {
    %%0 = coreai.constant dense_resource<w0> : %[4]s
    %%1 = coreai.decomposable.broadcasting_batch_matmul %%arg0, %%0 : (%[3]s, %[4]s) -> %[4]s
    %%2 = coreai.constant dense_resource<w1> : %[4]s
    %%3 = coreai.constant dense<[%[5]s]> : tensor<%[1]dx1xsi32>
    %%4 = coreai.gather_nd %%2 at %%3 : (%[4]s, tensor<%[1]dx1xsi32>) to %[4]s
    coreai.output %%1, %%4 : %[4]s, %[4]s
  }
}

{-#
  dialect_resources: {
    builtin: {
      w0: "%[6]s",
      w1: "%[7]s"
    }
  }
#-}
`, rows, cols, T(rows, rows), T(rows, cols), strings.Join(idx, ", "), blobs[0], blobs[1])
	return src, w
}

// compressExtreme runs pass with set on src and, when run is set, the
// interpreter on the result with an identity of elem (the weights back).
func compressExtreme(t *testing.T, pass string, set []string, src, elem string, rows int, run bool) (*passes.Change, [][]float32) {
	t.Helper()
	m, _, err := mlirtext.Parse("w.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	var full []string
	for _, s := range set {
		full = append(full, pass+"."+s)
	}
	p, err := passes.Build(passes.Spec{Passes: []string{pass}, Set: full})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	ch := res.Steps[0].Change
	if !run {
		return ch, nil
	}
	text, err := mlirtext.Format(m, mlirtext.FormPretty)
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := mlirtext.Parse("out.mlir", string(text))
	if err != nil {
		t.Fatal(err)
	}
	el := interp.F16
	if elem == "f32" {
		el = interp.F32
	}
	d := make([]float32, rows*rows)
	for i := 0; i < rows; i++ {
		d[i*rows+i] = 1
	}
	in := interp.New(m2, interp.Options{})
	defer in.Close()
	out, err := in.Run("main", []*interp.Tensor{interp.NewFloat(el, []int{rows, rows}, d)})
	if err != nil {
		t.Fatal(err)
	}
	var vals [][]float32
	for _, o := range out {
		vals = append(vals, o.Floats())
	}
	return ch, vals
}

// Weights at the edge of fp16 (±65504 in every channel) stay finite under
// every compression setting whose stored scale could round past it
// (issue 28, item 11: quantize-weights at its defaults and palettize
// lut-dtype=si8 made them inf and reported "SNR -Inf dB"), and the error
// reported is the one the interpreter reconstructs. By hand, for the
// defaults (si8, symmetric, per channel): (2·65504 + 1e-6)/254 = 515.78
// rounds to the f16 scale 516, and 516·127 = 65532 rounds to inf; the
// largest f16 scale whose 127 steps stay finite is 515.5 (65504/127 =
// 515.78, f16 spacing 0.5 there), so 65504 comes back as f16(515.5·127 =
// 65468.5) = 65472.
func TestCompressionKeepsEdgeWeightsFinite(t *testing.T) {
	const rows, cols = 64, 96
	r := rand.New(rand.NewPCG(28, 11))
	var w [2][]float64
	for k := range w {
		for i := 0; i < rows*cols; i++ {
			x := r.NormFloat64() * 3000
			if i%5 == 0 {
				x = math.Copysign(65504, x) // in every row and every column
			}
			w[k] = append(w[k], x)
		}
	}
	src, vals := extremeModule("f16", rows, cols, w[0], w[1])
	for _, c := range []struct {
		pass string
		set  []string
	}{
		{"quantize-weights", nil},
		{"quantize-weights", []string{"qscheme=asymmetric"}},
		{"quantize-weights", []string{"dtype=ui8"}},
		{"quantize-weights", []string{"dtype=ui8", "qscheme=asymmetric"}},
		{"quantize-weights", []string{"dtype=si4", "granularity=per-block"}},
		{"quantize-weights", []string{"granularity=per-tensor", "qscheme=asymmetric"}},
		{"palettize", []string{"lut-dtype=si8"}},
		{"palettize", []string{"lut-dtype=ui8"}},
		{"palettize", []string{"lut-dtype=f8E4M3FN"}},
		{"palettize", []string{"lut-dtype=si8", "per-channel-scale=true"}},
		{"palettize", []string{"lut-dtype=ui8", "per-channel-scale=true"}},
	} {
		t.Run(c.pass+" "+strings.Join(c.set, " "), func(t *testing.T) {
			ch, got := compressExtreme(t, c.pass, c.set, src, "f16", rows, true)
			if len(ch.Compressed) != 2 {
				t.Fatalf("%d weights compressed, want 2; notes %v", len(ch.Compressed), ch.Notes)
			}
			for k, cw := range ch.Compressed {
				for i, x := range got[k] {
					if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
						t.Fatalf("weight %d element %d: %v reconstructs as %v (%s)", k, i, vals[k][i], x, cw.Form)
					}
				}
				sig, e := errorOf(vals[k], got[k])
				if math.Abs(sig-cw.SignalPower) > 1e-9*sig || math.Abs(e-cw.ErrorPower) > 1e-9*sig {
					t.Errorf("weight %d (%s): interpreter Σw² %g, Σ(w−ŵ)² %g; reported %g, %g", k, cw.Form, sig, e, cw.SignalPower, cw.ErrorPower)
				}
				if math.IsInf(cw.SNR, 0) || math.IsNaN(cw.SNR) || cw.SNR < 5 {
					t.Errorf("weight %d (%s): SNR %v dB", k, cw.Form, cw.SNR)
				}
				if c.pass == "quantize-weights" && c.set == nil {
					for i, x := range vals[k] {
						if math.Abs(x) == 65504 && math.Abs(float64(got[k][i])) != 65472 {
							t.Fatalf("weight %d element %d: %v reconstructs as %v, want ±65472", k, i, x, got[k][i])
						}
					}
				}
			}
		})
	}
}

// subnormals are f16 weights that are all subnormal: k·2^-24 for k in
// ±1…±50.
func subnormals(rows, cols int, seed uint64) (string, [2][]float64) {
	r := rand.New(rand.NewPCG(seed, 24))
	var w [2][]float64
	for k := range w {
		for i := 0; i < rows*cols; i++ {
			n := float64(1 + r.IntN(50))
			if r.IntN(2) == 0 {
				n = -n
			}
			w[k] = append(w[k], math.Ldexp(n, -24))
		}
	}
	return extremeModule("f16", rows, cols, w[0], w[1])
}

// All-subnormal f16 weights used to come back as zeros, silently (issue
// 28, item 11): the scale (2·max + 1e-6)/254 rounds to 0 in f16 and the
// pass fell back to 1. By hand, the smallest positive f16 scale, 2^-24,
// holds k·2^-24 as the integer k (|k| ≤ 50 < 127): quantization is exact.
// A palette stored as si8 is the f16 palette exactly (its entries are
// multiples of 2^-24, its scale 2^-24).
func TestCompressionKeepsSubnormalWeights(t *testing.T) {
	const rows, cols = 64, 96
	src, w := subnormals(rows, cols, 1)
	ch, got := compressExtreme(t, "quantize-weights", nil, src, "f16", rows, true)
	if len(ch.Compressed) != 2 {
		t.Fatalf("%d weights compressed, want 2; notes %v", len(ch.Compressed), ch.Notes)
	}
	for k := range w {
		for i, x := range w[k] {
			if float64(got[k][i]) != x {
				t.Fatalf("quantize-weights: weight %d element %d: %g reconstructs as %g, want it exactly", k, i, x, got[k][i])
			}
		}
	}
	_, f16LUT := compressExtreme(t, "palettize", nil, src, "f16", rows, true)
	for _, dt := range []string{"si8", "ui8"} {
		ch, got := compressExtreme(t, "palettize", []string{"lut-dtype=" + dt}, src, "f16", rows, true)
		if len(ch.Compressed) != 2 {
			t.Fatalf("lut-dtype=%s: %d weights compressed, want 2; notes %v", dt, len(ch.Compressed), ch.Notes)
		}
		for k := range w {
			for i := range w[k] {
				if got[k][i] != f16LUT[k][i] {
					t.Fatalf("lut-dtype=%s: weight %d element %d: %g, the f16 palette gives %g", dt, k, i, got[k][i], f16LUT[k][i])
				}
			}
		}
	}
}

// A weight whose every nonzero value would come back as 0 is left as it
// is, with a note saying so, not replaced by zeros (issue 28, item 11). By
// hand: f32 weights of magnitude about 1e-12 get the si8 scale (2·max +
// 1e-6)/254 ≈ 3.9e-9, and round(1e-12/3.9e-9) = 0.
func TestCompressionRefusesAllZeroResult(t *testing.T) {
	const rows, cols = 64, 96
	r := rand.New(rand.NewPCG(3, 3))
	var w [2][]float64
	for k := range w {
		for i := 0; i < rows*cols; i++ {
			w[k] = append(w[k], (r.Float64()+0.5)*1e-12)
		}
	}
	src, _ := extremeModule("f32", rows, cols, w[0], w[1])
	ch, _ := compressExtreme(t, "quantize-weights", nil, src, "f32", rows, false)
	notes := strings.Join(ch.Notes, "\n") + leftText(ch)
	if len(ch.Compressed) != 0 || strings.Count(notes, "left as it is") != 2 || !strings.Contains(notes, "would reconstruct as 0") {
		t.Errorf("%d weights compressed, notes:\n%s\nwant both left as they are, saying their values would become 0", len(ch.Compressed), notes)
	}
}

// palettize's note counts the NaN and infinite values of the whole weight,
// not of its first group of 32 channels, and does not call finite f32
// values beyond fp16's range "NaN or infinite" (issue 28, item 17). By
// hand: 64×96 = 6144 values; the first weight has 32-channel groups of
// 64×32 = 2048 values.
func TestPalettizeNotesCountWholeWeight(t *testing.T) {
	const rows, cols = 64, 96
	n := rows * cols
	fill := func(f func(i int) float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	nan := fill(func(int) float64 { return math.NaN() })
	big := fill(func(i int) float64 { return 1e5 + float64(i) })
	mixed := fill(func(i int) float64 { // per row: 1 NaN, 2 beyond fp16, the rest small
		switch i % cols {
		case 0:
			return math.NaN()
		case 1, 2:
			return -2e5
		}
		return float64(i%7) / 8
	})
	for _, c := range []struct {
		name, elem string
		w          []float64
		set        []string
		want       []string
		not        string
	}{
		{"all NaN", "f16", nan, nil, []string{"6144 of its values are NaN or infinite"}, ""},
		{"all NaN, vectors of 2", "f16", nan, []string{"cluster-dim=2"}, []string{"6144 of its values are NaN or infinite"}, ""},
		{"f32 beyond fp16", "f32", big, nil, []string{"6144 of its values lie beyond fp16's range"}, "NaN"},
		{"f32 mixed", "f32", mixed, nil, []string{"64 of its values are NaN or infinite", "128 of its values lie beyond fp16's range"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, _ := extremeModule(c.elem, rows, cols, c.w, c.w)
			ch, _ := compressExtreme(t, "palettize", c.set, src, c.elem, rows, false)
			notes := strings.Join(ch.Notes, "\n") + leftText(ch)
			if len(ch.Compressed) != 0 {
				t.Errorf("%d weights compressed, want none", len(ch.Compressed))
			}
			for _, want := range c.want {
				if strings.Count(notes, want) != 2 {
					t.Errorf("notes lack %q for each weight:\n%s", want, notes)
				}
			}
			if c.not != "" && strings.Contains(notes, c.not) {
				t.Errorf("notes mention %q:\n%s", c.not, notes)
			}
		})
	}
}

// leftText is the weights a compression pass left as they are, a line
// each ("name: left as it is: why").
func leftText(ch *passes.Change) string {
	var b strings.Builder
	for _, l := range ch.Left {
		fmt.Fprintf(&b, "\n%s: left as it is: %s", l.Name, l.Reason)
	}
	return b.String()
}
