package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A module printed without its dialect_resources block (as published IR
// excerpts are) is inspected and checked; what needs the bytes says so.
func TestAbsentWeights(t *testing.T) {
	const text = `module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %w = coreai.constant dense_resource<w_proj> : tensor<4xf32>
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.decomposable.broadcasting_mul %0, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}
`
	const note = "the weights are absent: 1 dense_resource blob(s) are not in the file (w_proj; no dialect_resources entry)"
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"inspect", "-"}, 0, []string{note, "fp32 islands: 1", "graph @main  (5 ops)"}},
		{[]string{"check", "-"}, 0, []string{note, "Prediction: LEGAL", "suspect.fp32-chain"}},
		{[]string{"rewrite", "-", "-o", "-"}, 1, []string{note, "rewrite writes a model, so it needs them"}},
		{[]string{"verify", "FILE", "FILE"}, 1, []string{note, "verify runs the graph, so it needs them"}},
	}
	file := filepath.Join(t.TempDir(), "excerpt.mlir")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.args[0], func(t *testing.T) {
			for i, a := range c.args {
				if a == "FILE" {
					c.args[i] = file
				}
			}
			code, out, errs := runCLI(t, text, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}
