package oracle

import (
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
	r.msg = format
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.msg = format
}

func TestMissing(t *testing.T) {
	tests := []struct {
		env                string
		wantSkip, wantFail bool
	}{
		{"", true, false},
		{"0", true, false},
		{"false", true, false},
		{"1", false, true},
		{"yes", false, true},
	}
	for _, tc := range tests {
		t.Run("env="+tc.env, func(t *testing.T) {
			t.Setenv(RequireEnv, tc.env)
			r := &recorder{TB: t}
			missing(r, "tool", exec.ErrNotFound)
			if r.skipped != tc.wantSkip || r.failed != tc.wantFail {
				t.Fatalf("skipped=%v failed=%v, want %v %v", r.skipped, r.failed, tc.wantSkip, tc.wantFail)
			}
		})
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
