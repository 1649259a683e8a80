package oracle

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// recorder captures Skip/Fatal without ending the surrounding test, so the
// skip-versus-fail decision itself can be checked.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = true
	r.msg = fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.msg = fmt.Sprintf(format, args...)
}

// TestUnavailable: the rule, over settings of ANEFIX_REQUIRE_ORACLES and
// CI: either on (anything but "", "0", "false") fails the test, naming
// what is missing and how to install it; otherwise it skips, naming it.
func TestUnavailable(t *testing.T) {
	tests := []struct {
		require, ci string
		wantFail    bool
	}{
		{"", "", false},
		{"0", "", false},
		{"false", "", false},
		{"", "0", false},
		{"", "false", false},
		{"0", "false", false},
		{"1", "", true},
		{"yes", "", true},
		{"", "true", true},
		{"", "1", true},
		{"0", "true", true},
		{"1", "false", true},
	}
	for _, tc := range tests {
		t.Run("require="+tc.require+",CI="+tc.ci, func(t *testing.T) {
			t.Setenv(requireEnv, tc.require)
			t.Setenv(ciEnv, tc.ci)
			if required() != tc.wantFail {
				t.Errorf("Required() = %v, want %v", required(), tc.wantFail)
			}
			r := &recorder{TB: t}
			Unavailable(r, "the tool", "apt-get install the-tool", exec.ErrNotFound)
			if r.skipped == tc.wantFail || r.failed != tc.wantFail {
				t.Fatalf("skipped=%v failed=%v, want failed=%v", r.skipped, r.failed, tc.wantFail)
			}
			for _, want := range []string{"the tool", "apt-get install the-tool", exec.ErrNotFound.Error()} {
				if !strings.Contains(r.msg, want) {
					t.Errorf("message %q does not name %q", r.msg, want)
				}
			}
		})
	}
}

// TestOptIn: an opt-in runs only when its variable is on, whatever
// ANEFIX_REQUIRE_ORACLES and CI say (they are about missing tools, not
// about running heavy tests), and returns its value.
func TestOptIn(t *testing.T) {
	const env = "ANEFIX_TEST_OPT_IN"
	for _, tc := range []struct {
		value, require string
		wantOn         bool
	}{
		{"", "", false},
		{"", "1", false},
		{"0", "1", false},
		{"false", "", false},
		{"1", "", true},
		{"/tmp/full.aimodel", "", true},
		{"true", "1", true},
	} {
		t.Run(env+"="+tc.value+",require="+tc.require, func(t *testing.T) {
			t.Setenv(env, tc.value)
			t.Setenv(requireEnv, tc.require)
			t.Setenv(ciEnv, tc.require)
			if v, ok := OptedIn(env); ok != tc.wantOn || v != tc.value {
				t.Errorf("OptedIn = %q, %v; want %q, %v", v, ok, tc.value, tc.wantOn)
			}
			r := &recorder{TB: t}
			got := OptIn(r, env, "run the heavy case")
			if r.failed || r.skipped == tc.wantOn {
				t.Fatalf("skipped=%v failed=%v, want skipped=%v", r.skipped, r.failed, !tc.wantOn)
			}
			if r.skipped && (!strings.Contains(r.msg, env) || !strings.Contains(r.msg, "run the heavy case")) {
				t.Errorf("skip message %q does not name %s and what it does", r.msg, env)
			}
			if !r.skipped && got != tc.value {
				t.Errorf("OptIn = %q, want %q", got, tc.value)
			}
		})
	}
}

