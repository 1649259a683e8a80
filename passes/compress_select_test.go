package passes_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// textConst is a float constant as the test reads it off MLIR text, apart
// from the code under test: its SSA name, element count, whether it is a
// splat (dense<x> rather than dense<[…]>), and the ops that read it.
type textConst struct {
	name    string // "%v13"
	elems   int64
	rank    int
	splat   bool
	readers []string // op names without coreai. / decomposable.
}

var (
	textConstRE = regexp.MustCompile(`^\s*(%\w+) = coreai\.constant dense<(.)[^\n]*> : tensor<([0-9x]*)(f16|bf16|f32)>`)
	textOpRE    = regexp.MustCompile(`^\s*(?:(%\w+(?::\d+)?) = )?([a-z_.]+)`)
	textUseRE   = regexp.MustCompile(`%\w+`)
)

// readTextConsts lists the float constants of a one-graph module written
// one op a line (testdata/families/*.mlir) with the ops reading each.
func readTextConsts(t *testing.T, src string) []*textConst {
	t.Helper()
	var out []*textConst
	byName := map[string]*textConst{}
	for _, line := range strings.Split(src, "\n") {
		if m := textConstRE.FindStringSubmatch(line); m != nil {
			c := &textConst{name: m[1], elems: 1, splat: m[2] != "["}
			if m[3] != "" {
				for _, d := range strings.Split(strings.TrimSuffix(m[3], "x"), "x") {
					n, err := strconv.ParseInt(d, 10, 64)
					if err != nil {
						t.Fatalf("shape %q: %v", m[3], err)
					}
					c.elems *= n
					c.rank++
				}
			}
			out = append(out, c)
			byName[c.name] = c
			continue
		}
		m := textOpRE.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(m[2], "coreai.") || strings.HasPrefix(m[2], "coreai.graph") {
			continue
		}
		op := strings.TrimPrefix(strings.TrimPrefix(m[2], "coreai."), "decomposable.")
		body := line[strings.Index(line, m[2])+len(m[2]):]
		if i := strings.Index(body, " : "); i >= 0 {
			body = body[:i] // the operands; the types follow
		}
		for _, u := range textUseRE.FindAllString(body, -1) {
			if c := byName[u]; c != nil {
				c.readers = append(c.readers, op)
			}
		}
	}
	return out
}

// defaultOps are palettize's default ops= (compress.go's compressOps,
// coreai-optimization's _OPS_WEIGHT_NEED_COMPRESSION).
var defaultOps = []string{"batch_matmul", "broadcasting_batch_matmul", "conv2d", "gather_nd", "transpose"}

// TestSelectorOnFamilies: on each of the README's family graphs
// (testdata/families, all-inline constants without locations, as a user
// writes or gets MLIR text), the selector takes exactly the constants the
// text says are weights, names them by their SSA names, and with nothing
// to take, says how many constants each criterion left. Issue 32: weights=*
// took nothing there, whatever min-elements, since inline constants
// without a resource key or op id had no name a pattern could match.
// Expected sets and counts come from the text (readTextConsts): a weight
// is a non-splat float constant of rank ≥ 1 with more than min-elements
// elements, read only by ops of defaultOps; a rejected constant counts
// under the first criterion it fails, in the order unused, ops,
// min-elements, one value.
func TestSelectorOnFamilies(t *testing.T) {
	files, err := filepath.Glob("../testdata/families/*.mlir")
	if err != nil || len(files) != 4 {
		t.Fatalf("families: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			consts := readTextConsts(t, string(b))
			for _, minElems := range []int64{1024, 0} {
				var want []string
				var unused, ops, size, one int
				for _, c := range consts {
					switch {
					case len(c.readers) == 0:
						unused++
					case slices.ContainsFunc(c.readers, func(r string) bool { return !slices.Contains(defaultOps, r) }):
						ops++
					case c.elems <= minElems:
						size++
					case c.splat || c.rank == 0:
						one++
					default:
						want = append(want, c.name)
					}
				}
				// Per-tensor palettes: the tiny families' channels are no
				// multiple of 32, so the default groups would leave them.
				ch := runPass(t, string(b), "palettize", "palettize.granularity=per-tensor", fmt.Sprintf("palettize.min-elements=%d", minElems))
				var got []string
				for _, cw := range ch.Compressed {
					got = append(got, cw.Name)
				}
				if !slices.Equal(got, want) || len(ch.Left) != 0 {
					t.Errorf("min-elements=%d: compressed %v, left %v; want %v", minElems, got, ch.Left, want)
				}
				if len(want) > 0 {
					continue
				}
				note := strings.Join(ch.Notes, "\n")
				parts := []string{fmt.Sprintf("no weight taken: of %d float constant(s), ", len(consts))}
				for _, p := range []struct {
					n    int
					text string
				}{{unused, "read by no op"}, {ops, "read by an op outside ops="}, {size, fmt.Sprintf("of %d elements or fewer (min-elements=%d)", minElems, minElems)}, {one, "holding one value"}} {
					if p.n > 0 {
						parts = append(parts, fmt.Sprintf("%d %s", p.n, p.text))
					} else if strings.Contains(note, p.text) {
						t.Errorf("min-elements=%d: the note counts %q, which the text has none of:\n%s", minElems, p.text, note)
					}
				}
				for _, p := range parts {
					if !strings.Contains(note, p) {
						t.Errorf("min-elements=%d: note lacks %q:\n%s", minElems, p, note)
					}
				}
			}
			// The SSA name selects, with or without its '%'; the first weight
			// the text has, alone.
			var first string
			for _, c := range consts {
				if len(c.readers) > 0 && !c.splat && c.rank > 0 && !slices.ContainsFunc(c.readers, func(r string) bool { return !slices.Contains(defaultOps, r) }) {
					first = c.name
					break
				}
			}
			for _, pat := range []string{first, first[1:]} {
				ch := runPass(t, string(b), "palettize", "palettize.granularity=per-tensor", "palettize.min-elements=0", "palettize.weights="+pat)
				if len(ch.Compressed) != 1 || ch.Compressed[0].Name != first {
					t.Errorf("weights=%s: compressed %v, want %s alone", pat, ch.Compressed, first)
				}
			}
		})
	}
}

