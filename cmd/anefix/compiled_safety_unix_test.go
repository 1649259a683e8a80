//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWithin is runCLI under a deadline: a hang is a test failure.
func runWithin(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	type res struct {
		code     int
		out, err string
	}
	done := make(chan res, 1)
	go func() {
		code, out, errs := runCLI(t, "", args...)
		done <- res{code, out, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-ctx.Done():
		t.Fatalf("anefix %s did not return within %v", strings.Join(args, " "), d)
	}
	return 0, "", ""
}

// fifo makes a FIFO; cleanup opens it for writing once, which releases a
// reader stuck on it.
func fifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}

// A link to a FIFO in a compiled package hung inspect, inspect --json and
// convert forever (the reader opened the link's target); now the link is
// reported and not followed, and convert refuses a link leaving the tree.
func TestCompiledFIFOLinks(t *testing.T) {
	for _, member := range []string{"metadata.json", "stats.json", "main-h18p-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/manifest.plist"} {
		t.Run(member, func(t *testing.T) {
			dir := statefulStandIn(t, "xml")
			outside := filepath.Join(t.TempDir(), "fifo")
			fifo(t, outside)
			p := filepath.Join(dir, filepath.FromSlash(member))
			os.Remove(p)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"inspect", dir}, {"inspect", dir, "--json"}} {
				code, out, errs := runWithin(t, 30*time.Second, args...)
				if code != exitOK || !strings.Contains(out, filepath.Base(member)+" is a symbolic link") {
					t.Errorf("%v: exit %d, stderr %q\n%s", args, code, errs, out)
				}
			}
			code, _, errs := runWithin(t, 30*time.Second, "convert", dir, "-o", filepath.Join(t.TempDir(), "c.h18p.aimodelc"))
			if code != exitFailure || !strings.Contains(errs, "points outside the bundle") {
				t.Errorf("convert: exit %d, stderr %q", code, errs)
			}
		})
	}
	// A link to a FIFO inside the package is copied as a link, never opened.
	dir := statefulStandIn(t, "xml")
	fifoIn := filepath.Join(dir, "..", "fifo")
	fifo(t, fifoIn)
	if err := os.Symlink("../fifo", filepath.Join(dir, "notes")); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runWithin(t, 30*time.Second, "inspect", dir); code != exitOK {
		t.Errorf("inspect: exit %d %s", code, errs)
	}
}

// A newline in an entry's name is printed escaped, never raw: a hostile
// package or bundle cannot forge a line of anefix's output. Before, the
// names below printed "DISAGREE: forged" and "anefix: forged" as lines of
// their own.
func TestEntryNamesCannotForgeLines(t *testing.T) {
	forged := func(t *testing.T, text, line string) {
		t.Helper()
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), line) {
				t.Errorf("a name forged the line %q:\n%s", l, text)
			}
		}
	}
	dir := statefulStandIn(t, "xml")
	if err := os.Symlink("metadata.json", filepath.Join(dir, "x\nDISAGREE: forged link")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "y\nDISAGREE: forged_ANE_region_0_0.bc", "h18p"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "inspect", dir)
	if code != exitOK || !strings.Contains(out, `"x\nDISAGREE: forged link" is a symbolic link`) || !strings.Contains(out, `"y\nDISAGREE: forged_ANE_region_0_0.bc"`) {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	forged(t, out, "DISAGREE: forged")
	// A special file with a newline in its name, in a compiled package and
	// in an .aimodel: the error names it quoted.
	fifo(t, filepath.Join(dir, "z\nanefix: forged"))
	code, _, errs = runCLI(t, "", "inspect", dir)
	if code != exitFailure || !strings.Contains(errs, `"z\nanefix: forged" is a special file`) {
		t.Errorf("package with a FIFO: exit %d %q", code, errs)
	}
	forged(t, errs, "anefix: forged")
	aim := filepath.Join(t.TempDir(), "m.aimodel")
	if err := os.CopyFS(aim, os.DirFS(armAPath)); err != nil {
		t.Fatal(err)
	}
	fifo(t, filepath.Join(aim, "w\nanefix: forged"))
	code, _, errs = runCLI(t, "", "convert", aim, "-o", filepath.Join(t.TempDir(), "o.aimodel"))
	if code != exitFailure || !strings.Contains(errs, `"w\nanefix: forged" is a special file`) {
		t.Errorf(".aimodel with a FIFO: exit %d %q", code, errs)
	}
	forged(t, errs, "anefix: forged")
}

// A member this user may not read (chmod 000): inspect reports it and
// reads the rest, convert refuses naming it; root, which reads it anyway,
// gets the usual report and a copy with the mode kept. Run as root (CI)
// and as a user (graph/aimodelc's TestUnreadableMembers says how).
func TestCompiledUnreadableMember(t *testing.T) {
	dir := statefulStandIn(t, "xml")
	meta := filepath.Join(dir, "metadata.json")
	if err := os.Chmod(meta, 0); err != nil {
		t.Fatal(err)
	}
	_, err := os.ReadFile(meta)
	readable := err == nil
	code, out, errs := runWithin(t, 30*time.Second, "inspect", dir)
	if code != exitOK || readable == strings.Contains(out, "open metadata.json: permission denied") || !strings.Contains(out, "GPU regions:   1") {
		t.Errorf("inspect (uid %d): exit %d %s\n%s", os.Getuid(), code, errs, out)
	}
	dst := filepath.Join(t.TempDir(), "c.h18p.aimodelc")
	code, _, errs = runWithin(t, 30*time.Second, "convert", dir, "-o", dst)
	switch {
	case readable:
		fi, err := os.Stat(filepath.Join(dst, "metadata.json"))
		if code != exitOK || err != nil || fi.Mode().Perm() != 0 {
			t.Errorf("convert as root: exit %d %s; copy %v %v", code, errs, fi, err)
		}
	case code != exitFailure || !strings.Contains(errs, "metadata.json: permission denied"):
		t.Errorf("convert (uid %d): exit %d %q", os.Getuid(), code, errs)
	}
}
