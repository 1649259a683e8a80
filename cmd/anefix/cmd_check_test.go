package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCheckCommand(t *testing.T) {
	armA := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	armE := filepath.Join("..", "..", "testdata", "synth", "armE.aimodel")
	code, out, errs := runCLI(t, "", "check", armA)
	if code != exitGate {
		t.Fatalf("check arm A: exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"NOT LEGAL", "0 of 1 function(s)", "element-type: Incompatible element type for ANE",
		"x18   coreai.cast at macos/qwen3_5.py:199 (via ios/qwen3_5_ios.py:290)  -> strip-fp32-casts", "-> fold-io-unsqueeze",
		"suspect.tied-head-constant", "prediction",
		"to settle (on a Mac): anefix rewrite " + armA + " -o armA.tied-head-constant.aimodel --enable externalize-constant --compile\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("arm A output lacks %q:\n%s", want, out)
		}
	}
	// The README describes the layout: the command on the first line, the
	// verdict on the second.
	if lines := strings.SplitN(out, "\n", 3); len(lines) < 3 || lines[0] != "anefix check "+armA || !strings.HasPrefix(lines[1], "Prediction: NOT LEGAL for the Neural Engine: ") {
		t.Errorf("arm A: first lines are not the command and then the verdict:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n > 60 {
		t.Errorf("arm A report is %d lines; it should fit a screen", n)
	}
	_, out2, _ := runCLI(t, "", "check", armA)
	if out2 != out {
		t.Error("check output differs between two runs")
	}

	code, out, _ = runCLI(t, "", "check", armE)
	if code != exitOK || !strings.Contains(out, "19 of 19 function(s)") {
		t.Errorf("check arm E: exit %d\n%s", code, out)
	}

	code, out, _ = runCLI(t, "", "check", armA, "--json")
	if code != exitGate {
		t.Fatalf("--json exit %d", code)
	}
	var rep struct {
		Legal     bool
		Functions int
		Groups    []struct {
			Rule, FixPass string
			Count         int // int32 in the schema: a JSON number
		}
		Rules []struct{ Id string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Legal || rep.Functions != 1 || len(rep.Groups) == 0 || rep.Groups[0].Rule != "element-type" ||
		rep.Groups[0].Count != 18 || len(rep.Rules) == 0 {
		t.Errorf("--json report: %+v", rep)
	}
}

func TestCheckArmsExitCodes(t *testing.T) {
	for arm, want := range map[string]int{"A": exitGate, "B": exitGate, "C": exitGate, "D": exitOK, "E": exitOK} {
		p := filepath.Join("..", "..", "testdata", "synth", "arm"+arm+".aimodel")
		code, out, errs := runCLI(t, "", "check", p)
		if code != want {
			t.Errorf("arm %s: exit %d, want %d\n%s%s", arm, code, want, out, errs)
		}
		if arm == "D" && (strings.Contains(out, "element-type:") || !strings.Contains(out, "Legal by the known rules only")) {
			t.Errorf("arm D output:\n%s", out)
		}
	}
}

func TestCheckRules(t *testing.T) {
	code, out, _ := runCLI(t, "", "check", "--rules")
	if code != exitOK || !strings.Contains(out, "element-type [blocker]") || !strings.Contains(out, "evidence:") ||
		!strings.Contains(out, "to settle:") {
		t.Errorf("--rules: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "", "check", "--rules", "x.mlir"); code != exitUsage {
		t.Errorf("--rules with input: exit %d", code)
	}
	// --json lists what the table shows (it printed the text table, which
	// no JSON reader takes): every rule the text heads, in its order, with
	// its kind and whether it classifies compiler diagnostics only, and
	// every region model.
	code, js, errs := runCLI(t, "", "check", "--rules", "--json")
	var table struct {
		RuleSet string
		Rules   []struct {
			ID                       string `json:"id"`
			Severity, Title, FixPass string
			FromCompiler             bool
		}
		DefaultArchitecture string
		RegionModels        []struct{ Architecture, Description string }
	}
	if err := json.Unmarshal([]byte(js), &table); code != exitOK || err != nil {
		t.Fatalf("--rules --json: exit %d, %v\n%s%s", code, err, js, errs)
	}
	heads := regexp.MustCompile(`(?m)^(\S+) \[([a-z]+)\]: (.*)$`).FindAllStringSubmatch(out, -1)
	if len(heads) == 0 || len(heads) != len(table.Rules) || !strings.HasPrefix(out, "Rule set "+table.RuleSet+"\n") {
		t.Fatalf("text heads %d rules, JSON lists %d (rule set %q)", len(heads), len(table.Rules), table.RuleSet)
	}
	fromCompiler := 0
	for i, r := range table.Rules {
		if h := heads[i]; h[1] != r.ID || h[2] != r.Severity || h[3] != r.Title {
			t.Errorf("rule %d: text %q, JSON %s [%s]: %s", i, h[0], r.ID, r.Severity, r.Title)
		}
		if r.FromCompiler {
			fromCompiler++
		}
	}
	if n := strings.Count(out, "; classifies compiler diagnostics only"); n == 0 || n != fromCompiler {
		t.Errorf("text marks %d rules as classifying compiler diagnostics only, JSON %d", n, fromCompiler)
	}
	if len(table.RegionModels) == 0 || !strings.Contains(out, "default "+table.DefaultArchitecture+";") {
		t.Errorf("region models %+v, default %q", table.RegionModels, table.DefaultArchitecture)
	}
	for _, m := range table.RegionModels {
		if !strings.Contains(out, "\n  "+m.Architecture+": "+m.Description+"\n") {
			t.Errorf("region model %s not in the text as in the JSON", m.Architecture)
		}
	}
}

func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mlir")
	if err := os.WriteFile(bad, []byte("module {\n  %0 = \"coreai.exp\"(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "", "check", bad)
	if code != exitFailure || !strings.Contains(errs, "bad.mlir") {
		t.Errorf("bad input: exit %d, stderr %q", code, errs)
	}
	// A damaged bundle (main.hash not matching main.mlirb) is bad input.
	dmg := filepath.Join(dir, "armE.aimodel")
	if err := os.CopyFS(dmg, os.DirFS(filepath.Join("..", "..", "testdata", "synth", "armE.aimodel"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dmg, "main.hash"), []byte(strings.Repeat("ab", 32)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "", "check", dmg)
	if code != exitFailure || !strings.Contains(errs, "--ignore-hash") {
		t.Errorf("damaged bundle: exit %d, stderr %q", code, errs)
	}
	code, _, _ = runCLI(t, "", "check", dmg, "--ignore-hash")
	if code != exitOK {
		t.Errorf("damaged bundle with --ignore-hash: exit %d", code)
	}
	code, _, _ = runCLI(t, "", "check")
	if code != exitUsage {
		t.Errorf("no input: exit %d", code)
	}
	code, _, errs = runCLI(t, "", "check", filepath.Join(dir, "missing.aimodel"))
	if code != exitFailure || errs == "" {
		t.Errorf("missing input: exit %d %q", code, errs)
	}
}

// A file with no function to compile is bad input (exit 1), not "legal, 0
// of 0 functions": otherwise an empty or wrong file passes a CI gate.
func TestCheckNoFunction(t *testing.T) {
	cases := []struct {
		name, text string
		code       int
	}{
		{"empty file", "", exitFailure},
		{"empty module", "module {\n}\n", exitFailure},
		{"only a private graph", `module {
  coreai.graph private @helper(%x: tensor<2xf16>) -> tensor<2xf16> {
    coreai.output %x : tensor<2xf16>
  }
}
`, exitFailure},
		{"one public graph", `module {
  coreai.graph @main(%x: tensor<2xf16>) -> tensor<2xf16> {
    coreai.output %x : tensor<2xf16>
  }
}
`, exitOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "m.mlir")
			if err := os.WriteFile(in, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI(t, "", "check", in)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errs)
			}
			if c.code == exitFailure && (!strings.Contains(errs, "nothing to check") || !strings.Contains(errs, in) || out != "") {
				t.Errorf("stdout %q, stderr %q", out, errs)
			}
		})
	}
}

// IR that does not verify is bad input for check and verify (exit 1), as it
// is for rewrite and convert; check used to call it LEGAL.
func TestUnverifiedInputRefused(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.mlir")
	src := `module {
  coreai.graph @main(%x: tensor<2xf16>) -> tensor<2xf32> {
    %0 = coreai.exp %x : tensor<2xf16> -> tensor<2xf16>
    coreai.output %0 : tensor<2xf16>
  }
}
`
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"check", bad},
		{"check", bad, "--json"},
		{"verify", bad, armAPath},
		{"verify", armAPath, bad},
		{"rewrite", bad, "--dry-run"},
		{"convert", bad, "-o", "-"},
	}
	for _, args := range cases {
		code, out, errs := runCLI(t, "", args...)
		if code != exitFailure || out != "" || !strings.Contains(errs, "does not verify") && !strings.Contains(errs, "verification failed") ||
			!strings.Contains(errs, "bad.mlir") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}