// runPass runs one pass over MLIR text with settings and returns its change.
func runPass(t *testing.T, src, pass string, set ...string) *passes.Change {
	t.Helper()
	m, _, err := mlirtext.Parse("in.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	return runModule(t, m, pass, set...)
}

// runModule runs one pass over m with settings and returns its change.
func runModule(t *testing.T, m *graph.Module, pass string, set ...string) *passes.Change {
	t.Helper()
	p, err := passes.Build(passes.Spec{Passes: []string{pass}, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Steps[0].Change
}

// TestSelectorRejections: a module built for each reason the selector
// leaves a float constant, alone, and all of them together: the note on an
// empty selection counts each under its reason and names the option to
// change. By construction: w is 64×64 f16 (4096 elements) read as a
// matmul's y operand unless the case says otherwise.
func TestSelectorRejections(t *testing.T) {
	const T = "tensor<64x64xf16>"
	x := "%arg0"
	mm := func(v string) string {
		return fmt.Sprintf("    %%mm_%s = coreai.decomposable.broadcasting_batch_matmul %s, %%%s : (%s, %s) -> %s\n", v, x, v, T, T, T)
	}
	module := func(body, out string, blobs ...string) string {
		s := fmt.Sprintf("module {\n  coreai.graph @main(%%arg0: %s {coreai.name = \"x\"}, %%ids: tensor<1x1xsi32> {coreai.name = \"ids\"}) -> (%s {coreai.name = \"y\"}) {\n%s    coreai.output %s : %s\n  }\n}\n", T, T, body, out, T)
		if len(blobs) > 0 {
			s += "\n{-#\n  dialect_resources: {\n    builtin: {\n      " + strings.Join(blobs, ",\n      ") + "\n    }\n  }\n#-}\n"
		}
		return s
	}
	dense := fmt.Sprintf("dense<[%s]> : %s", strings.TrimSuffix(strings.Repeat("["+strings.TrimSuffix(strings.Repeat("1.5, 2.5, ", 32), ", ")+"], ", 64), ", "), T)
	blob := func(key string) string {
		return fmt.Sprintf("%q: \"0x02000000%s\"", key, strings.Repeat("003E0041", 64*64/2))
	}
	for _, c := range []struct {
		name, body, out string
		blobs           []string
		set             []string
		want            string
	}{
		{"read by nothing", "    %w = coreai.constant " + dense + "\n    %u = coreai.constant " + dense + "\n" + mm("w"), "%mm_w", nil, []string{"weights=%u"},
			"no weight taken: of 2 float constant(s), 1 read by no op, 1 matched by no glob of weights=%u (names such as %w)"},
		{"ops", "    %w = coreai.constant " + dense + "\n    %m = coreai.decomposable.broadcasting_mul %arg0, %w : (" + T + ", " + T + ") -> " + T + "\n", "%m", nil, nil,
			"of 1 float constant(s), 1 read by an op outside ops=batch_matmul,broadcasting_batch_matmul,conv2d,gather_nd,transpose (e.g. coreai.decomposable.broadcasting_mul)"},
		{"min-elements", "    %w = coreai.constant " + dense + "\n" + mm("w"), "%mm_w", nil, []string{"min-elements=4096"},
			"of 1 float constant(s), 1 of 4096 elements or fewer (min-elements=4096)"},
		{"splat", "    %w = coreai.constant dense<1.0> : " + T + "\n" + mm("w"), "%mm_w", nil, nil,
			"of 1 float constant(s), 1 holding one value"},
		{"weights", "    %w = coreai.constant dense_resource<q.weight> : " + T + " loc(\"layers/0/q\")\n" + mm("w"), "%mm_w", []string{blob("q.weight")}, []string{"weights=*k*"},
			"of 1 float constant(s), 1 matched by no glob of weights=*k* (names such as q.weight)"},
		{"exclude", "    %w = coreai.constant " + dense + " loc(\"q_proj\")\n" + mm("w"), "%mm_w", nil, []string{"exclude=q_*"},
			"of 1 float constant(s), 1 matched by exclude=q_* (q_proj)"},
		{"tied head", "    %w = coreai.constant " + dense + "\n    %g = coreai.gather_nd %w at %ids : (" + T + ", tensor<1x1xsi32>) to tensor<1x64xf16>\n" + mm("w"), "%mm_w", nil, []string{"tied-head=false"},
			"of 1 float constant(s), 1 the tied embedding/head table (tied-head=false)"},
		{"bytes of the wrong size", "    %w = coreai.constant dense_resource<short> : " + T + "\n" + mm("w"), "%mm_w", []string{`short: "0x0200000000000000"`}, nil,
			"of 1 float constant(s), 1 without their bytes"},
		{"every reason at once",
			"    %a = coreai.constant " + dense + "\n" + // read by nothing
				"    %b = coreai.constant " + dense + "\n    %m = coreai.decomposable.broadcasting_mul %arg0, %b : (" + T + ", " + T + ") -> " + T + "\n" +
				"    %c = coreai.constant dense<[[1.0, 2.0]]> : tensor<1x2xf16>\n    %cm = coreai.decomposable.broadcasting_batch_matmul %arg0, %c : (" + T + ", tensor<1x2xf16>) -> " + T + "\n" +
				"    %d = coreai.constant dense<1.0> : " + T + "\n" + mm("d") +
				"    %e = coreai.constant " + dense + " loc(\"e_proj\")\n" + mm("e") +
				"    %f = coreai.constant " + dense + " loc(\"f_proj\")\n" + mm("f"),
			"%mm_f", nil, []string{"weights=[a-d]*,f_*", "exclude=f_*"},
			"no weight taken: of 6 float constant(s), 1 read by no op, 1 read by an op outside ops=batch_matmul,broadcasting_batch_matmul,conv2d,gather_nd,transpose (e.g. coreai.decomposable.broadcasting_mul), 1 of 1024 elements or fewer (min-elements=1024), 1 holding one value (a scalar or splat: nothing to compress), 1 matched by no glob of weights=[a-d]*,f_* (names such as e_proj), 1 matched by exclude=f_* (f_proj)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var set []string
			for _, s := range c.set {
				set = append(set, "palettize."+s)
			}
			ch := runPass(t, module(c.body, c.out, c.blobs...), "palettize", set...)
			if note := strings.Join(ch.Notes, "\n"); len(ch.Compressed)+len(ch.Left) != 0 || !strings.Contains(note, c.want) {
				t.Errorf("compressed %d, left %d, notes:\n%s\nwant a note with %q", len(ch.Compressed), len(ch.Left), note, c.want)
			}
		})
	}
}

// TestWeightNamesMatch: every weight has a name patterns match and reports
// print: an FX name holding '/' is matched by '*' (path.Match's '*' stops
// at '/', so weights=* missed it), and a constant with no name at all
// (inline, loc(unknown), and its SSA name dropped as bytecode has none) is
// op#N, N its position in the graph counted by hand: %a 0, its matmul 1,
// %b 2.
func TestWeightNamesMatch(t *testing.T) {
	const T = "tensor<64x64xf16>"
	dense := fmt.Sprintf("dense<[%s]> : %s", strings.TrimSuffix(strings.Repeat("["+strings.TrimSuffix(strings.Repeat("1.5, 2.5, ", 32), ", ")+"], ", 64), ", "), T)
	src := fmt.Sprintf(`module {
  coreai.graph @main(%%arg0: %[1]s {coreai.name = "x"}) -> (%[1]s {coreai.name = "y"}, %[1]s {coreai.name = "z"}) {
    %%a = coreai.constant %[2]s loc("layers/0/q")
    %%0 = coreai.decomposable.broadcasting_batch_matmul %%arg0, %%a : (%[1]s, %[1]s) -> %[1]s
    %%b = coreai.constant %[2]s loc(unknown)
    %%1 = coreai.decomposable.broadcasting_batch_matmul %%arg0, %%b : (%[1]s, %[1]s) -> %[1]s
    coreai.output %%0, %%1 : %[1]s, %[1]s
  }
}
`, T, dense)
	for _, c := range []struct {
		weights string
		want    []string
	}{
		{"*", []string{"layers/0/q", "op#2"}},
		{"layers/*", []string{"layers/0/q"}},
		{"*0*", []string{"layers/0/q"}},
		{"op#?", []string{"op#2"}},
	} {
		m, _, err := mlirtext.Parse("in.mlir", src)
		if err != nil {
			t.Fatal(err)
		}
		m.Walk(func(op *graph.Operation) bool {
			if op.OpID() == "" && op.Name == "coreai.constant" {
				op.Result(0).Loc = nil
			}
			return true
		})
		ch := runModule(t, m, "palettize", "palettize.granularity=per-tensor", "palettize.weights="+c.weights)
		var got []string
		for _, cw := range ch.Compressed {
			got = append(got, cw.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("weights=%s: compressed %v, want %v", c.weights, got, c.want)
		}
	}
}

// TestLeftHintsWork: a weight a compression pass leaves for its shape
// comes with a setting that would take it, and that setting, given as a
// rule for it, does. By hand, for a gather_nd table of R×C f16 (outputs on
// axis 0, inputs on 1): palettize's groups of 32 channels, R = 48: at 4
// bits the divisors of 48 of 32 channels or more are 48 → group-size=48; at
// 6 bits the divisor nearest 32 is 24 (|24−32| = 8 < |48−32| = 16) →
// group-size=24; R = 20 at 4 bits has no divisor of 32 or more, so its
// nearest, 20, with 6 bits (check's lut4-small-group) → group-size=20:bits=6.
// quantize-weights per-block in blocks of 32 inputs, C = 48: block-size=24.
func TestLeftHintsWork(t *testing.T) {
	table := func(rows, cols int) string {
		var rs []string
		for r := 0; r < rows; r++ {
			var vs []string
			for c := 0; c < cols; c++ {
				vs = append(vs, fmt.Sprintf("%d.0", (r*7+c*3)%11-5))
			}
			rs = append(rs, "["+strings.Join(vs, ", ")+"]")
		}
		T := fmt.Sprintf("tensor<%dx%dxf16>", rows, cols)
		return fmt.Sprintf(`module {
  coreai.graph @main(%%ids: tensor<1x1xsi32> {coreai.name = "ids"}) -> (tensor<1x%[2]dxf16> {coreai.name = "y"}) {
    %%table = coreai.constant dense<[%[3]s]> : %[1]s
    %%0 = coreai.gather_nd %%table at %%ids : (%[1]s, tensor<1x1xsi32>) to tensor<1x%[2]dxf16>
    coreai.output %%0 : tensor<1x%[2]dxf16>
  }
}
`, T, cols, strings.Join(rs, ", "))
	}
	for _, c := range []struct {
		pass       string
		rows, cols int
		set        []string
		hint       string
	}{
		{"palettize", 48, 64, nil, "group-size=48"},
		{"palettize", 48, 64, []string{"bits=6"}, "group-size=24"},
		{"palettize", 20, 64, nil, "group-size=20:bits=6"},
		{"quantize-weights", 64, 48, []string{"granularity=per-block", "block-size=32"}, "block-size=24"},
	} {
		src := table(c.rows, c.cols)
		set := []string{c.pass + ".min-elements=0"}
		for _, s := range c.set {
			set = append(set, c.pass+"."+s)
		}
		ch := runPass(t, src, c.pass, set...)
		if len(ch.Left) != 1 || ch.Left[0].Hint != c.hint || ch.Left[0].Name != "%table" {
			t.Errorf("%s %dx%d %v: left %+v, want %%table with hint %s", c.pass, c.rows, c.cols, c.set, ch.Left, c.hint)
			continue
		}
		ch = runPass(t, src, c.pass, append(set, c.pass+".rules=table:"+c.hint)...)
		if len(ch.Left) != 0 || len(ch.Compressed) != 1 {
			t.Errorf("%s %dx%d %v with rules=table:%s: compressed %d, left %+v", c.pass, c.rows, c.cols, c.set, c.hint, len(ch.Compressed), ch.Left)
		}
	}
}
