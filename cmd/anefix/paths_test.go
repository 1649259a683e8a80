package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --force replaces a previous output of the same shape, never a directory
// of other files (it used to delete them) nor a file where a bundle goes.
func TestForceReplacesOnlyOutputs(t *testing.T) {
	text := "../../testdata/passes/fold-casts.mlir"
	mkUserDir := func(t *testing.T, p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "thesis.txt"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkFile := func(t *testing.T, p string) {
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkBundle := func(t *testing.T, p string) { // a previous output, with anefix's record
		copyDir(t, rwArmA, p)
		if err := os.WriteFile(filepath.Join(p, "anefix.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkEdited := func(t *testing.T, p string) { // a previous output with a file added by hand
		mkBundle(t, p)
		if err := os.WriteFile(filepath.Join(p, "notes.txt"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		args  []string // OUT is replaced by the output path
		out   string
		setup func(t *testing.T, p string)
		code  int
		want  string
	}{
		{"convert into a user directory", []string{"convert", rwArmA, "-o", "OUT", "--force"}, "docs", mkUserDir, exitFailure, "holds thesis.txt, which is neither"},
		{"rewrite into a user directory", []string{"rewrite", rwArmA, "-o", "OUT", "--force"}, "docs", mkUserDir, exitFailure, "holds thesis.txt, which is neither"},
		{"synth into a user directory", []string{"synth", "--arm", "A", "-o", "OUT", "--force"}, "docs.aimodel", mkUserDir, exitFailure, "holds thesis.txt, which is neither"},
		{"rewrite over an edited output", []string{"rewrite", rwArmA, "-o", "OUT", "--force"}, "x.aimodel", mkEdited, exitFailure, "holds notes.txt, which is neither a file anefix writes (main.mlirb, main.hash, metadata.json, anefix.json) nor one carried over from the input"},
		{"rewrite over a previous output", []string{"rewrite", rwArmA, "-o", "OUT", "--force"}, "x.aimodel", mkBundle, exitOK, ""},
		{"text over a directory", []string{"convert", text, "-o", "OUT", "--force"}, "docs", mkUserDir, exitFailure, "single file"},
		{"bundle over a file", []string{"convert", rwArmA, "-o", "OUT", "--force"}, "x.aimodel", mkFile, exitFailure, "is a file"},
		{"bundle over a bundle", []string{"convert", rwArmA, "-o", "OUT", "--force"}, "x.aimodel", mkBundle, exitOK, ""},
		{"file over a file", []string{"convert", text, "-o", "OUT", "--force"}, "x.mlir", mkFile, exitOK, ""},
		{"synth bundle over a bundle", []string{"synth", "--arm", "B", "-o", "OUT", "--force"}, "x.aimodel", mkBundle, exitOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, c.out)
			c.setup(t, out)
			before := treeListing(t, dir)
			args := append([]string(nil), c.args...)
			for i, a := range args {
				if a == "OUT" {
					args[i] = out
				}
			}
			code, _, stderr := runCLI(t, "", args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, want %d and %q; stderr %q", code, c.code, c.want, stderr)
			}
			after := treeListing(t, dir)
			if c.code != exitOK && after != before {
				t.Errorf("a refused --force changed files:\n%s\nwas\n%s", after, before)
			}
			if c.code == exitOK && after == before {
				t.Errorf("--force did not replace %s", out)
			}
		})
	}
}
