package mlirtext

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/oracle"

	"github.com/anefix/anefix/graph/goldentest"
)

const testdataDir = "../../testdata/mlir"

// testFiles lists the .mlir files of one form directory.
func testFiles(t testing.TB, form string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testdataDir, form, "*.mlir"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s/%s: %v", testdataDir, form, err)
	}
	return files
}

// parseFile parses a test file under its base name, the name mlir-opt is
// given too, so locations derived from positions agree.
func parseFile(t testing.TB, path string) (*graph.Module, Form, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, form, err := Parse(filepath.Base(path), string(b))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return m, form, string(b)
}

func mustFormat(t testing.TB, m *graph.Module, f Form) string {
	t.Helper()
	b, err := Format(m, f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mlirOpt returns mlir-opt's canonical generic printout of the file name in dir.
func mlirOpt(t *testing.T, bin, dir, name string) string {
	t.Helper()
	out, err := oracle.RunMlirOpt(bin, dir, "--mlir-print-op-generic", "--mlir-print-debuginfo", name)
	if err != nil {
		t.Fatalf("in %s: %v", dir, err)
	}
	return string(out)
}

// TestMlirOptRoundTrip: for every generic-form test file, mlir-opt's
// canonical printout of anefix's output equals its printout of the input.
func TestMlirOptRoundTrip(t *testing.T) {
	bin := oracle.MlirOpt(t)
	for _, path := range testFiles(t, "generic") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m, form, _ := parseFile(t, path)
			if form != FormGeneric {
				t.Errorf("form = %v, want generic", form)
			}
			want := mlirOpt(t, bin, filepath.Dir(path), filepath.Base(path))
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "out.mlir"), []byte(mustFormat(t, m, FormGeneric)), 0o644); err != nil {
				t.Fatal(err)
			}
			got := mlirOpt(t, bin, dir, "out.mlir")
			if got != want {
				t.Errorf("mlir-opt printout differs after anefix round trip:\n%s", firstDiff(want, got))
			}
		})
	}
}

// TestMlirOptComparisonDetectsLoss is the control for the round-trip test:
// a dropped attribute, location, resource byte or op shows up in mlir-opt's
// printout, so an equal printout means nothing was lost.
func TestMlirOptComparisonDetectsLoss(t *testing.T) {
	bin := oracle.MlirOpt(t)
	path := filepath.Join(testdataDir, "generic", "hybrid_layer.mlir")
	want := mlirOpt(t, bin, filepath.Dir(path), filepath.Base(path))
	damage := map[string]func(m *graph.Module){
		"attribute": func(m *graph.Module) {
			g := m.Graph("rms_norm_0")
			g.Op.SetAttr("composite_decl", nil)
		},
		"location": func(m *graph.Module) {
			m.Graph("main").Body().First().Loc = graph.Unknown
		},
		"resource byte": func(m *graph.Module) {
			r := m.Resource("layer0_out_proj")
			b, _ := r.Bytes()
			b[0] ^= 1
			r.Blob = graph.MemBlob(b)
		},
		"op": func(m *graph.Module) {
			out := m.Graph("main").Terminator()
			extra := graph.NewOp("coreai.extra", nil, nil, nil, graph.Unknown)
			extra.InsertBefore(out)
		},
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			m, _, _ := parseFile(t, path)
			f(m)
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "out.mlir"), []byte(mustFormat(t, m, FormGeneric)), 0o644)
			if got := mlirOpt(t, bin, dir, "out.mlir"); got == want {
				t.Errorf("mlir-opt printout unchanged after dropping/changing a %s", name)
			}
		})
	}
}

// TestReadsMlirOptOutput: anefix reads mlir-opt's own canonical printout
// (location aliases defined at the end of the file, `// pred:` comments,
// sorted dictionaries) and writes back the same IR.
func TestReadsMlirOptOutput(t *testing.T) {
	bin := oracle.MlirOpt(t)
	for _, path := range testFiles(t, "generic") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			canon := mlirOpt(t, bin, filepath.Dir(path), filepath.Base(path))
			m, form, err := Parse("canon.mlir", canon)
			if err != nil {
				t.Fatalf("parse mlir-opt output: %v", err)
			}
			if form != FormGeneric {
				t.Errorf("form %v", form)
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "out.mlir"), []byte(mustFormat(t, m, FormGeneric)), 0o644)
			if got := mlirOpt(t, bin, dir, "out.mlir"); got != canon {
				t.Errorf("IR changed:\n%s", firstDiff(canon, got))
			}
		})
	}
}

