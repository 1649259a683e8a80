package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synthFile writes a tiny synth arm (text form) for the verify tests.
func synthFile(t *testing.T, dir, arm, seed, ext string) string {
	t.Helper()
	p := filepath.Join(dir, "arm"+arm+"_"+seed+ext)
	if code, _, errs := runCLI(t, "", "synth", "--arm", arm, "--seed", seed, "-o", p); code != exitOK {
		t.Fatalf("synth --arm %s: %d %s", arm, code, errs)
	}
	return p
}

func TestVerifyAgreement(t *testing.T) {
	dir := t.TempDir()
	a := synthFile(t, dir, "A", "0", ".mlir")
	b := synthFile(t, dir, "B", "0", ".aimodel") // states instead of plain I/O, bytecode bundle
	code, out, errs := runCLI(t, "", "verify", a, b, "--prompt-ids", "1,2,3")
	if code != exitOK {
		t.Fatalf("verify A B: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"top-1 agreement: 24/24\n", "first divergence: none", "bit-identical", "state rec_state: bit-identical", "gate: passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// --json is deterministic and carries the same numbers.
	_, j1, _ := runCLI(t, "", "verify", a, b, "--steps", "4", "--json")
	_, j2, _ := runCLI(t, "", "verify", a, b, "--steps", "4", "--json")
	if j1 != j2 {
		t.Error("--json output differs between identical runs")
	}
	var rep struct {
		Steps, Agree int
		Passed       bool
		Positions    []map[string]any
	}
	if err := json.Unmarshal([]byte(j1), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, j1)
	}
	if rep.Steps != 4 || rep.Agree != 4 || !rep.Passed || len(rep.Positions) != 4 {
		t.Errorf("--json report: %+v", rep)
	}
}

// Different weights decode different tokens: exit 3 unless --min-agree
// allows it.
func TestVerifyGate(t *testing.T) {
	dir := t.TempDir()
	a := synthFile(t, dir, "A", "0", ".mlir")
	b := synthFile(t, dir, "A", "7", ".mlir")
	code, out, _ := runCLI(t, "", "verify", a, b, "--steps", "6")
	if code != exitGate {
		t.Fatalf("different weights: exit %d, want %d\n%s", code, exitGate, out)
	}
	if !strings.Contains(out, "top-1 agreement: ") || !strings.Contains(out, "gate: FAILED") {
		t.Errorf("output:\n%s", out)
	}
	if code, _, _ := runCLI(t, "", "verify", a, b, "--steps", "6", "--min-agree", "0"); code != exitOK {
		t.Errorf("--min-agree 0: exit %d", code)
	}
}

func TestVerifyUsage(t *testing.T) {
	dir := t.TempDir()
	a := synthFile(t, dir, "A", "0", ".mlir")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"verify", a}, exitUsage, "two inputs"},
		{[]string{"verify", a, a, "--prompt-ids", "1,x"}, exitUsage, "--prompt-ids"},
		{[]string{"verify", a, a, "--steps", "0"}, exitUsage, "--steps"},
		{[]string{"verify", a, a, "--accumulate", "f8"}, exitUsage, "--accumulate"},
		{[]string{"verify", a, a, "--steps", "2", "--min-agree", "3"}, exitUsage, "--min-agree"},
		{[]string{"verify", a, filepath.Join(dir, "missing.mlir")}, exitFailure, "missing.mlir"},
		{[]string{"verify", a, a, "--function", "nope"}, exitUsage, "@nope"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args[1:], code, errs, c.code, c.want)
		}
	}
}

// verify runs graphs whose first output is an integer or boolean tensor
// (issue 20: si32 and i1 outputs panicked in the argmax, exit 2, even
// against themselves), and one whose output holds nothing.
func TestVerifyNonFloatOutputs(t *testing.T) {
	for _, c := range []struct{ in, out, want string }{
		{"tensor<1x4xf32>", "tensor<1x4xsi32>", "top-1 agreement: 3/3"},
		{"tensor<1x4xf32>", "tensor<1x4xi1>", "top-1 agreement: 3/3"},
		{"tensor<4xf32>", "tensor<4xui8>", "top-1 agreement: 3/3"},
		{"tensor<1x0xf32>", "tensor<1x0xf16>", "holds no elements"},
	} {
		t.Run(c.out, func(t *testing.T) {
			in := c.in
			src := "module {\n  coreai.graph @main(%ids: tensor<1x1xsi32> {coreai.name = \"input_ids\"}, %x: " + in + " {coreai.name = \"x\"}) -> (" + c.out + " {coreai.name = \"logits\"}) {\n" +
				"    %0 = coreai.cast %x : " + in + " to " + c.out + "\n    coreai.output %0 : " + c.out + "\n  }\n}\n"
			p := filepath.Join(t.TempDir(), "m.mlir")
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI(t, "", "verify", p, p, "--steps", "3")
			if code != exitOK || !strings.Contains(out, c.want) {
				t.Errorf("exit %d\n%s%s", code, out, errs)
			}
		})
	}
}
