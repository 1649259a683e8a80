package passes_test

import (
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
)

// npParse reads a small test module (MLIR text) and checks it verifies.
func npParse(t *testing.T, text string) *graph.Module {
	t.Helper()
	m, _, err := mlirtext.Parse("t.mlir", text)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatalf("input does not verify: %v", err)
	}
	return m
}

// npRun runs one pass with --set style options, verifying after it, and
// returns its change (or the error).
func npRun(t *testing.T, m *graph.Module, pass string, set ...string) (*passes.Change, error) {
	t.Helper()
	p, err := passes.Build(passes.Spec{Passes: []string{pass}, Set: set})
	if err != nil {
		return nil, err
	}
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		return nil, err
	}
	return res.Steps[0].Change, nil
}

// npPrint prints m in the coreai printed form.
func npPrint(t *testing.T, m *graph.Module) string {
	t.Helper()
	b, err := mlirtext.Format(m, mlirtext.FormPretty)
	if err != nil {
		t.Fatalf("print: %v", err)
	}
	return string(b)
}

// fpRangeHazards lists the details of check's fp16.out-of-range findings.
func fpRangeHazards(t *testing.T, m *graph.Module) []string {
	t.Helper()
	rep, err := ane.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range rep.AllHazards() {
		if f.Rule == ane.HazardRange {
			out = append(out, f.Detail)
		}
	}
	return out
}
