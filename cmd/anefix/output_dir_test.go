package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One rule for -o naming something that exists (bundle.CheckExisting): an
// empty directory is used for a directory output; a previous output is
// replaced only with --force; anything else is refused with or without
// --force, and the refusal never suggests --force. It once said "use
// --force" for an empty directory, and --force then refused it too.
func TestOutputExistingRule(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "mlir", "pretty", "printed_small.mlir")
	type setup func(t *testing.T, p string)
	emptyDir := func(t *testing.T, p string) { mustOK(t, os.Mkdir(p, 0o755)) }
	userDir := func(t *testing.T, p string) {
		mustOK(t, os.Mkdir(p, 0o755))
		mustOK(t, os.WriteFile(filepath.Join(p, "notes.txt"), []byte("mine"), 0o644))
	}
	file := func(t *testing.T, p string) { mustOK(t, os.WriteFile(p, []byte("mine"), 0o644)) }
	previous := func(t *testing.T, p string) {
		if code, _, errs := runCLI(t, "", "convert", in, "-o", p); code != exitOK {
			t.Fatalf("making a previous output: %d %s", code, errs)
		}
	}
	cases := []struct {
		name    string
		cmd     string // convert (output checked after the input is read) or rewrite (checked before too)
		out     string
		setup   setup
		force   bool
		code    int
		want    string // substring of stderr when refused
		keeps   string // a file that must survive a refusal
		noForce bool   // the refusal must not suggest --force
	}{
		{"empty dir used", "convert", "m.aimodel", emptyDir, false, exitOK, "", "", false},
		{"empty dir used (rewrite)", "rewrite", "m.aimodel", emptyDir, false, exitOK, "", "", false},
		{"empty dir, file output", "convert", "m.mlirb", emptyDir, true, exitFailure, "is a directory, but this output", "", true},
		{"empty dir, file output (rewrite)", "rewrite", "m.mlir", emptyDir, false, exitFailure, "is a directory, but this output", "", true},
		{"previous output without --force", "convert", "m.aimodel", previous, false, exitFailure, "already exists; use --force", "m.aimodel/main.mlirb", false},
		{"previous output with --force", "convert", "m.aimodel", previous, true, exitOK, "", "", false},
		{"previous output with --force (rewrite)", "rewrite", "m.aimodel", previous, true, exitOK, "", "", false},
		{"user dir", "convert", "m.aimodel", userDir, false, exitFailure, "holds notes.txt", "m.aimodel/notes.txt", true},
		{"user dir with --force", "convert", "m.aimodel", userDir, true, exitFailure, "holds notes.txt", "m.aimodel/notes.txt", true},
		{"user dir (rewrite)", "rewrite", "m.aimodel", userDir, false, exitFailure, "not an anefix output", "m.aimodel/notes.txt", true},
		{"file where a bundle goes", "convert", "m.aimodel", file, false, exitFailure, "is a file, but this output", "m.aimodel", true},
		{"file where a bundle goes (rewrite)", "rewrite", "m.aimodel", file, false, exitFailure, "is a file, but this output", "m.aimodel", true},
	}
	for _, c := range cases {
		dir := t.TempDir()
		out := filepath.Join(dir, c.out)
		c.setup(t, out)
		args := []string{c.cmd, in, "-o", out}
		if c.force {
			args = append(args, "--force")
		}
		code, _, errs := runCLI(t, "", args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%s: code %d, stderr %q; want %d and %q", c.name, code, errs, c.code, c.want)
		}
		if c.noForce && strings.Contains(errs, "use --force") {
			t.Errorf("%s: the refusal suggests --force, which would be refused too: %q", c.name, errs)
		}
		if c.keeps != "" {
			if _, err := os.Stat(filepath.Join(dir, c.keeps)); err != nil {
				t.Errorf("%s: %s is gone after a refusal: %v", c.name, c.keeps, err)
			}
		}
		if c.code == exitOK {
			if _, err := os.Stat(filepath.Join(out, "main.mlirb")); err != nil {
				t.Errorf("%s: no output written: %v", c.name, err)
			}
		}
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
