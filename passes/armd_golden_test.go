package passes_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/internal/goldentest"
	"github.com/anefix/anefix/passes"
)

// TestIOAndArmDGolden runs one pass (named by a `// pass:` line, options by
// `// set: pass.option=value` lines) on each testdata/ioarmd/*.mlir through
// the pipeline, and compares the printed IR plus the report (or the error)
// with the .golden file beside it. Regenerate with go test -run
// TestIOAndArmDGolden ./passes -update.
func TestIOAndArmDGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/ioarmd/*.mlir")
	if err != nil || len(files) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			spec := passes.Spec{}
			for _, line := range strings.Split(string(src), "\n") {
				if v, ok := strings.CutPrefix(line, "// pass: "); ok {
					spec.Passes = append(spec.Passes, strings.TrimSpace(v))
				}
				if v, ok := strings.CutPrefix(line, "// set: "); ok {
					spec.Set = append(spec.Set, strings.TrimSpace(v))
				}
			}
			m, _, err := mlirtext.Parse(path, string(src))
			if err != nil {
				t.Fatal(err)
			}
			p, err := passes.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			fmt.Fprintf(&out, "// anefix rewrite --passes %s", strings.Join(spec.Passes, ","))
			for _, s := range spec.Set {
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
			golden := strings.TrimSuffix(path, ".mlir") + ".golden"
			if goldentest.Update() {
				if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if out.String() != string(want) {
				t.Errorf("output differs from %s (run with -update after checking):\n%s", golden, out.String())
			}
		})
	}
}
