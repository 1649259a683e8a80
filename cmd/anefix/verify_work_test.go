package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verify ends a graph whose loops multiply (two nested loops of 10^6
// iterations, each under the per-loop cap: issue 28, item 4) at
// --max-work with exit 1 and a message naming the op and the flag; a
// bound below 1 is a usage error. The bound is set low so the test counts
// work rather than waiting (the default stops this graph after about 12
// CPU-s; it used to run for days).
func TestVerifyMaxWork(t *testing.T) {
	const text = `module {
  coreai.graph @main(%x: tensor<f32>) -> tensor<f32> {
    %lim = coreai.constant dense<1.000000e+06> : tensor<f32>
    %one = coreai.constant dense<1.000000e+00> : tensor<f32>
    %y = coreai.while %x {
    ^bb0(%a: tensor<f32>):
      %c = coreai.decomposable.broadcasting_greater %lim, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      coreai.condition %c, %a : tensor<i1>, tensor<f32>
    } do {
    ^bb0(%b: tensor<f32>):
      %z = coreai.while %x {
      ^bb0(%a2: tensor<f32>):
        %c2 = coreai.decomposable.broadcasting_greater %lim, %a2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
        coreai.condition %c2, %a2 : tensor<i1>, tensor<f32>
      } do {
      ^bb0(%b2: tensor<f32>):
        %n2 = coreai.decomposable.broadcasting_add %b2, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
        coreai.yield %n2 : tensor<f32>
      } : tensor<f32> -> tensor<f32> loc("inner_loop"("/m.py":11:0))
      %n = coreai.decomposable.broadcasting_add %b, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
      coreai.yield %n : tensor<f32>
    } : tensor<f32> -> tensor<f32> loc("outer_loop"("/m.py":5:0))
    coreai.output %y : tensor<f32>
  }
}
`
	path := filepath.Join(t.TempDir(), "nested.mlir")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "", "verify", path, path, "--steps", "1", "--max-work", "1000000")
	if code != exitFailure || !strings.Contains(errs, "--max-work") || !strings.Contains(errs, "1000000") || !strings.Contains(errs, "_loop") {
		t.Errorf("exit %d, stderr %q; want exit %d naming the loop, the bound and --max-work", code, errs, exitFailure)
	}
	for _, bad := range []string{"0", "-5"} {
		if code, _, errs := runCLI(t, "", "verify", path, path, "--max-work", bad); code != exitUsage || !strings.Contains(errs, "--max-work") {
			t.Errorf("--max-work %s: exit %d, stderr %q; want a usage error", bad, code, errs)
		}
	}
}
