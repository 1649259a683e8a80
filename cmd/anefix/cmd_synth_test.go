package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSynthUsage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.mlir")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"synth", "-o", out}, exitUsage, "--arm"},
		{[]string{"synth", "--arm", "F", "-o", out}, exitUsage, `unknown arm "F"`},
		{[]string{"synth", "--arm", "A"}, exitUsage, "-o OUT is required (an .aimodel directory"},
		{[]string{"synth", "--arm", "A", "--scale", "big", "-o", out}, exitUsage, `unknown --scale value "big"`},
		{[]string{"synth", "--arm", "A", "--layers", "-2", "-o", out}, exitUsage, "--layers"},
		{[]string{"synth", "--arm", "A", "--state-form", "x", "-o", out}, exitUsage, "--state-form"},
		{[]string{"synth", "--arm", "A", "extra", "-o", out}, exitUsage, "no positional"},
		{[]string{"synth", "--arm", "E", "--ctx", "100", "-o", out}, exitUsage, "--ctx 100 out of range"},
		{[]string{"synth", "--arm", "E", "--recurrence", "composite", "-o", out}, exitUsage, "applies to arms A-D"},
		{[]string{"synth", "--arm", "A", "--emit", "pretty", "-o", filepath.Join(dir, "y.aimodel")}, exitUsage, "holds MLIR bytecode"},
	}
	for _, c := range cases {
		code, so, se := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(so+se, c.want) {
			t.Errorf("%v: code %d, output %q; want %d and %q", c.args, code, so+se, c.code, c.want)
		}
		if strings.Contains(se, "synth: synth:") {
			t.Errorf("%v: doubled prefix in %q", c.args, se)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed synth left %s behind", out)
	}
}

// The shipped testdata is exactly what the CLI writes, and the CLI refuses
// to overwrite without --force.
func TestSynthWritesShippedBytes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "armA.aimodel")
	if code, so, se := runCLI(t, "", "synth", "--arm", "A", "-o", out); code != exitOK {
		t.Fatalf("synth: code %d: %s%s", code, so, se)
	}
	for _, f := range []string{"main.mlirb", "main.hash", "metadata.json"} {
		got, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "synth", "armA.aimodel", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from testdata/synth/armA.aimodel/%s", f, f)
		}
	}
	if code, _, se := runCLI(t, "", "synth", "--arm", "A", "-o", out); code != exitFailure || se == "" {
		t.Errorf("overwrite without --force: code %d, stderr %q", code, se)
	}
	if code, _, se := runCLI(t, "", "synth", "--arm", "A", "--force", "-o", out); code != exitOK {
		t.Errorf("--force: code %d, stderr %q", code, se)
	}
}

func TestSynthStdoutText(t *testing.T) {
	code, so, se := runCLI(t, "", "synth", "--arm", "B", "--state-form", "handle", "--emit", "generic", "-o", "-")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, se)
	}
	for _, want := range []string{`"coreai.graph"`, `!coreai.handle<tensor<3x1x2x8x8xf16>>`, `"coreai.write_handle"`, `qwen3_5_ios.py":290:0`} {
		if !strings.Contains(so, want) {
			t.Errorf("stdout lacks %s", want)
		}
	}
}

// --locations debuginfo writes coreai-torch's dialect locations, in text and
// in bytecode (where they are textual dialect attributes the reader keeps as
// graph.DialectLoc), and check reads the op ids from both.
func TestSynthDebugInfoLocations(t *testing.T) {
	dir := t.TempDir()
	bc := filepath.Join(dir, "b.aimodel")
	if code, _, errs := runCLI(t, "", "synth", "--arm", "B", "--locations", "debuginfo", "-o", bc); code != 0 {
		t.Fatalf("bytecode output: exit %d: %s", code, errs)
	}
	code, stdout, errs := runCLI(t, "", "check", bc)
	if code != exitGate || !strings.Contains(stdout, "x18   coreai.cast at macos/qwen3_5.py:199 (via ios/qwen3_5_ios.py:290)") {
		t.Errorf("check of the bytecode: exit %d\n%s%s", code, stdout, errs)
	}
	// The numeric op id stands beside the FX name (text) and in OpRef.op_number (JSON).
	if code, stdout, errs := runCLI(t, "", "inspect", bc); code != 0 || !regexp.MustCompile(`unsqueeze_1 \(op_id \d+\)`).MatchString(stdout) {
		t.Errorf("inspect: exit %d, no 'unsqueeze_1 (op_id N)':\n%s%s", code, stdout, errs)
	}
	if code, stdout, errs := runCLI(t, "", "check", "--json", bc); code != exitGate || !regexp.MustCompile(`"opNumber": \d+`).MatchString(stdout) {
		t.Errorf("check --json: exit %d, no opNumber:\n%s", code, errs)
	}
	back := filepath.Join(dir, "back.mlir")
	if code, _, errs := runCLI(t, "", "convert", bc, "--emit", "pretty", "-o", back); code != 0 {
		t.Fatalf("convert back: exit %d: %s", code, errs)
	}
	if text, err := os.ReadFile(back); err != nil || !strings.Contains(string(text), "loc(#debuginfo.location<") {
		t.Errorf("the bytecode's locations did not come back as #debuginfo.location (err %v)", err)
	}
	out := filepath.Join(dir, "b.mlir")
	if code, _, errs := runCLI(t, "", "synth", "--arm", "B", "--locations", "debuginfo", "--emit", "pretty", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, stdout, errs = runCLI(t, "", "check", out)
	if code != exitGate || !strings.Contains(stdout, "x18   coreai.cast at macos/qwen3_5.py:199 (via ios/qwen3_5_ios.py:290)") {
		t.Errorf("check: exit %d\n%s%s", code, stdout, errs)
	}
}

// --trained-gates=false and --massive-activations=false reach the
// generator: metadata.json says so and the weights differ from the
// default's (graph/synth's TestTrainedLikeOff checks which weights).
func TestSynthTrainedLikeFlags(t *testing.T) {
	dir := t.TempDir()
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	def, off := filepath.Join(dir, "def.aimodel"), filepath.Join(dir, "off.aimodel")
	if code, _, errs := runCLI(t, "", "synth", "--arm", "A", "-o", def); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "synth", "--arm", "A", "--trained-gates=false", "--massive-activations=false", "-o", off); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if m := read(filepath.Join(def, "metadata.json")); !strings.Contains(m, `"trainedGates": true`) || !strings.Contains(m, `"massiveActivations": true`) {
		t.Errorf("default metadata:\n%s", m)
	}
	if m := read(filepath.Join(off, "metadata.json")); !strings.Contains(m, `"trainedGates": false`) || !strings.Contains(m, `"massiveActivations": false`) {
		t.Errorf("metadata with both off:\n%s", m)
	}
	if read(filepath.Join(def, "main.mlirb")) == read(filepath.Join(off, "main.mlirb")) {
		t.Error("the flags did not change the weights")
	}
}
