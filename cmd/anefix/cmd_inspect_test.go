package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/goldentest"
)

func inspectCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}
	code := run(append([]string{"inspect"}, args...), env)
	return code, out.String(), errb.String()
}

const hybrid = "../../testdata/mlir/pretty/hybrid_layer.mlir"

func TestInspectCLI(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		contains []string
	}{
		{"text", []string{hybrid}, "", 0, []string{"graph @main  (70 ops)", "STATE", "fp32 islands: 1", "_to_copy_10", "macos/qwen3_5.py:199", "unsqueeze_3", `reads input "hidden"`, "@rms_norm_0 x1 (rms_norm)"}},
		{"json", []string{hybrid, "--json"}, "", 0, []string{`"fp32Islands"`, `"opId": "_to_copy_15"`, `"textForm": "pretty"`}},
		{"stdin", []string{"-"}, `"coreai.graph"() <{function_type = () -> (), sym_name = "g"}> ({
  "coreai.output"() : () -> ()
}) : () -> ()`, 0, []string{"- (MLIR text, generic form)", "graph @g  (1 ops)"}},
		{"aimodel", []string{"../../testdata/synth/armA.aimodel"}, "", 0, []string{"(.aimodel): 1 graph(s)", "conv_state", "macos/qwen3_5.py:199 x6", "_to_copy_4"}},
		{"no args", nil, "", 2, []string{"exactly one input"}},
		{"two args", []string{"a", "b"}, "", 2, []string{"exactly one input"}},
		{"bad flag", []string{"--nope", hybrid}, "", 2, []string{"unknown flag"}},
		{"missing file", []string{"/nonexistent/x.mlir"}, "", 1, []string{"x.mlir"}},
		{"syntax error", []string{"-"}, "\"coreai.graph\"() ({\n  %0 = \"coreai.x\"(%nope) : (i32) -> i32\n}) : () -> ()\n", 1, []string{"<stdin>:2:19: use of undeclared SSA value name '%nope'", "^"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := inspectCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:%s\nstderr:%s", code, tc.code, out, errs)
			}
			for _, c := range tc.contains {
				if !strings.Contains(out+errs, c) {
					t.Errorf("output lacks %q:\n%s%s", c, out, errs)
				}
			}
		})
	}
}

func TestInspectJSONDeterministic(t *testing.T) {
	_, a, _ := inspectCLI(t, "", hybrid, "--json")
	_, b, _ := inspectCLI(t, "", hybrid, "--json")
	if a != b {
		t.Fatal("two --json runs differ")
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(a), &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
}

func TestInspectHelp(t *testing.T) {
	code, out, _ := inspectCLI(t, "", "--help")
	if code != 0 || !strings.Contains(out, "Usage: anefix inspect IN [--json]") || !strings.Contains(out, "Examples:") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
}

// TestInspectGolden pins the whole text and JSON output for the hybrid
// layer (regenerate with: go test ./cmd/anefix -run InspectGolden -update).
func TestInspectGolden(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{hybrid}, "hybrid_layer.txt"},
		{[]string{hybrid, "--json"}, "hybrid_layer.json"},
		{[]string{"../../testdata/mlir/pretty/printed_small.mlir"}, "printed_small.txt"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, out, errs := inspectCLI(t, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			path := filepath.Join("../../testdata/mlir/inspect", tc.golden)
			if goldentest.Update() {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if out != string(want) {
				t.Errorf("output differs from %s (rerun with -update if intended):\n%s", path, out)
			}
		})
	}
}
