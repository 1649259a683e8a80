//go:build unix

package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anefix/anefix/graph/modelio"
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

// lstatListing lists dir's entries with their types and, for regular
// files, sizes and contents' hashes, without opening anything else.
func lstatListing(t *testing.T, dir string) string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "%s %v", de.Name(), fi.Mode().Type())
		switch {
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			fmt.Fprintf(&sb, " %x", sha256.Sum256(b))
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			fmt.Fprintf(&sb, " -> %s", l)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// --report with --force replaces only a regular file: a FIFO, a symbolic
// link (to a file or nowhere) or a directory is refused before any work,
// and nothing in the directory changes. Before, a FIFO and a link were
// replaced by a regular file (as root, --report /dev/null --force would
// have replaced /dev/null).
func TestRewriteReportReplacesOnlyRegularFiles(t *testing.T) {
	src, err := os.ReadFile("../../testdata/passes/fold-casts.mlir")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, report string)
	}{
		{"FIFO", func(t *testing.T, report string) { fifo(t, report) }},
		{"link to a file", func(t *testing.T, report string) {
			target := filepath.Join(filepath.Dir(report), "target.json")
			must(t, os.WriteFile(target, []byte("keep"), 0o644))
			must(t, os.Symlink("target.json", report))
		}},
		{"dangling link", func(t *testing.T, report string) { must(t, os.Symlink("nowhere.json", report)) }},
		{"directory", func(t *testing.T, report string) { must(t, os.Mkdir(report, 0o755)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.mlir")
			must(t, os.WriteFile(in, src, 0o644))
			report := filepath.Join(dir, "r.json")
			c.setup(t, report)
			before := lstatListing(t, dir)
			code, _, stderr := runWithin(t, 30*time.Second, "rewrite", in, "-o", filepath.Join(dir, "out.mlir"), "--report", report, "--force")
			if code != exitFailure || !strings.Contains(stderr, "not a regular file") {
				t.Errorf("exit %d, stderr %q; want 1 and a refusal", code, stderr)
			}
			if after := lstatListing(t, dir); after != before {
				t.Errorf("files changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A main.mlirb written to while a rewrite or convert reads it gives exit 1
// and no output (the output would mix the two versions, with a main.hash
// matching that mix). Before, both exited 0. The file is rewritten with
// its own bytes, so main.hash still matches and only the change is seen;
// its times are set back first so the write shows even within one tick of
// the file system's clock.
func TestInputChangedDuringWrite(t *testing.T) {
	past := time.Now().Add(-time.Hour)
	for _, cmd := range []string{"rewrite", "convert"} {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.aimodel")
		copyDir(t, rwArmA, in)
		main := filepath.Join(in, "main.mlirb")
		must(t, os.Chtimes(main, past, past))
		loadedHook = func(*modelio.Loaded) {
			b, err := os.ReadFile(main)
			must(t, err)
			f, err := os.OpenFile(main, os.O_WRONLY, 0)
			must(t, err)
			_, err = f.WriteAt(b, 0)
			must(t, err)
			must(t, f.Close())
		}
		code, _, stderr := runCLI(t, "", cmd, in, "-o", filepath.Join(dir, "out.aimodel"))
		loadedHook = nil
		if code != exitFailure || !strings.Contains(stderr, "changed while anefix read it") {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, stderr)
		}
		if _, err := os.Lstat(filepath.Join(dir, "out.aimodel")); err == nil {
			t.Errorf("%s: an output was written", cmd)
		}
	}
}
