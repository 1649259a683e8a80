package passes_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// weightModule is anefix's own test module: a weight read by a matmul as
// its y operand (output channels on the last axis) and one read by a
// gather_nd table (axis 0), both returned whole: an identity times the
// first and a gather of every row of the second give the weights exactly,
// so the interpreter shows what the rewritten program reconstructs.
func weightModule(rows, cols int, seed uint64, std float64) (string, [2][]float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	var w [2][]float64
	var blobs [2]string
	for k := range w {
		raw := make([]byte, 4+2*rows*cols)
		binary.LittleEndian.PutUint32(raw, 2) // the blob's alignment
		for i := 0; i < rows*cols; i++ {
			h := f16.FromFloat64(r.NormFloat64() * std * (1 + float64(i%cols)/float64(cols)))
			binary.LittleEndian.PutUint16(raw[4+2*i:], h)
			w[k] = append(w[k], f16.ToFloat64(h))
		}
		blobs[k] = "0x" + strings.ToUpper(hex.EncodeToString(raw))
	}
	var idx []string
	for i := 0; i < rows; i++ {
		idx = append(idx, fmt.Sprintf("[%d]", i))
	}
	T := func(a, b int) string { return fmt.Sprintf("tensor<%dx%dxf16>", a, b) }
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

func eye(n int) *interp.Tensor {
	d := make([]float32, n*n)
	for i := 0; i < n; i++ {
		d[i*n+i] = 1
	}
	return interp.NewFloat(interp.F16, []int{n, n}, d)
}

// TestPalettizeReconstructs runs palettize with each setting, then the
// interpreter on the result: the weights it reconstructs must carry exactly
// the error the pass reports (so the indices written, their packing, the
// LUT's layout, the axis and the scales all mean what the pass measured),
// and the result must be what the settings promise (exact for unique,
// below 2^bits distinct values per palette).
func TestPalettizeReconstructs(t *testing.T) {
	const rows, cols = 64, 96
	cases := []struct {
		name string
		set  []string
	}{
		{"default", nil},
		{"8-bit", []string{"bits=8"}},
		{"1-bit", []string{"bits=1"}},
		{"2-bit", []string{"bits=2"}},
		{"3-bit", []string{"bits=3"}},
		{"6-bit", []string{"bits=6", "group-size=16"}},
		{"per-tensor", []string{"granularity=per-tensor"}},
		{"per-channel", []string{"granularity=per-channel"}},
		{"group 16", []string{"group-size=16"}},
		{"uniform", []string{"method=uniform"}},
		{"si8 LUT", []string{"lut-dtype=si8"}},
		{"ui8 LUT", []string{"lut-dtype=ui8"}},
		{"f8 LUT", []string{"lut-dtype=f8E4M3FN"}},
		{"per-channel scale", []string{"per-channel-scale=true"}},
		{"per-channel scale, si8 LUT", []string{"per-channel-scale=true", "lut-dtype=si8"}},
		{"per-channel scale, ui8 LUT", []string{"per-channel-scale=true", "lut-dtype=ui8"}},
		{"vector 2", []string{"cluster-dim=2"}},
		{"vector 4, 2 bits, ui8 LUT", []string{"cluster-dim=4", "bits=2", "lut-dtype=ui8"}},
		{"no rounded seed", []string{"rounding-precision=-1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, w := weightModule(rows, cols, 1, 0.02)
			m, _, err := mlirtext.Parse("w.mlir", src)
			if err != nil {
				t.Fatal(err)
			}
			var set []string
			for _, s := range c.set {
				set = append(set, "palettize."+s)
			}
			p, err := passes.Build(passes.Spec{Passes: []string{"palettize"}, Set: set})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			ch := res.Steps[0].Change
			if len(ch.Compressed) != 2 {
				t.Fatalf("%d weights compressed, want 2; notes %v", len(ch.Compressed), ch.Notes)
			}
			// Print and read back: what is checked is what a file holds.
			text, err := mlirtext.Format(m, mlirtext.FormPretty)
			if err != nil {
				t.Fatal(err)
			}
			m2, _, err := mlirtext.Parse("out.mlir", string(text))
			if err != nil {
				t.Fatal(err)
			}
			in := interp.New(m2, interp.Options{})
			defer in.Close()
			out, err := in.Run("main", []*interp.Tensor{eye(rows)})
			if err != nil {
				t.Fatal(err)
			}
			for k, cw := range ch.Compressed {
				got := out[k].Floats()
				var sig, e float64
				for i, x := range w[k] {
					d := x - float64(got[i])
					sig += x * x
					e += d * d
				}
				if math.Abs(sig-cw.SignalPower) > 1e-9*sig || math.Abs(e-cw.ErrorPower) > 1e-9*sig {
					t.Errorf("weight %d (%s): the interpreter reconstructs Σw² %g, Σ(w−ŵ)² %g; the pass reported %g, %g (%s)", k, cw.Form, sig, e, cw.SignalPower, cw.ErrorPower, cw.Op.OpName)
				}
				// About 6 dB per bit of index per weight element is what
				// optimal scalar quantizers of Gaussian data reach; 5 less 4
				// leaves room for uniform palettes and small groups.
				bits, cd := 4.0, 1.0
				for _, s := range c.set {
					fmt.Sscanf(s, "bits=%g", &bits)
					fmt.Sscanf(s, "cluster-dim=%g", &cd)
				}
				if min := 5*bits/cd - 4; cw.SNR < min {
					t.Errorf("weight %d (%s): SNR %.2f dB, want at least %.1f", k, cw.Form, cw.SNR, min)
				}
				t.Logf("weight %d: %s, group %d, %d → %d bytes, SNR %.2f dB", k, cw.Form, cw.Group, cw.BytesBefore, cw.BytesAfter, cw.SNR)
			}
		})
	}
}

// TestPalettizeUniqueExact: weights of at most 2^bits distinct values per
// palette come back exactly with method=unique; more is a note, no change.
func TestPalettizeUniqueExact(t *testing.T) {
	src, _ := weightModule(64, 96, 2, 0.02)
	m, _, err := mlirtext.Parse("w.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := passes.Build(passes.Spec{Passes: []string{"palettize"}, Set: []string{"palettize.method=unique"}})
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	if ch := res.Steps[0].Change; len(ch.Compressed) != 0 || !strings.Contains(leftText(ch), "method=unique") {
		t.Fatalf("random weights under method=unique: %d compressed, left %v", len(ch.Compressed), ch.Left)
	}
}

// TestPalettizeSmallGroupWarns: a 4-bit group under 32 channels is done,
// warned, and is exactly what check's rule reads (LUTGroup).
func TestPalettizeSmallGroupWarns(t *testing.T) {
	src, _ := weightModule(64, 96, 3, 0.02)
	for _, c := range []struct {
		set  []string
		warn bool
	}{{nil, false}, {[]string{"palettize.group-size=16"}, true}, {[]string{"palettize.group-size=16", "palettize.bits=6"}, false}} {
		m, _, _ := mlirtext.Parse("w.mlir", src)
		p, _ := passes.Build(passes.Spec{Passes: []string{"palettize"}, Set: c.set})
		res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
		if err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(strings.Join(res.Steps[0].Change.Notes, "\n"), "lut4-small-group")
		small := 0
		m.Walk(func(op *graph.Operation) bool {
			if op.Name == "coreai.lut_to_dense" {
				if _, _, ok := passes.LUT4SmallGroup(op); ok {
					small++
				}
			}
			return true
		})
		if warned != c.warn || (small > 0) != c.warn {
			t.Errorf("%v: warned %v, %d small-group palettes; want %v", c.set, warned, small, c.warn)
		}
	}
}

// compressAndRun runs one compression pass with sets on the weight module
// and returns its change and what the interpreter reconstructs.
func compressAndRun(t *testing.T, pass string, set []string, src string, rows int) (*passes.Change, [][]float32, *graph.Module) {
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
	text, err := mlirtext.Format(m, mlirtext.FormPretty)
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := mlirtext.Parse("out.mlir", string(text))
	if err != nil {
		t.Fatal(err)
	}
	in := interp.New(m2, interp.Options{})
	defer in.Close()
	out, err := in.Run("main", []*interp.Tensor{eye(rows)})
	if err != nil {
		t.Fatal(err)
	}
	var vals [][]float32
	for _, o := range out {
		vals = append(vals, o.Floats())
	}
	return res.Steps[0].Change, vals, m
}

// errorOf is Σw² and Σ(w − got)².
func errorOf(w []float64, got []float32) (sig, e float64) {
	for i, x := range w {
		d := x - float64(got[i])
		sig += x * x
		e += d * d
	}
	return sig, e
}

// TestQuantizeWeightsReconstructs: the interpreter reconstructs exactly the
// error quantize-weights reports, for every dtype, scheme and granularity.
func TestQuantizeWeightsReconstructs(t *testing.T) {
	const rows, cols = 64, 96
	for _, dt := range []string{"si8", "ui8", "si4", "ui4"} {
		for _, q := range []string{"symmetric", "asymmetric"} {
			for _, g := range []string{"per-tensor", "per-channel", "per-block"} {
				name := dt + "/" + q + "/" + g
				t.Run(name, func(t *testing.T) {
					src, w := weightModule(rows, cols, 4, 0.02)
					ch, got, _ := compressAndRun(t, "quantize-weights", []string{"dtype=" + dt, "qscheme=" + q, "granularity=" + g}, src, rows)
					if len(ch.Compressed) != 2 {
						t.Fatalf("%d weights compressed; notes %v", len(ch.Compressed), ch.Notes)
					}
					for k, cw := range ch.Compressed {
						sig, e := errorOf(w[k], got[k])
						if math.Abs(sig-cw.SignalPower) > 1e-9*sig || math.Abs(e-cw.ErrorPower) > 1e-9*sig {
							t.Errorf("weight %d: interpreter Σ(w−ŵ)² %g, reported %g", k, e, cw.ErrorPower)
						}
						min := 30.0
						if dt[2] == '4' {
							min = 8
						}
						if cw.SNR < min {
							t.Errorf("weight %d (%s): SNR %.2f dB", k, cw.Form, cw.SNR)
						}
					}
					warned := strings.Contains(strings.Join(ch.Notes, "\n"), "linear-int4")
					if warned != (dt[2] == '4') {
						t.Errorf("linear-int4 warning %v for %s", warned, dt)
					}
				})
			}
		}
	}
}

// TestLegalizeWeights: linear INT4 weights written by quantize-weights
// become palettes; with one scale per tensor the palettes hold the INT4
// levels and the program computes the same bits, otherwise the weight is
// re-clustered and the pass reports the error against the INT4 weight
// that the interpreter measures.
func TestLegalizeWeights(t *testing.T) {
	const rows, cols = 64, 96
	for _, c := range []struct {
		quant []string
		set   []string
		exact bool
	}{
		{[]string{"dtype=si4", "granularity=per-tensor"}, nil, true},
		{[]string{"dtype=ui4", "granularity=per-tensor", "qscheme=asymmetric"}, nil, true},
		{[]string{"dtype=si4", "granularity=per-block"}, nil, false},
		{[]string{"dtype=si4", "granularity=per-channel"}, nil, false},
		{[]string{"dtype=si4", "granularity=per-channel"}, []string{"bits=8", "group-size=16"}, true},
		{[]string{"dtype=ui4", "granularity=per-block", "qscheme=asymmetric"}, []string{"bits=8"}, false},
	} {
		name := strings.Join(append(c.quant, c.set...), ",")
		t.Run(name, func(t *testing.T) {
			src, _ := weightModule(rows, cols, 5, 0.02)
			_, q, m := compressAndRun(t, "quantize-weights", c.quant, src, rows)
			text, err := mlirtext.Format(m, mlirtext.FormPretty)
			if err != nil {
				t.Fatal(err)
			}
			ch, got, m2 := compressAndRun(t, "legalize-weights", c.set, string(text), rows)
			if len(ch.Compressed) != 2 {
				t.Fatalf("%d weights legalized; notes %v", len(ch.Compressed), ch.Notes)
			}
			m2.Walk(func(op *graph.Operation) bool {
				if op.Name == "coreai.blockwise_shift_scale" {
					t.Errorf("%s is left", op.Describe())
				}
				return true
			})
			for k, cw := range ch.Compressed {
				ref := make([]float64, len(q[k]))
				for i, x := range q[k] {
					ref[i] = float64(x)
				}
				sig, e := errorOf(ref, got[k])
				if math.Abs(e-cw.ErrorPower) > 1e-9*sig {
					t.Errorf("weight %d: the interpreter's error against the INT4 weight %g, reported %g", k, e, cw.ErrorPower)
				}
				if c.exact != (e == 0) || c.exact != strings.HasSuffix(cw.Form, "exact") || c.exact != math.IsInf(cw.SNR, 1) {
					t.Errorf("weight %d: %s, error %g, SNR %g; want exact=%v", k, cw.Form, e, cw.SNR, c.exact)
				}
				t.Logf("weight %d: %s, %d → %d bytes, SNR %.2f dB", k, cw.Form, cw.BytesBefore, cw.BytesAfter, cw.SNR)
			}
		})
	}
}

// TestPalettizeAgainstNumpyReference: on the same weights and settings,
// anefix's palettes are never worse than the numpy reference of each
// method (testdata/numpy/palettize.py: coreai-optimization's kmeans fast
// mode with an exact 1-D k-means, its uniform palette).
func TestPalettizeAgainstNumpyReference(t *testing.T) {
	py := oracle.Python3Numpy(t)
	for _, c := range []struct {
		rows, cols int
		std        float64
		set        []string
		group      int
		bits       int
		method     string
	}{
		{64, 512, 0.02, nil, 32, 4, "kmeans"},                                          // groups of 16,384 weights: the rounded problem, then Lloyd's
		{64, 512, 0.005, nil, 32, 4, "kmeans"},                                         // small weights, fewer rounded values
		{16, 1024, 0.03, []string{"granularity=per-channel"}, 1, 4, "kmeans"},          // exact: few distinct values per palette
		{64, 256, 0.02, []string{"granularity=per-tensor", "bits=2"}, 64, 2, "kmeans"}, // one palette
		{32, 64, 0.02, []string{"bits=6"}, 32, 6, "kmeans"},
		{64, 256, 0.02, []string{"method=uniform"}, 32, 4, "uniform"},
		{64, 256, 0.02, []string{"method=uniform", "bits=3"}, 32, 3, "uniform"},
	} {
		name := fmt.Sprintf("%dx%d std %g %v", c.rows, c.cols, c.std, c.set)
		t.Run(name, func(t *testing.T) {
			src, w := weightModule(c.rows, c.cols, 9, c.std)
			ch, _, _ := compressAndRun(t, "palettize", c.set, src, c.rows)
			if len(ch.Compressed) != 2 {
				t.Fatalf("%d compressed; notes %v", len(ch.Compressed), ch.Notes)
			}
			raw := make([]byte, 2*len(w[1]))
			for i, x := range w[1] {
				binary.LittleEndian.PutUint16(raw[2*i:], f16.FromFloat64(x))
			}
			path := filepath.Join(t.TempDir(), "w.f16")
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(py, filepath.Join("..", "testdata", "numpy", "palettize.py"), path,
				fmt.Sprint(c.rows), fmt.Sprint(c.cols), fmt.Sprint(c.bits), fmt.Sprint(c.group), c.method).CombinedOutput()
			if err != nil {
				t.Fatalf("palettize.py: %v\n%s", err, out)
			}
			var ref float64
			if _, err := fmt.Sscanf(string(out), "sse %g", &ref); err != nil {
				t.Fatalf("palettize.py printed %q", out)
			}
			got := ch.Compressed[1].ErrorPower
			if got > ref {
				t.Errorf("anefix's error %.10g is above the reference's %.10g (%s)", got, ref, ch.Compressed[1].Form)
			}
			t.Logf("%s: anefix %.6g, reference %.6g (ratio %.6f)", ch.Compressed[1].Form, got, ref, got/ref)
		})
	}
}

// TestCompressionDeterministic: the same input and options give the same
// module text (indices, palettes, report) whatever the number of cores.
func TestCompressionDeterministic(t *testing.T) {
	src, _ := weightModule(256, 512, 6, 0.02)
	for _, c := range []struct {
		pass string
		set  []string
	}{
		{"palettize", nil},
		{"palettize", []string{"palettize.granularity=per-channel"}},
		{"palettize", []string{"palettize.cluster-dim=2"}},
		{"quantize-weights", []string{"quantize-weights.dtype=si4", "quantize-weights.granularity=per-block"}},
	} {
		var first string
		for _, procs := range []int{1, 2, 5} {
			old := runtime.GOMAXPROCS(procs)
			m, _, err := mlirtext.Parse("w.mlir", src)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := passes.Build(passes.Spec{Passes: []string{c.pass}, Set: c.set})
			res, err := p.Run(m, passes.RunOptions{})
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			text, _ := mlirtext.Format(m, mlirtext.FormGeneric)
			got := fmt.Sprintf("%s\n%+v", text, res.Steps[0].Change.Compressed)
			if first == "" {
				first = got
			} else if got != first {
				t.Errorf("%s %v: GOMAXPROCS=%d gives other output than GOMAXPROCS=1", c.pass, c.set, procs)
			}
		}
	}
}

// TestPalettizeWeightTypes: bf16 and f32 weights (a bf16 histogram of their
// own patterns; f32 clustered on fp16-rounded values as
// coreai-optimization does, measured on the exact ones) reconstruct with
// exactly the reported error, their palettes in the weight's type.
func TestPalettizeWeightTypes(t *testing.T) {
	const rows, cols = 64, 96
	for _, elem := range []string{"bf16", "f32"} {
		for _, set := range [][]string{nil, {"lut-dtype=si8"}, {"per-channel-scale=true"}} {
			t.Run(elem+fmt.Sprint(set), func(t *testing.T) {
				r := rand.New(rand.NewPCG(8, 8))
				eb := 2
				if elem == "f32" {
					eb = 4
				}
				raw := make([]byte, 4+eb*rows*cols)
				binary.LittleEndian.PutUint32(raw, uint32(eb))
				var w []float64
				for i := 0; i < rows*cols; i++ {
					x := r.NormFloat64() * 0.02
					if elem == "bf16" {
						b := f16.BF16FromFloat64(x)
						binary.LittleEndian.PutUint16(raw[4+2*i:], b)
						w = append(w, float64(f16.BF16ToFloat32(b)))
					} else {
						binary.LittleEndian.PutUint32(raw[4+4*i:], math.Float32bits(float32(x)))
						w = append(w, float64(float32(x)))
					}
				}
				var idx []string
				for i := 0; i < rows; i++ {
					idx = append(idx, fmt.Sprintf("[%d]", i))
				}
				ty := fmt.Sprintf("tensor<%dx%dx%s>", rows, cols, elem)
				src := fmt.Sprintf(`module {
  coreai.graph @main() -> (%[1]s {coreai.name = "w"}) {
    %%0 = coreai.constant dense_resource<w> : %[1]s
    %%1 = coreai.constant dense<[%[2]s]> : tensor<%[3]dx1xsi32>
    %%2 = coreai.gather_nd %%0 at %%1 : (%[1]s, tensor<%[3]dx1xsi32>) to %[1]s
    coreai.output %%2 : %[1]s
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x%[4]s"
    }
  }
#-}
`, ty, strings.Join(idx, ", "), rows, strings.ToUpper(hex.EncodeToString(raw)))
				m, _, err := mlirtext.Parse("w.mlir", src)
				if err != nil {
					t.Fatal(err)
				}
				var full []string
				for _, s := range set {
					full = append(full, "palettize."+s)
				}
				p, _ := passes.Build(passes.Spec{Passes: []string{"palettize"}, Set: full})
				res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
				if err != nil {
					t.Fatal(err)
				}
				ch := res.Steps[0].Change
				if len(ch.Compressed) != 1 {
					t.Fatalf("%d compressed; notes %v", len(ch.Compressed), ch.Notes)
				}
				in := interp.New(m, interp.Options{})
				defer in.Close()
				out, err := in.Run("main", nil)
				if err != nil {
					t.Fatal(err)
				}
				sig, e := errorOf(w, out[0].Floats())
				cw := ch.Compressed[0]
				if math.Abs(e-cw.ErrorPower) > 1e-9*sig || cw.SNR < 15 {
					t.Errorf("%s: interpreter error %g, reported %g (SNR %.2f dB)", cw.Form, e, cw.ErrorPower, cw.SNR)
				}
			})
		}
	}
}

// TestCompressionSharesBlobs: arm E's 19 functions each hold a constant of
// every shared weight blob; each blob is compressed once and every
// rewritten constant names the same new blobs.
func TestCompressionSharesBlobs(t *testing.T) {
	for _, c := range []struct{ pass, set string }{
		{"palettize", "palettize.min-elements=0,palettize.granularity=per-tensor"},
		{"quantize-weights", "quantize-weights.min-elements=0"},
	} {
		m, err := synth.Generate(synth.Options{Arm: synth.ArmE})
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		m.Walk(func(op *graph.Operation) bool {
			if a, ok := op.Inherent("value").(*graph.DenseResourceAttr); ok && op.Name == "coreai.constant" {
				keys[a.Key] = true
			}
			return true
		})
		before := len(m.Resources)
		p, err := passes.Build(passes.Spec{Passes: []string{c.pass}, Set: strings.Split(c.set, ",")})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
		if err != nil {
			t.Fatal(err)
		}
		ch := res.Steps[0].Change
		seen := map[string]bool{}
		for _, cw := range ch.Compressed {
			if seen[cw.Resource+cw.Type] {
				t.Errorf("%s: %s compressed twice", c.pass, cw.Resource)
			}
			seen[cw.Resource+cw.Type] = true
		}
		if len(ch.Compressed) == 0 || len(m.Resources) > before+3*len(ch.Compressed) {
			t.Errorf("%s: %d weights compressed, resources %d → %d", c.pass, len(ch.Compressed), before, len(m.Resources))
		}
		if !strings.Contains(strings.Join(ch.Notes, "\n"), "name the same new blobs") {
			t.Errorf("%s: no sharing noted: %v", c.pass, ch.Notes)
		}
	}
}

// TestMaxMemoryRefusesBeforeWork: with RunOptions.MaxMemory below what a
// weight's plan needs, the compression passes stop with an error naming
// the weight, the estimate, the limit and what to do, before changing
// anything; the defaults pass under the same limit. A per-tensor vector
// palette holds the weight's values as float64: 8 bytes each, 8 MiB for
// these 512×2048 stand-in weights, and with a distance and an assignment
// per pair of values, 6 more: over the 14 MiB limit. The defaults hold a
// few batches of 32 channels and a clustering scratch per goroutine.
func TestMaxMemoryRefusesBeforeWork(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the estimates count workers
	const rows, cols, limit = 512, 2048, 14 << 20
	src, _ := weightModule(rows, cols, 5, 0.02)
	for _, c := range []struct {
		name, pass string
		set        []string
		refused    bool
		want       []string
	}{
		{"palettize per-tensor vector", "palettize", []string{"granularity=per-tensor", "cluster-dim=2", "bits=2"}, true,
			[]string{"palettize: ", "w0 tensor<512x2048xf16>", "needs about", "over the limit of 14.0 MiB (--max-memory)", "granularity=per-grouped-channel", "--set palettize.exclude=w0"}},
		{"palettize defaults", "palettize", nil, false, nil},
		{"quantize-weights defaults", "quantize-weights", nil, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := mlirtext.Parse("w.mlir", src)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := mlirtext.Format(m, mlirtext.FormGeneric)
			var full []string
			for _, s := range c.set {
				full = append(full, c.pass+"."+s)
			}
			p, err := passes.Build(passes.Spec{Passes: []string{c.pass}, Set: full})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Run(m, passes.RunOptions{VerifyEach: true, MaxMemory: limit})
			if !c.refused {
				if err != nil {
					t.Fatalf("refused under %d bytes: %v", limit, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ran under %d bytes; want it refused", limit)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			after, _ := mlirtext.Format(m, mlirtext.FormGeneric)
			if string(before) != string(after) {
				t.Error("the module changed before the refusal")
			}
		})
	}
}
