package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextConvertFixpoint: text anefix printed, converted to its own form,
// comes back byte for byte, however many newlines it ends with (issue 20:
// an unchanged text file converted to text gained a trailing newline).
// The texts are every module of testdata/mlir that converts, in both
// forms, and what anefix writes itself: synth arms, and a rewrite and a
// bytecode model printed as text.
func TestTextConvertFixpoint(t *testing.T) {
	// big: a generated model of some 100 KB, checked with fewer endings.
	type source struct {
		name, text string
		big        bool
	}
	var srcs []source
	dir := t.TempDir()
	// What anefix writes: synth arms, a rewrite, a bytecode model as text.
	for _, arm := range []string{"A", "D", "E"} {
		p := filepath.Join(dir, "arm"+arm+".mlir")
		if code, _, errs := runCLI(t, "", "synth", "--arm", arm, "-o", p); code != exitOK {
			t.Fatalf("synth --arm %s: %s", arm, errs)
		}
		b, _ := os.ReadFile(p)
		srcs = append(srcs, source{"synth arm " + arm, string(b), true})
	}
	armA := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	for _, args := range [][]string{{"rewrite", armA, "-o", "-", "--emit", "pretty"}, {"convert", armA, "-o", "-", "--emit", "generic"}} {
		code, out, errs := runCLI(t, "", args...)
		if code != exitOK {
			t.Fatalf("%v: %s", args, errs)
		}
		srcs = append(srcs, source{args[0] + " of armA", out, true})
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "mlir", "*", "*.mlir"))
	if err != nil || len(files) < 10 {
		t.Fatalf("testdata/mlir: %d files, %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, source{f, string(b), false})
	}
	convert := func(text, form string) (string, bool) {
		code, out, _ := runCLI(t, text, "convert", "-", "-o", "-", "--emit", form)
		return out, code == exitOK
	}
	checked := 0
	for _, s := range srcs {
		for _, form := range []string{"generic", "pretty"} {
			printed, ok := convert(s.text, form)
			if !ok {
				continue // a parser test that is not a valid module
			}
			checked++
			body := strings.TrimRight(printed, "\n")
			ends := []string{printed, body, body + "\n", body + "\n\n", body + "\n\n\n"}
			if s.big {
				ends = ends[:2]
			}
			for _, in := range ends {
				if out, ok := convert(in, form); !ok || out != in {
					t.Errorf("%s: %s text ending in %d newline(s) converted to %s changed (%d -> %d bytes)%s",
						s.name, form, len(in)-len(body), form, len(in), len(out), firstLineDiff(in, out))
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d texts checked", checked)
	}
}

// firstLineDiff shows the first line where a and b differ.
func firstLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y || i >= len(la) || i >= len(lb) {
			return fmt.Sprintf("; first difference at line %d: %q vs %q", i+1, x, y)
		}
	}
	return ""
}
