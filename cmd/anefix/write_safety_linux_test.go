package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report that cannot be written leaves no output: the model and the
// report are committed together. /proc/self exists but takes no new file,
// even for root, so the report fails after all the checks made before the
// work. Before, the model was written ("wrote out.mlir") and then the
// command failed with exit 1.
func TestRewriteFailedReportLeavesNoOutput(t *testing.T) {
	src, err := os.ReadFile("../../testdata/passes/fold-casts.mlir")
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"out.mlir", "out.aimodel"} {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.mlir")
		must(t, os.WriteFile(in, src, 0o644))
		before := lstatListing(t, dir)
		code, _, stderr := runCLI(t, "", "rewrite", in, "-o", filepath.Join(dir, out), "--report", "/proc/self/anefix-report.json")
		if code != exitFailure || strings.Contains(stderr, "wrote ") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and nothing written", out, code, stderr)
		}
		if after := lstatListing(t, dir); after != before {
			t.Errorf("%s: files changed:\n%s\nwas\n%s", out, after, before)
		}
	}
}
