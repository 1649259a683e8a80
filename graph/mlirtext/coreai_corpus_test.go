package mlirtext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/oracle"
)

// tokens lexes text into "kind text" strings, dropping whitespace and
// comments: the comparison "printed back unchanged" uses, so that only the
// layout may differ (MLIR's printer puts a signature on one line).
func tokens(t testing.TB, name, text string) []string {
	t.Helper()
	lx := NewLexer(NewSource(name, text))
	var out []string
	for {
		tok := lx.Next()
		if tok.Kind == EOF {
			break
		}
		if lx.Err() != nil {
			t.Fatalf("%s: %v", name, lx.Err())
		}
		out = append(out, tok.Text)
	}
	return out
}

// firstTokenDiff describes where two token lists part.
func firstTokenDiff(a, b []string) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			lo := max(0, i-8)
			ctx := func(s []string) string { return strings.Join(s[lo:min(len(s), i+8)], " ") }
			return "token " + x + " vs " + y + "\n- …" + ctx(a) + "…\n+ …" + ctx(b) + "…"
		}
	}
	return "(no difference)"
}

// withoutDialectLocs returns a copy of m's text in generic form with every
// dialect location replaced by loc(unknown): mlir-opt 19 and 22 refuse
// dialect attributes as locations ("expected location, but found dialect
// attribute"), so that is the form they can check.
func withoutDialectLocs(t testing.TB, m *graph.Module) string {
	t.Helper()
	c, _, err := Parse("copy.mlir", mustFormat(t, m, FormGeneric))
	if err != nil {
		t.Fatalf("reparse generic: %v", err)
	}
	graph.ForgetDialectLocs(c)
	s := mustFormat(t, c, FormGeneric)
	if strings.Contains(s, "#debuginfo.location") && strings.Contains(s, "loc(#debuginfo") {
		t.Fatalf("a dialect location survived the replacement")
	}
	return s
}

func runMlirOpt(t *testing.T, bin, text string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.mlir"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := oracle.RunMlirOpt(bin, dir, "--mlir-print-op-generic", "--mlir-print-debuginfo", "in.mlir")
	return string(out), err
}

// TestCoreaiCorpus: every module of testdata/mlir/coreai (one per printed
// form coreai-torch's tests pin) parses, prints back unchanged in the custom
// form (same tokens; only whitespace may differ), converts to generic text
// mlir-opt 19 and 22 accept (dialect locations replaced by loc(unknown)), and
// reads back from that generic text (with its dialect locations) to the
// same module. It logs one line per file and stage, which is how the
// before/after tallies in the commit messages were counted.
func TestCoreaiCorpus(t *testing.T) {
	// Every installed release checks (19, and 22: the MLIR generation
	// Apple's bytecode comes from); under ANEFIX_REQUIRE_ORACLES both must be.
	bins := oracle.MlirOptPaths(t)
	files, _ := filepath.Glob(filepath.Join(testdataDir, "coreai", "*.mlir"))
	if len(files) < 10 {
		t.Fatalf("corpus missing: %d files in %s/coreai", len(files), testdataDir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			in := string(b)
			m, form, err := Parse(name, in)
			if err != nil {
				t.Fatalf("STAGE parse: %v", err)
			}
			if form != FormPretty {
				t.Errorf("form = %v, want pretty", form)
			}
			pretty := mustFormat(t, m, FormPretty)
			if a, b := tokens(t, name, in), tokens(t, "printed", pretty); strings.Join(a, " ") != strings.Join(b, " ") {
				t.Errorf("STAGE print-back: custom form changed:\n%s", firstTokenDiff(a, b))
			}
			g := withoutDialectLocs(t, m)
			for _, bin := range bins {
				if _, err := runMlirOpt(t, bin, g); err != nil {
					t.Errorf("STAGE mlir-opt: %s refuses the generic form: %v", bin, err)
				}
			}
			g1 := mustFormat(t, m, FormGeneric)
			m2, form2, err := Parse("generic.mlir", g1)
			if err != nil {
				t.Fatalf("STAGE re-read: generic form does not parse: %v", err)
			}
			if form2 != FormGeneric {
				t.Errorf("generic printout parsed as %v", form2)
			}
			if g2 := mustFormat(t, m2, FormGeneric); g2 != g1 {
				t.Errorf("STAGE re-read: a different module after generic round trip:\n%s", firstDiff(g1, g2))
			}
		})
	}
}

