package ane

// The calibration suite: one small graph per published compile (the
// feature the record varied, not the model), checked against the region
// count the record gives. testdata/calibration/manifest.json holds the
// records (hand-written from the sources it names; never edited to make a
// case pass) and, per case, whether check is expected to agree and why not.
// The graphs and the README's table are generated here:
//
//	go test ./passes/ane -run Calibration -update

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"

	"github.com/anefix/anefix/graph/goldentest"
)

const calibDir = "../../testdata/calibration"

type calibSource struct {
	Repo    string `json:"repo"`
	Path    string `json:"path"`
	Section string `json:"section"`
}

type calibCase struct {
	ID           string      `json:"id"`
	Graph        string      `json:"graph"` // generator name (calibGraphs)
	Source       calibSource `json:"source"`
	Build        string      `json:"build"`
	Target       string      `json:"target"`
	Architecture string      `json:"architecture"`
	Model        string      `json:"model"`
	Variant      string      `json:"variant"`
	// Measured: ANE regions over functions as the source counts them;
	// Stated (instead) when the source states a placement without a count.
	Regions   *int   `json:"measured_regions,omitempty"`
	Functions int    `json:"measured_functions,omitempty"`
	Counting  string `json:"counting,omitempty"`
	Stated    string `json:"stated,omitempty"`
	StatedAs  *int   `json:"stated_regions,omitempty"`
	Expect    string `json:"expect"` // "agree" or "disagree"
	Reason    string `json:"reason,omitempty"`
}

type calibManifest struct {
	Note  string      `json:"note"`
	Cases []calibCase `json:"cases"`
}

// perFunction is the measured (or stated) count per function: the case's
// graph stands for one of the record's functions.
func (c *calibCase) perFunction() (int, error) {
	if c.Regions == nil {
		if c.StatedAs == nil {
			return 0, fmt.Errorf("%s: neither measured_regions nor stated_regions", c.ID)
		}
		return *c.StatedAs, nil
	}
	fns := max(c.Functions, 1)
	if *c.Regions%fns != 0 {
		return 0, fmt.Errorf("%s: %d regions over %d functions is not a whole count per function", c.ID, *c.Regions, fns)
	}
	return *c.Regions / fns, nil
}

func readCalibManifest(t *testing.T) *calibManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(calibDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m calibManifest
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	return &m
}

type calibResult struct {
	c         *calibCase
	predicted int
	known     bool
	agree     bool
	measured  int
}

