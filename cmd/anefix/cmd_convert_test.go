package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const hybridText = "../../testdata/mlir/generic/hybrid_layer.mlir"

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	aim := filepath.Join(dir, "h.aimodel")
	code, _, errs := runCLI(t, "", "convert", hybridText, "-o", aim)
	if code != exitOK {
		t.Fatalf("convert to aimodel: %d %s", code, errs)
	}
	// Refuses to overwrite without --force, and leaves the output alone.
	before, _ := os.ReadFile(filepath.Join(aim, "main.mlirb"))
	code, _, errs = runCLI(t, "", "convert", hybridText, "-o", aim)
	if code != exitFailure || !strings.Contains(errs, "--force") {
		t.Fatalf("overwrite: %d %s", code, errs)
	}
	after, _ := os.ReadFile(filepath.Join(aim, "main.mlirb"))
	if string(before) != string(after) {
		t.Fatal("refused overwrite still changed the output")
	}
	if code, _, errs = runCLI(t, "", "convert", hybridText, "-o", aim, "--force"); code != exitOK {
		t.Fatalf("--force: %d %s", code, errs)
	}
	// Back to text on stdout, both forms.
	for _, emit := range []string{"generic", "pretty"} {
		code, out, errs := runCLI(t, "", "convert", aim, "-o", "-", "--emit", emit)
		if code != exitOK || !strings.Contains(out, "coreai.graph") {
			t.Fatalf("--emit %s: %d %s", emit, code, errs)
		}
	}
	// stdin to stdout.
	text, _ := os.ReadFile(hybridText)
	code, out, errs := runCLI(t, string(text), "convert", "-", "-o", "-")
	if code != exitOK || !strings.Contains(out, `"coreai.graph"`) {
		t.Fatalf("pipe: %d %s", code, errs)
	}
}

func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mlir")
	os.WriteFile(bad, []byte("module {\n  %0 = \"x.y\"() : () -> f33\n}\n"), 0o644)
	// Parses, but does not verify (a dense_resource without an entry):
	// refused before a byte is written, naming the input.
	unverified := filepath.Join(dir, "unverified.mlir")
	os.WriteFile(unverified, []byte("module {\n  %0 = \"x.c\"() <{value = dense_resource<w> : tensor<2xf16>}> : () -> tensor<2xf16>\n}\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"convert", hybridText}, exitUsage, "-o OUT is required"},
		{[]string{"convert", "-o", "x.mlir"}, exitUsage, "exactly one input"},
		{[]string{"convert", hybridText, "-o", filepath.Join(dir, "x.mlir"), "--emit", "yaml"}, exitUsage, "--emit"},
		{[]string{"convert", filepath.Join(dir, "missing.mlir"), "-o", filepath.Join(dir, "y.mlir")}, exitFailure, "missing.mlir"},
		{[]string{"convert", bad, "-o", filepath.Join(dir, "z.mlir")}, exitFailure, "bad.mlir:2:"},
		{[]string{"convert", hybridText, "-o", hybridText, "--force"}, exitFailure, "is the input"},
		{[]string{"convert", unverified, "-o", filepath.Join(dir, "u.mlirb")}, exitFailure, unverified + ": IR verification failed"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d, stderr %q (want %d, %q)", c.args, code, errs, c.code, c.want)
		}
	}
	for _, out := range []string{"z.mlir", "u.mlirb"} {
		if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
			t.Errorf("bad input still wrote %s", out)
		}
	}
}

// --bytecode-version outside 1..6, or on a text output where it would be
// ignored, is a usage error found before anything is read or written.
func TestConvertBytecodeVersionUsage(t *testing.T) {
	cases := []struct {
		out, version string
		code         int
		want         string
	}{
		{"x.mlirb", "7", exitUsage, "want 1 to 6"},
		{"x.mlirb", "-1", exitUsage, "want 1 to 6"},
		{"x.mlir", "3", exitUsage, "is MLIR text"},
		{"x.mlirb", "3", exitOK, ""},
		{"x.aimodel", "5", exitOK, ""},
	}
	for _, c := range cases {
		t.Run(c.out+" v"+c.version, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), c.out)
			code, _, errs := runCLI(t, "", "convert", hybridText, "-o", out, "--bytecode-version", c.version)
			if code != c.code || !strings.Contains(errs, c.want) {
				t.Fatalf("exit %d, want %d and %q; stderr %q", code, c.code, c.want, errs)
			}
			if _, err := os.Lstat(out); (err == nil) != (c.code == exitOK) {
				t.Errorf("output exists: %v, want %v", err == nil, c.code == exitOK)
			}
		})
	}
}

// --force over a project directory (sources, .git and a metadata.json) is
// refused, naming the first entry that is not anefix's, and nothing in it
// is touched: the output kind mirrors the input (an .aimodel; an LLM
// bundle would look for metadata.json).
func TestConvertForceRefusesProjectDirectory(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "proj")
	tree := map[string]string{".git/HEAD": "ref: refs/heads/main\n", "src/main.go": "package main\n", "metadata.json": "{}\n"}
	for rel, body := range tree {
		p := filepath.Join(proj, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := runCLI(t, "", "convert", "../../testdata/synth/armD.aimodel", "-o", proj, "--force")
	if code != exitFailure || !strings.Contains(errs, "holds .git, which is neither") {
		t.Errorf("exit %d, stderr %q; want %d naming .git", code, errs, exitFailure)
	}
	for rel, body := range tree {
		if b, err := os.ReadFile(filepath.Join(proj, filepath.FromSlash(rel))); err != nil || string(b) != body {
			t.Errorf("%s: %q %v", rel, b, err)
		}
	}
}

// convert names its output as the user gave it, as rewrite does (it
// printed the resolved absolute path).
func TestConvertWroteAsGiven(t *testing.T) {
	in, err := filepath.Abs("../../testdata/synth/armA.aimodel")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, cmd := range []string{"convert", "rewrite"} {
		out := cmd + ".mlir"
		code, _, errs := runCLI(t, "", cmd, in, "-o", out)
		if code != exitOK || !strings.Contains(errs, "wrote "+out+" (mlir-text, ") {
			t.Errorf("%s: exit %d, stderr %q, want \"wrote %s (mlir-text, …\"", cmd, code, errs, out)
		}
	}
}
