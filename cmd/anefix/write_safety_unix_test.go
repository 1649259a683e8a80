//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An input path that is a FIFO with no writer is refused at once by every
// command that reads a model. Before, the compiled-package probe
// (aimodelc.InBundle, through bundle.OpenMember's os.OpenRoot) opened the
// path before looking at its type, and the open waited for a writer
// forever.
func TestFIFOInputRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "model.mlirb")
	fifo(t, p)
	out := filepath.Join(dir, "out.mlirb")
	for _, args := range [][]string{
		{"inspect", p},
		{"check", p},
		{"convert", p, "-o", out},
		{"rewrite", p, "-o", out},
		{"verify", p, p},
		{"reduce", p, "-o", out, "--test", "true {}"},
		{"bisect", p, "--test", "true {}"},
	} {
		code, _, errs := runWithin(t, 20*time.Second, args...)
		if code != exitFailure && code != exitUsage || !strings.Contains(errs, p) {
			t.Errorf("%v: exit %d, stderr %q; want a refusal naming the FIFO", args, code, errs)
		}
	}
}
