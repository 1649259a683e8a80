package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHostileNamesInReports feeds testdata/hostile/names.mlir (a newline,
// terminal escapes, DEL, C1 controls and bytes that are not UTF-8 in op,
// graph, port, attribute and location names) through every text report and
// message of inspect, check, rewrite, convert, verify and diff, on the text and
// on the bytecode form, and through every JSON report. Text: no line a name
// starts (all begin "Forged"), no raw control character, valid UTF-8, and
// the names shown quoted. JSON: a valid document, exit code not 1. Before,
// "Forged: graph" and the rest stood on lines of their own in inspect and
// check and in verify's error, and a DEL printed as \x7f broke inspect's
// JSON.
func TestHostileNamesInReports(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../testdata/hostile/names.mlir")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "names.mlir")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	bc := filepath.Join(dir, "names.mlirb")
	if code, _, stderr := runCLI(t, "", "convert", in, "-o", bc); code != 0 {
		t.Fatalf("convert to bytecode: exit %d\n%s", code, stderr)
	}
	checkText := func(args []string, stream, s string) {
		t.Helper()
		for i, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "Forged") {
				t.Errorf("anefix %q: %s line %d starts with a name from the model: %q", args, stream, i+1, line)
			}
		}
		if i := strings.IndexFunc(s, func(r rune) bool { return isControl(r) && r != '\n' && r != '\t' }); i >= 0 {
			t.Errorf("anefix %q: raw control character %q in %s", args, s[i:min(len(s), i+4)], stream)
		}
		if !utf8.ValidString(s) {
			t.Errorf("anefix %q: %s is not UTF-8", args, stream)
		}
	}
	for _, model := range []string{in, bc} {
		out := filepath.Join(dir, "out"+filepath.Ext(model))
		rep := filepath.Join(dir, "rep.json")
		cases := []struct {
			args  []string
			shown string // a quoted name the text must show ("" = not checked)
		}{
			{[]string{"inspect", model}, `@"main\nForged: graph\x1b[2J"`},
			{[]string{"check", model}, `"t.evil\nForged: opname\x1b]0;t\a\xfe"`},
			{[]string{"rewrite", model, "-o", out, "--force", "--report", rep}, `"y\nForged: port2\x7f\u0085"`},
			{[]string{"verify", model, model}, `@"main\nForged: graph\x1b[2J"`},
			{[]string{"convert", model, "-o", filepath.Join(dir, "c.mlir"), "--force"}, ""},
			{[]string{"diff", model, out}, `"y\nForged: port2\x7f\u0085"`},
		}
		for _, c := range cases {
			_, stdout, stderr := runCLI(t, "", c.args...)
			checkText(c.args, "stdout", stdout)
			checkText(c.args, "stderr", stderr)
			if c.shown != "" && !strings.Contains(stdout+stderr, c.shown) {
				t.Errorf("anefix %q: output lacks %s:\n%s%s", c.args, c.shown, stdout, stderr)
			}
		}
		if b, err := os.ReadFile(rep); err != nil || !json.Valid(b) {
			t.Errorf("rewrite --report of %s: not a JSON document (%v)", model, err)
		}
		for _, args := range [][]string{
			{"inspect", "--json", model},
			{"check", "--json", model},
			{"rewrite", model, "-o", out, "--force", "--json"},
			{"diff", model, out, "--json"},
		} {
			code, stdout, stderr := runCLI(t, "", args...)
			if code == 1 || !json.Valid([]byte(stdout)) {
				t.Errorf("anefix %q: exit %d, stdout is not a JSON document:\n%s\n%s", args, code, stdout, stderr)
			}
			checkText(args, "stdout", stdout)
			checkText(args, "stderr", stderr)
		}
	}
}
