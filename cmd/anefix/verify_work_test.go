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

// rewrite --verify takes the same --max-work (one declaration, size.go):
// the graph is rewritten (dce leaves it as is) and its verify stops at the
// bound, which the teacher-forced run gives each of its 8 streams
// (8 × 10^6). Without --verify the flag is a usage error, as is a bound
// below 1.
func TestRewriteVerifyMaxWork(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "hostile", "nested_loops.mlir")
	out := filepath.Join(t.TempDir(), "out.mlir")
	code, _, errs := runCLI(t, "", "rewrite", path, "-o", out, "--passes", "dce", "--verify", "--max-work", "1000000")
	if code != exitFailure || !strings.Contains(errs, "--max-work") || !strings.Contains(errs, "bound of 8000000") || !strings.Contains(errs, "_loop") {
		t.Errorf("exit %d, stderr %q; want exit %d naming the loop, the bound and --max-work", code, errs, exitFailure)
	}
	for _, args := range [][]string{
		{"--max-work", "1000000"},
		{"--verify", "--max-work", "0"},
	} {
		args = append([]string{"rewrite", path, "-o", filepath.Join(t.TempDir(), "o.mlir"), "--passes", "dce"}, args...)
		if code, _, errs := runCLI(t, "", args...); code != exitUsage || !strings.Contains(errs, "--max-work") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error naming --max-work", args, code, errs)
		}
	}
}
