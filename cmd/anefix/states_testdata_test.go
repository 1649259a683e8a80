package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
)

func stTokens(t *testing.T, name, text string) []string {
	t.Helper()
	lx := mlirtext.NewLexer(mlirtext.NewSource(name, text))
	var out []string
	for tok := lx.Next(); tok.Kind != mlirtext.EOF; tok = lx.Next() {
		out = append(out, tok.Text)
	}
	if lx.Err() != nil {
		t.Fatalf("%s: %v", name, lx.Err())
	}
	return out
}

// testdata/states holds anefix's own modules in both state forms: each
// prints back in the custom form token for token, re-reads from its generic
// form to the same module, and (those without dialect locations, which
// mlir-opt refuses) is accepted by mlir-opt in the generic form.
func TestStatesTestdataRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../../testdata/states/*.mlir")
	if err != nil || len(files) < 3 {
		t.Fatalf("testdata/states: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, _, err := mlirtext.Parse(f, string(src))
			if err != nil {
				t.Fatal(err)
			}
			pretty, err := mlirtext.Format(m, mlirtext.FormPretty)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := stTokens(t, f, string(src)), stTokens(t, "printed", string(pretty)); !slices.Equal(a, b) {
				t.Errorf("custom form does not print back unchanged:\n%s", pretty)
			}
			generic, err := mlirtext.Format(m, mlirtext.FormGeneric)
			if err != nil {
				t.Fatal(err)
			}
			m2, _, err := mlirtext.Parse("generic.mlir", string(generic))
			if err != nil {
				t.Fatal(err)
			}
			generic2, _ := mlirtext.Format(m2, mlirtext.FormGeneric)
			if !slices.Equal(stTokens(t, "a", string(generic)), stTokens(t, "b", string(generic2))) {
				t.Errorf("generic form re-reads to another module:\n%s", generic2)
			}
			dialectLocs := false
			m.Walk(func(op *graph.Operation) bool {
				_, ok := op.Loc.(*graph.DialectLoc)
				dialectLocs = dialectLocs || ok
				return true
			})
			if dialectLocs {
				return // the syntax corpus (graph/mlirtext) checks these with mlir-opt
			}
			cmd := exec.Command(oracle.MlirOpt(t), "--allow-unregistered-dialect", "-")
			cmd.Stdin = strings.NewReader(string(generic))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("mlir-opt refuses the generic form: %v\n%s", err, out)
			}
		})
	}
}