// TestMlirOptReadsPrettyAsGeneric: the generic printout of a pretty file is
// valid MLIR, and mlir-opt sees the same IR after a second pass through
// anefix (pretty -> generic -> pretty -> generic).
func TestMlirOptReadsPrettyAsGeneric(t *testing.T) {
	bin := oracle.MlirOpt(t)
	for _, path := range testFiles(t, "pretty") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m, form, _ := parseFile(t, path)
			if form != FormPretty {
				t.Errorf("form = %v, want pretty", form)
			}
			dir := t.TempDir()
			g1 := mustFormat(t, implicitLocsUnknown(m), FormGeneric)
			m2, _, err := Parse("p.mlir", mustFormat(t, m, FormPretty))
			if err != nil {
				t.Fatal(err)
			}
			g2 := mustFormat(t, implicitLocsUnknown(m2), FormGeneric)
			os.WriteFile(filepath.Join(dir, "g1.mlir"), []byte(g1), 0o644)
			os.WriteFile(filepath.Join(dir, "g2.mlir"), []byte(g2), 0o644)
			a, b := mlirOpt(t, bin, dir, "g1.mlir"), mlirOpt(t, bin, dir, "g2.mlir")
			if a != b {
				t.Errorf("mlir-opt sees different IR after a pretty round trip:\n%s", firstDiff(a, b))
			}
		})
	}
}

// implicitLocsUnknown sets every location the reader made from a position
// (the text wrote none) to unknown, in place, and returns m. The custom form
// leaves those out, so a module read back from it has other positions.
func implicitLocsUnknown(m *graph.Module) *graph.Module {
	fix := func(l *graph.Loc) {
		if f, ok := (*l).(*graph.FileLoc); ok && f.Implicit {
			*l = graph.Unknown
		}
	}
	fix(&m.Op.Loc)
	m.Walk(func(op *graph.Operation) bool {
		fix(&op.Loc)
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, a := range b.Args() {
					fix(&a.Loc)
				}
			}
		}
		return true
	})
	return m
}

// TestFixedPoint: parse -> print -> parse -> print gives the same text, in
// both forms, from every test file; and printing pretty then generic equals
// printing generic directly (the pretty form loses nothing but the
// locations the text did not write).
func TestFixedPoint(t *testing.T) {
	files := append(testFiles(t, "generic"), testFiles(t, "pretty")...)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m, _, _ := parseFile(t, path)
			direct := mustFormat(t, m, FormGeneric)
			for _, f := range []Form{FormGeneric, FormPretty} {
				p1 := mustFormat(t, m, f)
				m2, form2, err := Parse("second.mlir", p1)
				if err != nil {
					t.Fatalf("reparse %v output: %v", f, err)
				}
				if f == FormGeneric && form2 != FormGeneric {
					t.Errorf("generic output parsed as %v", form2)
				}
				if err := graph.Verify(m2); err != nil && graph.Verify(m) == nil {
					t.Errorf("%v output no longer verifies: %v", f, err)
				}
				if p2 := mustFormat(t, m2, f); p2 != p1 {
					t.Errorf("%v form is not a fixed point:\n%s", f, firstDiff(p1, p2))
				}
				want := direct
				if f == FormPretty {
					m3, _, _ := parseFile(t, path)
					want = mustFormat(t, implicitLocsUnknown(m3), FormGeneric)
					implicitLocsUnknown(m2)
				}
				if g := mustFormat(t, m2, FormGeneric); g != want {
					t.Errorf("after %v round trip the generic printout changed:\n%s", f, firstDiff(want, g))
				}
			}
		})
	}
}

