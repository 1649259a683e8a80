package passes_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/goldentest"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// TestPassGolden is the one golden harness for every pass. Adding a case is
// adding a file:
//
//	passes/testdata/<pass>/<case>.mlir         the input; `// set: <pass>.<option>=<value>`
//	                                           lines set options (as --set does)
//	passes/testdata/<pass>/<case>.golden.mlir  the expected output, written by -update
//
// Each pass also runs on its documented example, ../testdata/passes/<pass>.mlir
// (PASSES.md quotes that file verbatim, so it carries no header): its options
// are the lines of passes/testdata/<pass>/example.set, which PASSES.md's
// generator reads too, and its output is example.golden.mlir.
//
// The pass runs alone through the pipeline (verifying after it); the golden
// holds the command line, the report (or the error) and the pretty IR.
// Regenerate with: go test ./passes -run TestPassGolden -update
func TestPassGolden(t *testing.T) {
	for _, name := range passes.Names() {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			files, err := filepath.Glob(filepath.Join(dir, "*.mlir"))
			if err != nil {
				t.Fatal(err)
			}
			ran := 0
			for _, in := range files {
				if strings.HasSuffix(in, ".golden.mlir") {
					continue
				}
				src, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				var sets []string
				for _, line := range strings.Split(string(src), "\n") {
					if v, ok := strings.CutPrefix(line, "// set: "); ok {
						sets = append(sets, strings.TrimSpace(v))
					}
				}
				base := strings.TrimSuffix(filepath.Base(in), ".mlir")
				t.Run(base, func(t *testing.T) {
					runGoldenCase(t, name, in, string(src), sets, filepath.Join(dir, base+".golden.mlir"))
				})
				ran++
			}
			example := filepath.Join("..", "testdata", "passes", name+".mlir")
			if src, err := os.ReadFile(example); err == nil {
				sets, err := goldentest.ReadSets(filepath.Join(dir, "example.set"))
				if err != nil {
					t.Fatal(err)
				}
				t.Run("example", func(t *testing.T) {
					runGoldenCase(t, name, example, string(src), sets, filepath.Join(dir, "example.golden.mlir"))
				})
				ran++
			}
			if ran == 0 {
				t.Errorf("pass %s has no golden case: add %s/<case>.mlir or ../testdata/passes/%s.mlir, then run with -update", name, dir, name)
			}
		})
	}
}

func runGoldenCase(t *testing.T, pass, path, src string, sets []string, golden string) {
	t.Helper()
	spec := passes.Spec{Passes: []string{pass}, Set: sets}
	m, _, err := mlirtext.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := passes.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "// anefix rewrite --passes %s", pass)
	for _, s := range sets {
		fmt.Fprintf(&out, " --set %s", s)
	}
	out.WriteString("\n")
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		fmt.Fprintf(&out, "// error: %v\n", err)
	} else {
		if err := graph.Verify(m); err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Steps {
			ch := s.Change
			fmt.Fprintf(&out, "// %s: removed %d, added %d\n", s.Pass, ch.OpsRemoved, ch.OpsAdded)
			for _, c := range ch.IOChanges {
				dir := "input"
				if c.IsOutput {
					dir = "output"
				}
				fmt.Fprintf(&out, "//   @%s %s %s: %s -> %s (%s)\n", c.Graph, dir, c.Port, c.Before, c.After, c.Why)
			}
			for _, st := range ch.States {
				fmt.Fprintf(&out, "//   state @%s %s <- %s\n", st.Graph, st.Input, st.Output)
			}
			for _, r := range ch.Replaced {
				fmt.Fprintf(&out, "//   replaced %s %s at %s\n", r.OpID, r.OpName, r.Source)
			}
			for _, c := range ch.Compressed {
				fmt.Fprintf(&out, "//   compressed %s %s: %s, %d -> %d bytes, SNR %.2f dB\n", c.Op.OpName, c.Type, c.Form, c.BytesBefore, c.BytesAfter, c.SNR)
			}
			for _, n := range ch.Notes {
				fmt.Fprintf(&out, "//   note: %s\n", n)
			}
		}
		b, err := mlirtext.Format(m, mlirtext.FormPretty)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	goldentest.Check(t, golden, []byte(out.String()))
}
