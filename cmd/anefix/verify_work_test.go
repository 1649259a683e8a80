package main

import (
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
	path := filepath.Join("..", "..", "testdata", "hostile", "nested_loops.mlir")
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