// TestHybridLayerBothForms: the generic hybrid layer is the generic printout
// of the hand-written pretty one (regenerate with -update), so the layer
// exists in both forms and the generic one is checked by mlir-opt above.
func TestHybridLayerBothForms(t *testing.T) {
	m, _, _ := parseFile(t, filepath.Join(testdataDir, "pretty", "hybrid_layer.mlir"))
	if err := graph.Verify(m); err != nil {
		t.Fatalf("hybrid layer does not verify: %v", err)
	}
	got := mustFormat(t, m, FormGeneric)
	golden := filepath.Join(testdataDir, "generic", "hybrid_layer.mlir")
	if goldentest.Update() {
		hdr := "// Generated by `go test ./graph/mlirtext -update` from ../pretty/hybrid_layer.mlir; do not edit.\n"
		if err := os.WriteFile(golden, []byte(hdr+got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gm, form, _ := parseFile(t, golden)
	if form != FormGeneric {
		t.Fatalf("golden parsed as %v", form)
	}
	if g := mustFormat(t, gm, FormGeneric); g != got {
		t.Errorf("generic golden out of date (run go test ./graph/mlirtext -update):\n%s", firstDiff(g, got))
	}
	// The recurrence's casts are in the IR with their FX names and sources.
	ids := map[string]string{}
	m.Walk(func(op *graph.Operation) bool {
		if op.Name == "coreai.cast" {
			ids[opIDForTest(op)] = op.Source()
		}
		return true
	})
	for _, id := range []string{"_to_copy_10", "_to_copy_12", "_to_copy_15", "_to_copy_17"} {
		if src, ok := ids[id]; !ok || !strings.HasSuffix(src, "qwen3_5.py:199") {
			t.Errorf("cast %s: source %q, want …qwen3_5.py:199 (casts: %v)", id, src, ids)
		}
	}
}

// opIDForTest reads the FX name from a name location or from the
// debuginfo metadata the exporter stand-in writes.
func opIDForTest(op *graph.Operation) string {
	if id := op.OpID(); id != "" {
		return id
	}
	if f, ok := op.Loc.(*graph.FusedLoc); ok && f.Metadata != nil {
		s := f.Metadata.String()
		if i := strings.Index(s, `identifiers = ["`); i >= 0 {
			rest := s[i+len(`identifiers = ["`):]
			return rest[:strings.IndexByte(rest, '"')]
		}
	}
	return ""
}

func TestResourcesStayLazy(t *testing.T) {
	m, _, _ := parseFile(t, filepath.Join(testdataDir, "generic", "syntax_zoo.mlir"))
	r := m.Resource("w_embed")
	if r == nil {
		t.Fatal("resource w_embed missing")
	}
	if _, ok := r.Blob.(*hexBlob); !ok {
		t.Errorf("blob is %T, want a handle into the text", r.Blob)
	}
	if r.Alignment != 2 || r.Size() != 9 {
		t.Errorf("alignment %d size %d, want 2 and 9", r.Alignment, r.Size())
	}
	b, err := r.Bytes()
	if err != nil || !bytes.Equal(b, []byte{0, 0, 0, 0x3C, 0, 0x40, 0, 0x42, 0}) {
		t.Errorf("bytes = % X, %v", b, err)
	}
	part := make([]byte, 3)
	if n, err := r.Blob.ReadAt(part, 7); n != 2 || err == nil || part[0] != 0x42 || part[1] != 0 {
		t.Errorf("short ReadAt = %d, %v, % X", n, err, part)
	}
	if len(m.ExternalResources) != 2 {
		t.Errorf("external resources: %d, want 2", len(m.ExternalResources))
	}
}

func TestParseForm(t *testing.T) {
	for s, want := range map[string]Form{"generic": FormGeneric, "pretty": FormPretty, "": formKeep, "keep": formKeep} {
		if f, ok := parseForm(s); !ok || f != want || (s != "" && f.String() != s) {
			t.Errorf("ParseForm(%q) = %v, %v", s, f, ok)
		}
	}
	if _, ok := parseForm("fancy"); ok {
		t.Error("ParseForm accepted fancy")
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n- " + clip(x) + "\n+ " + clip(y)
		}
	}
	return "(no difference)"
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

func TestPrintRejectsBrokenIR(t *testing.T) {
	m, _, err := Parse("t.mlir", `"x.a"() ({
  %0 = "x.b"() : () -> i32
  "x.c"(%0) : (i32) -> ()
}) : () -> ()`)
	if err != nil {
		t.Fatal(err)
	}
	var user *graph.Operation
	m.Walk(func(op *graph.Operation) bool {
		if op.Name == "x.c" {
			user = op
		}
		return true
	})
	stranger := graph.NewOp("x.elsewhere", nil, []graph.Type{graph.I32}, nil, nil)
	user.SetOperand(0, stranger.Result(0))
	for _, f := range []Form{FormGeneric, FormPretty} {
		if _, err := Format(m, f); err == nil || !strings.Contains(err.Error(), "outside the module") {
			t.Errorf("%v: err = %v, want an error about a value outside the module", f, err)
		}
	}
}

// TestModuleLevelValues: a value defined in the module body and used inside
// a graph after the graph defined its own first value keeps its identity.
func TestModuleLevelValues(t *testing.T) {
	in := `%c = "x.c"() : () -> i32
"coreai.graph"() <{function_type = () -> (), sym_name = "g"}> ({
  %a = "x.a"() : () -> i32
  "x.use"(%c, %a) : (i32, i32) -> ()
  "coreai.output"() : () -> ()
}) : () -> ()`
	m, _, err := Parse("t.mlir", in)
	if err != nil {
		t.Fatal(err)
	}
	out := mustFormat(t, m, FormGeneric)
	m2, _, err := Parse("t2.mlir", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var use *graph.Operation
	m2.Walk(func(op *graph.Operation) bool {
		if op.Name == "x.use" {
			use = op
		}
		return true
	})
	if use == nil || use.Operand(0).DefiningOp().Name != "x.c" || use.Operand(1).DefiningOp().Name != "x.a" {
		t.Errorf("operands rebound after printing:\n%s", out)
	}
}