// TestCorpus: with the corpus absent (a working directory outside any
// module) the corpus lookups skip, or fail under the rule; the seed
// lookups return nothing and fail only under the rule.
func TestCorpus(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, require := range []string{"", "1"} {
		t.Setenv(requireEnv, require)
		t.Setenv(ciEnv, "")
		for name, f := range map[string]func(T) []string{
			"CorpusFiles":     func(t T) []string { return CorpusFiles(t, ".mlirb") },
			"CorpusGlob":      func(t T) []string { return CorpusGlob(t, "apple-compiled/*.aimodelc") },
			"CorpusSeedFiles": func(t T) []string { return CorpusSeedFiles(t, ".mlirb") },
			"CorpusSeedGlob":  func(t T) []string { return CorpusSeedGlob(t, "apple-compiled/*.aimodelc") },
		} {
			r := &recorder{TB: t}
			if got := f(r); len(got) != 0 {
				t.Errorf("%s found %v in an empty directory", name, got)
			}
			seed := strings.Contains(name, "Seed")
			wantSkip, wantFail := require == "" && !seed, require != ""
			if r.skipped != wantSkip || r.failed != wantFail {
				t.Errorf("%s, %s=%q: skipped=%v failed=%v, want %v %v", name, requireEnv, require, r.skipped, r.failed, wantSkip, wantFail)
			}
			if (r.skipped || r.failed) && !strings.Contains(r.msg, "shared/corpus") {
				t.Errorf("%s: message %q does not say where the corpus goes", name, r.msg)
			}
		}
	}
}

func TestCheckExec(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{dir, dir + "/absent"} {
		if err := checkExec(p); err == nil {
			t.Errorf("checkExec(%q) = nil, want error", p)
		}
	}
	if err := checkExec("/bin/sh"); err != nil {
		t.Errorf("checkExec(/bin/sh) = %v", err)
	}
}

// TestMlirOptRuns: each listed mlir-opt runs, is the release it is listed
// as, and writes that producer string into its bytecode.
func TestMlirOptRuns(t *testing.T) {
	for _, tool := range MlirOpts {
		t.Run(tool.Name, func(t *testing.T) {
			p := tool.Require(t)
			out, err := exec.Command(p, "--version").CombinedOutput()
			if err != nil {
				t.Fatalf("%s --version: %v\n%s", p, err, out)
			}
			// "MLIR19.1.7" → "version 19.1.7"
			if want := "version " + strings.TrimPrefix(tool.Producer, "MLIR"); !strings.Contains(string(out), want) {
				t.Errorf("%s --version does not say %q:\n%s", p, want, out)
			}
			cmd := exec.Command(p, "--emit-bytecode", "-")
			cmd.Stdin = strings.NewReader("module {}")
			bc, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s --emit-bytecode: %v", p, err)
			}
			if !strings.Contains(string(bc), tool.Producer+"\x00") {
				t.Errorf("%s bytecode lacks producer %q: %q", p, tool.Producer, bc)
			}
		})
	}
}

func TestPython3NumpyRuns(t *testing.T) {
	p := Python3Numpy(t)
	out, err := exec.Command(p, "-c", "import numpy; print(numpy.float16(1.5)*2)").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "3.0" {
		t.Fatalf("%s numpy check: %v %q", p, err, out)
	}
}

// TestRunMlirOpt: the runner returns stdout on success (run in dir), and on
// failure an error naming the release, the arguments and mlir-opt's own
// message.
func TestRunMlirOpt(t *testing.T) {
	EachMlirOpt(t, func(t *testing.T, tl MlirOptTool) {
		p := tl.Require(t)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "in.mlir"), []byte("module {\n  \"x.y\"() : () -> ()\n}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := RunMlirOpt(p, dir, "--mlir-print-op-generic", "in.mlir")
		if err != nil || !strings.Contains(string(out), `"x.y"() : () -> ()`) {
			t.Errorf("RunMlirOpt: %v\n%s", err, out)
		}
		_, err = RunMlirOpt(p, dir, "missing.mlir")
		if err == nil || !strings.Contains(err.Error(), "missing.mlir") || !strings.Contains(err.Error(), "mlir-opt") {
			t.Errorf("RunMlirOpt on a missing file: %v", err)
		}
	})
}