// TestDebuginfoLocations: coreai-torch's dialect locations read as
// graph.DialectLoc on ops, block arguments and the module, the same whether
// written inline or through aliases defined after use, and the FX name,
// numeric op id and source line come out of them.
func TestDebuginfoLocations(t *testing.T) {
	inline, _, _ := parseFile(t, filepath.Join(testdataDir, "coreai", "debuginfo_locs.mlir"))
	aliased, _, _ := parseFile(t, filepath.Join(testdataDir, "coreai", "aliased", "debuginfo_locs.mlir"))
	if a, b := mustFormat(t, inline, FormGeneric), mustFormat(t, aliased, FormGeneric); a != b {
		t.Errorf("aliased and inline debuginfo locations read differently:\n%s", firstDiff(a, b))
	}
	if _, ok := inline.Op.Loc.(*graph.DialectLoc); !ok {
		t.Errorf("module location is %T", inline.Op.Loc)
	}
	g := inline.Graph("main")
	if _, ok := g.Body().Arg(0).Loc.(*graph.DialectLoc); !ok {
		t.Errorf("argument location is %T", g.Body().Arg(0).Loc)
	}
	type info struct {
		id  string
		num uint64
		src string
	}
	var got []info
	for op := g.Body().First(); op != nil; op = op.Next() {
		n, _ := graph.OpNumber(op.Loc)
		got = append(got, info{op.OpID(), n, op.Source()})
	}
	want := []info{{"add", 1, "/work/model.py:12"}, {"add", 2, "/work/model.py:12"}, {"relu_1", 3, "/work/model.py:13"}, {"", 4, ""}}
	if len(got) != len(want) {
		t.Fatalf("ops: %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("op %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	// An edit (dropping the relu, rewiring its use) keeps every other
	// location as written.
	relu := g.Body().First().Next().Next()
	relu.Result(0).ReplaceAllUsesWith(relu.Operand(0))
	relu.Erase()
	out := mustFormat(t, inline, FormPretty)
	m2, _, err := Parse("edited.mlir", out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "loc(#debuginfo.location<"); n != 6 {
		t.Errorf("%d dialect locations after the edit, want 6 (3 ops, 1 argument, graph, module)\n%s", n, out)
	}
	if a, b := mustFormat(t, m2, FormPretty), out; a != b {
		t.Errorf("edited module does not print back:\n%s", firstDiff(b, a))
	}
}

// TestPrettyEdgeCases: ops the custom form cannot spell unambiguously print
// in generic form (or in a custom form that reads back), so the pretty
// printout always reads back to the same module.
func TestPrettyEdgeCases(t *testing.T) {
	cases := map[string]string{
		"if without regions, with attributes":     `"coreai.if"(%c) {a = 1 : i32} : (tensor<i1>) -> ()`,
		"no operands, function result":            `%0 = "coreai.foo"() : () -> ((i32) -> i32)`,
		"function-typed single operand":           `%f = "x.f"() : () -> ((i32) -> i32)` + "\n" + `%1 = "coreai.bar"(%f) : ((i32) -> i32) -> i32`,
		"empty then region":                       `"coreai.if"(%c) ({` + "\n" + `}, {` + "\n" + `  "coreai.yield"() : () -> ()` + "\n" + `}) : (tensor<i1>) -> ()`,
		"two enum properties":                     `%i = "x.i"() : () -> i32` + "\n" + `%3 = "coreai.pad"(%i) <{mode = #coreai.mode<constant>, zeta = #coreai.zeta<x>}> : (i32) -> i32`,
		"non-enum property":                       `%i = "x.i"() : () -> i32` + "\n" + `%4 = "coreai.scan"(%i) <{mode = "str"}> : (i32) -> i32`,
		"keyword op with wrong arity":             `%i = "x.i"() : () -> i32` + "\n" + `%5 = "coreai.gather_nd"(%i) : (i32) -> i32`,
		"handle result":                           `%6 = "coreai.make"() : () -> !coreai.handle<tensor<2xf32>>`,
		"multi-result without operands":           `%7:2 = "coreai.two"() : () -> (i32, i32)`,
		"metal kernel, single-operand group of 2": `%i = "x.i"() : () -> i32` + "\n" + `%8 = "coreai.metal4_kernel"(%i, %i, %i, %i) <{operandSegmentSizes = array<i32: 1, 2, 0, 1>}> : (i32, i32, i32, i32) -> i32`,
		"metal kernel, empty lists":               `%i = "x.i"() : () -> i32` + "\n" + `%9 = "coreai.metal4_kernel"(%i, %i) <{operandSegmentSizes = array<i32: 0, 1, 1, 0>}> : (i32, i32) -> i32`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			in := `%c = "x.c"() : () -> tensor<i1>` + "\n" + body + "\n"
			m, _, err := Parse("in.mlir", in)
			if err != nil {
				t.Fatal(err)
			}
			p := mustFormat(t, m, FormPretty)
			m2, _, err := Parse("p.mlir", p)
			if err != nil {
				t.Fatalf("pretty printout does not read back: %v\n%s", err, p)
			}
			if a, b := mustFormat(t, implicitLocsUnknown(m), FormGeneric), mustFormat(t, implicitLocsUnknown(m2), FormGeneric); a != b {
				t.Errorf("pretty round trip changed the module:\n%s\n%s", firstDiff(a, b), p)
			}
		})
	}
}