func TestCalibration(t *testing.T) {
	m := readCalibManifest(t)
	if len(m.Cases) < 10 {
		t.Errorf("%d cases; the suite needs at least ten published compiles", len(m.Cases))
	}
	seen := map[string]bool{}
	var results []calibResult
	for i := range m.Cases {
		c := &m.Cases[i]
		if seen[c.ID] {
			t.Fatalf("case %s twice", c.ID)
		}
		seen[c.ID] = true
		gen, ok := calibGraphs[c.Graph]
		if !ok {
			t.Fatalf("%s: no generator %q", c.ID, c.Graph)
		}
		if c.Source.Repo == "" || c.Source.Path == "" || c.Build == "" || c.Architecture == "" || c.Variant == "" {
			t.Errorf("%s: source, build, architecture and variant are required", c.ID)
		}
		if c.Expect != "agree" && c.Expect != "disagree" {
			t.Errorf("%s: expect is %q, want agree or disagree", c.ID, c.Expect)
		}
		if c.Expect == "disagree" && c.Reason == "" {
			t.Errorf("%s: an expected disagreement needs its reason", c.ID)
		}
		text := gen()
		path := filepath.Join(calibDir, c.Graph+".mlir")
		if goldentest.Update() {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if b, err := os.ReadFile(path); err != nil || string(b) != text {
			t.Errorf("%s is stale or missing (err %v); regenerate with -update", path, err)
		}
		mod, _, err := mlirtext.Parse(path, text)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if err := graph.Verify(mod); err != nil {
			t.Fatalf("%s: graph does not verify: %v", c.ID, err)
		}
		rep, err := CheckWith(mod, Options{Architecture: c.Architecture})
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		want, err := c.perFunction()
		if err != nil {
			t.Fatal(err)
		}
		n, known := rep.PredictedRegions()
		r := calibResult{c: c, predicted: n, known: known, measured: want, agree: known && n == want}
		results = append(results, r)
		if got := map[bool]string{true: "agree", false: "disagree"}[r.agree]; got != c.Expect {
			t.Errorf("%s: check now %ss (predicts %s, measured %d per function); the manifest records %q: "+
				"a changed model must update the manifest's expectation and reason, never the measured number",
				c.ID, got, predictedString(r), want, c.Expect)
		}
	}
	table := calibTable(results)
	readme := "../../README.md"
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- calibration table: generated by go test ./passes/ane -run Calibration -update -->\n", "<!-- end of calibration table -->\n"
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the calibration table markers")
	}
	if got := s[i+len(begin) : j]; got != table {
		if goldentest.Update() {
			if err := os.WriteFile(readme, []byte(s[:i+len(begin)]+table+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("README.md's calibration table is stale; regenerate with -update:\n%s", table)
		}
	}
	for _, r := range results {
		t.Logf("%-28s %-5s measured %3d/fn  predicted %-7s %s", r.c.ID, r.c.Architecture, r.measured, predictedString(r), map[bool]string{true: "agree", false: "DISAGREE"}[r.agree])
	}
}

func predictedString(r calibResult) string {
	if !r.known {
		return "unknown"
	}
	return fmt.Sprint(r.predicted)
}

// calibTable is the README's table: agreement over the measured cases, the
// stated ones listed apart.
func calibTable(rs []calibResult) string {
	var b strings.Builder
	agree, measured := 0, 0
	for _, r := range rs {
		if r.c.Regions != nil {
			measured++
			if r.agree {
				agree++
			}
		}
	}
	fmt.Fprintf(&b, "`check` against published compiles: %d of %d agree\n\n", agree, measured)
	b.WriteString("| case | model, variant | source | build, target (`--architecture`) | measured ANE regions | `check` predicts (per function) | agrees |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		c := r.c
		meas := ""
		if c.Regions != nil {
			meas = fmt.Sprint(*c.Regions)
			if c.Functions > 1 {
				meas += fmt.Sprintf("/%d functions", c.Functions)
			}
		} else {
			meas = "none published; stated: " + c.Stated
		}
		verdict := "yes"
		if !r.agree {
			verdict = "**no**: " + c.Reason
		}
		if c.Regions == nil {
			verdict = "stated only (not counted): " + map[bool]string{true: "yes", false: "no"}[r.agree]
		}
		src := c.Source.Repo + " `" + c.Source.Path + "`"
		if c.Source.Section != "" {
			src += " " + c.Source.Section
		}
		fmt.Fprintf(&b, "| `%s` | %s, %s | %s | %s, %s (`%s`) | %s | %s | %s |\n",
			c.ID, c.Model, c.Variant, src, c.Build, c.Target, c.Architecture, meas, predictedString(r), verdict)
	}
	return b.String()
}

// ---- the graphs ----

// Every graph is a stand-in written for anefix: it carries the feature the
// record varied (element types, fp32 islands, palette bits and group, a
// custom kernel) at toy sizes (hidden 64, sequence 8), not the model.

type mlirB struct {
	b strings.Builder
	n int
}

func (m *mlirB) op(format string, args ...any) string {
	v := fmt.Sprintf("%%%d", m.n)
	m.n++
	fmt.Fprintf(&m.b, "    %s = %s\n", v, fmt.Sprintf(format, args...))
	return v
}

func (m *mlirB) constant(typ string, value string) string {
	return m.op("coreai.constant dense<%s> : %s", value, typ)
}

// palette describes a weight: bits 0 is a plain constant; group 0 is one
// palette for the whole tensor.
type palette struct{ bits, group int }

// weight64 returns a 64x64 weight of element type elem, palettized when p
// says so (lut [64/group, 1, 2^bits, 1], coreai-torch's layout;
// testdata/mlir/coreai/compression.mlir).
func (m *mlirB) weight64(elem string, p palette) string {
	typ := "tensor<64x64x" + elem + ">"
	if p.bits == 0 {
		return m.constant(typ, "1.000000e-02")
	}
	groups := 1
	if p.group > 0 {
		groups = 64 / p.group
	}
	it := fmt.Sprintf("tensor<64x64xui%d>", p.bits)
	lt := fmt.Sprintf("tensor<%dx1x%dx1x%s>", groups, 1<<p.bits, elem)
	idx := m.constant(it, "1")
	lut := m.constant(lt, "1.000000e-02")
	ax := m.constant("tensor<si16>", "0")
	return m.op("coreai.lut_to_dense %s, %s, %s : (%s, %s, tensor<si16>) -> %s", idx, lut, ax, it, lt, typ)
}

func (m *mlirB) module(comment, sig, out, outTypes string) string {
	return "// " + strings.ReplaceAll(comment, "\n", "\n// ") + "\n// Generated by passes/ane/calibration_test.go (-update); a stand-in, not the model.\n" +
		"module {\n  coreai.graph @main(" + sig + ") -> (" + outTypes + ") {\n" + m.b.String() +
		"    coreai.output " + out + "\n  }\n}\n"
}

// encoderOpts shape the Granite-Embedding-97M stand-in.
type encoderOpts struct {
	fp32       bool // weights, table and activations fp32
	fp32Soft   bool // each layer's softmax cast to fp32 and back (F.softmax(..., dtype=float32))
	fp32Pooled bool // the pooled output cast to fp32 (pooled.float())
	pal        palette
}

// encoder: token-id input, embedding gather, 12 attention-like layers
// (matmul, scores, softmax, context matmul, residual add), mean pooling.
func encoder(o encoderOpts) string {
	var m mlirB
	e := "f16"
	if o.fp32 {
		e = "f32"
	}
	act := func(s string) string { return "tensor<1x8x" + s + "x" + e + ">" }
	table := m.constant("tensor<32x64x"+e+">", "1.000000e-02")
	h := m.op("coreai.gather_nd %s at %%arg0 : (tensor<32x64x%s>, tensor<1x8x1xsi32>) to %s", table, e, act("64"))
	axis := m.constant("tensor<si32>", "2")
	for l := 0; l < 12; l++ {
		w := m.weight64(e, o.pal)
		q := m.op("coreai.decomposable.broadcasting_batch_matmul %s, %s : (%s, tensor<64x64x%s>) -> %s", h, w, act("64"), e, act("64"))
		k := m.constant("tensor<64x8x"+e+">", "1.000000e-02")
		s := m.op("coreai.decomposable.broadcasting_batch_matmul %s, %s : (%s, tensor<64x8x%s>) -> %s", q, k, act("64"), e, act("8"))
		var p string
		if o.fp32Soft && !o.fp32 {
			s32 := m.op("coreai.cast %s : %s to tensor<1x8x8xf32>", s, act("8"))
			p32 := m.op("coreai.softmax %s, %s : (tensor<1x8x8xf32>, tensor<si32>) -> tensor<1x8x8xf32>", s32, axis)
			p = m.op("coreai.cast %s : tensor<1x8x8xf32> to %s", p32, act("8"))
		} else {
			p = m.op("coreai.softmax %s, %s : (%s, tensor<si32>) -> %s", s, axis, act("8"), act("8"))
		}
		v := m.constant("tensor<8x64x"+e+">", "1.000000e-02")
		ctx := m.op("coreai.decomposable.broadcasting_batch_matmul %s, %s : (%s, tensor<8x64x%s>) -> %s", p, v, act("8"), e, act("64"))
		h = m.op("coreai.decomposable.broadcasting_add %s, %s : (%s, %s) -> %s", h, ctx, act("64"), act("64"), act("64"))
	}
	ax1 := m.constant("tensor<1xsi32>", "1")
	pooled := m.op("coreai.reduce_mean %s, %s : (%s, tensor<1xsi32>) -> tensor<1x1x64x%s>", h, ax1, act("64"), e)
	outType := "tensor<1x1x64x" + e + ">"
	if o.fp32Pooled && !o.fp32 {
		pooled = m.op("coreai.cast %s : tensor<1x1x64xf16> to tensor<1x1x64xf32>", pooled)
		outType = "tensor<1x1x64xf32>"
	}
	desc := fmt.Sprintf("Granite-Embedding-97M stand-in: 12 layers; fp32 %v, fp32 softmax chains %v, fp32 pooled output %v, palette %d-bit group %d (0: none / whole tensor).",
		o.fp32, o.fp32Soft && !o.fp32, o.fp32Pooled && !o.fp32, o.pal.bits, o.pal.group)
	return m.module(desc, `%arg0: tensor<1x8x1xsi32> {coreai.name = "input_ids"}`, pooled+" : "+outType, outType+` {coreai.name = "pooled"}`)
}

// probe: the tiny ANE-shaped graph (1x1 conv2d in B,C,1,S layout, channel
// layer norm) in fp16 or fp32.
func probe(e string) string {
	var m mlirB
	x := "tensor<1x64x1x8x" + e + ">"
	r := "tensor<1x1x1x8x" + e + ">"
	w := m.constant("tensor<64x64x1x1x"+e+">", "1.000000e-02")
	one := m.constant("tensor<2xui32>", "1")
	g := m.constant("tensor<ui32>", "1")
	y := m.op("coreai.conv2d %%arg0, %s, %s, %s, %s : (%s, tensor<64x64x1x1x%s>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> %s", w, one, one, g, x, e, x)
	ax := m.constant("tensor<1xsi32>", "1")
	mean := m.op("coreai.reduce_mean %s, %s : (%s, tensor<1xsi32>) -> %s", y, ax, x, r)
	d := m.op("coreai.decomposable.broadcasting_sub %s, %s : (%s, %s) -> %s", y, mean, x, r, x)
	sq := m.op("coreai.decomposable.broadcasting_mul %s, %s : (%s, %s) -> %s", d, d, x, x, x)
	v := m.op("coreai.reduce_mean %s, %s : (%s, tensor<1xsi32>) -> %s", sq, ax, x, r)
	eps := m.constant("tensor<"+e+">", "9.99999974E-6")
	ve := m.op("coreai.decomposable.broadcasting_add %s, %s : (%s, tensor<%s>) -> %s", v, eps, r, e, r)
	rs := m.op("coreai.rsqrt %s : %s -> %s", ve, r, r)
	o := m.op("coreai.decomposable.broadcasting_mul %s, %s : (%s, %s) -> %s", d, rs, x, r, x)
	return m.module("Tiny ANE-shaped probe stand-in ("+e+"): 1x1 conv2d, B,C,1,S layout, channel layer norm.",
		`%arg0: `+x+` {coreai.name = "x"}`, o+" : "+x, x+` {coreai.name = "y"}`)
}

// decoderOpts shape the MiniCPM5-2B / Qwen3-1.7B stand-ins: one static
// function (each record's 31 functions compile alike).
type decoderOpts struct {
	table      string // "" none (embeddings are the input), else the table's element type
	pal1, pal2 palette
}

func decoder(o decoderOpts) string {
	var m mlirB
	act := "tensor<1x8x64xf16>"
	var h, sig string
	if o.table == "" {
		h, sig = "%arg0", `%arg0: tensor<1x8x64xf16> {coreai.name = "embeddings"}`
	} else {
		tt := "tensor<32x64x" + o.table + ">"
		table := m.constant(tt, "1.000000e-02")
		h = m.op("coreai.gather_nd %s at %%arg0 : (%s, tensor<1x8x1xsi32>) to tensor<1x8x64x%s>", table, tt, o.table)
		if o.table != "f16" {
			h = m.op("coreai.cast %s : tensor<1x8x64x%s> to %s", h, o.table, act)
		}
		sig = `%arg0: tensor<1x8x1xsi32> {coreai.name = "input_ids"}`
	}
	for l := 0; l < 2; l++ {
		w1 := m.weight64("f16", o.pal1)
		a := m.op("coreai.decomposable.broadcasting_batch_matmul %s, %s : (%s, tensor<64x64xf16>) -> %s", h, w1, act, act)
		s := m.op("coreai.sigmoid %s : %s -> %s", a, act, act)
		g := m.op("coreai.decomposable.broadcasting_mul %s, %s : (%s, %s) -> %s", a, s, act, act, act)
		w2 := m.weight64("f16", o.pal2)
		b := m.op("coreai.decomposable.broadcasting_batch_matmul %s, %s : (%s, tensor<64x64xf16>) -> %s", g, w2, act, act)
		h = m.op("coreai.decomposable.broadcasting_add %s, %s : (%s, %s) -> %s", h, b, act, act, act)
	}
	desc := fmt.Sprintf("Decoder stand-in (MLP blocks, x*sigmoid(x)): embedding table %q (\"\": embeddings are the input), "+
		"weights %d-bit group %d and %d-bit group %d (0: plain / whole tensor).", o.table, o.pal1.bits, o.pal1.group, o.pal2.bits, o.pal2.group)
	return m.module(desc, sig, h+" : "+act, act+` {coreai.name = "hidden"}`)
}

// metalKernel: an fp16 function whose middle step is a custom Metal kernel
// (coreai-torch's metal4_kernel operand groups, as testdata/mlir/coreai/
// metal_kernel.mlir spells them).
func metalKernel() string {
	var m mlirB
	act := "tensor<1x8x64xf16>"
	hw := "tensor<1x8x64xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>"
	w := m.weight64("f16", palette{})
	a := m.op("coreai.decomposable.broadcasting_batch_matmul %%arg0, %s : (%s, tensor<64x64xf16>) -> %s", w, act, act)
	c := m.op("coreai.cast %s : %s to %s", a, act, hw)
	grid := m.constant("tensor<3xui32>", "[512, 1, 1]")
	tg := m.constant("tensor<3xui32>", "[32, 1, 1]")
	shape := m.constant("tensor<3xui32>", "[1, 8, 64]")
	k := m.op(`coreai.metal4_kernel kernel_args(%s), threads_per_grid %s, threads_per_thread_group %s, result_shapes(%s) {kernel_name = "scale", kernel_source = "kernel void scale(device half* a [[buffer(0)]]) {}"} : (%s, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> %s`,
		c, grid, tg, shape, hw, hw)
	back := m.op("coreai.cast %s : %s to %s", k, hw, act)
	w2 := m.weight64("f16", palette{})
	b := m.op("coreai.decomposable.broadcasting_batch_matmul %s, %s : (%s, tensor<64x64xf16>) -> %s", back, w2, act, act)
	return m.module("fp16 function with a custom Metal kernel (metal4_kernel) between two matmuls.",
		`%arg0: `+act+` {coreai.name = "x"}`, b+" : "+act, act+` {coreai.name = "y"}`)
}

var calibGraphs = map[string]func() string{
	"granite-fp32":           func() string { return encoder(encoderOpts{fp32: true}) },
	"granite-fp16-v0":        func() string { return encoder(encoderOpts{fp32Soft: true, fp32Pooled: true}) },
	"granite-fp16-v1":        func() string { return encoder(encoderOpts{fp32Pooled: true}) },
	"granite-fp16-v3":        func() string { return encoder(encoderOpts{}) },
	"granite-w8":             func() string { return encoder(encoderOpts{fp32Soft: true, fp32Pooled: true, pal: palette{8, 0}}) },
	"granite-w6":             func() string { return encoder(encoderOpts{fp32Soft: true, fp32Pooled: true, pal: palette{6, 0}}) },
	"granite-w4-g16":         func() string { return encoder(encoderOpts{fp32Soft: true, fp32Pooled: true, pal: palette{4, 16}}) },
	"probe-fp16":             func() string { return probe("f16") },
	"probe-fp32":             func() string { return probe("f32") },
	"decoder-4bit-g8":        func() string { return decoder(decoderOpts{pal1: palette{4, 8}, pal2: palette{4, 8}}) },
	"decoder-4bit-g8-8bit":   func() string { return decoder(decoderOpts{pal1: palette{4, 8}, pal2: palette{8, 0}}) },
	"decoder-4bit-g32":       func() string { return decoder(decoderOpts{pal1: palette{4, 32}, pal2: palette{4, 32}}) },
	"decoder-4bit-g32-8bit":  func() string { return decoder(decoderOpts{pal1: palette{4, 32}, pal2: palette{8, 0}}) },
	"decoder-6bit-g8":        func() string { return decoder(decoderOpts{pal1: palette{6, 8}, pal2: palette{6, 8}}) },
	"decoder-8bit-g32":       func() string { return decoder(decoderOpts{pal1: palette{8, 32}, pal2: palette{8, 32}}) },
	"decoder-fp32-table":     func() string { return decoder(decoderOpts{table: "f32", pal1: palette{4, 32}, pal2: palette{4, 32}}) },
	"decoder-f16-table-4bit": func() string { return decoder(decoderOpts{table: "f16", pal1: palette{4, 32}, pal2: palette{4, 32}}) },
	"metal-kernel":           metalKernel,
}
