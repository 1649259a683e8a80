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
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d, stderr %q (want %d, %q)", c.args, code, errs, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "z.mlir")); err == nil {
		t.Error("bad input still wrote an output")
	}
}
