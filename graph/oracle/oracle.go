// Package oracle locates the independent reference tools tests compare
// anefix against (Debian's mlir-opt, python3 with numpy, and Chromium for
// the graph view: chromium.go), so that every package decides the same way
// between running, skipping and failing.
//
// Locally a missing tool (or the corpus) skips the test, naming it. In CI
// (CI=true, or .ci/run's ANEFIX_REQUIRE_ORACLES=1) a missing tool fails the
// test, naming it and how to install it, so an oracle test can never
// silently turn into a no-op there. Heavy tests that run only when asked
// (ANEFIX_FULL_SWEEP, ANEFIX_FULL_MODEL, ANEFIX_EXHAUSTIVE, benchmarks'
// full-scale inputs) decide through OptedIn and OptIn: an opt-in is not an
// unavailability, CI does not turn it on.
package oracle

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// T is the part of testing.TB the oracle uses (a *testing.T, *testing.B or
// *testing.F is one), so this package needs no import of testing.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// logT is T that can also log (for a missing release that is not fatal).
type logT interface {
	T
	Logf(format string, args ...any)
}

// requireEnv is the environment variable that turns a missing oracle from a
// skip into a failure.
const requireEnv = "ANEFIX_REQUIRE_ORACLES"

// mlirOptPath is where Debian's mlir-19-tools installs mlir-opt. The path is
// fixed on purpose: the tests were checked against this version.
const mlirOptPath = "/usr/lib/llvm-19/bin/mlir-opt"

// python3Path is Debian's python3, which has python3-numpy. A python3 found
// on PATH (pyenv, venv) may lack numpy or have a different one.
const python3Path = "/usr/bin/python3"

// ciEnv is the variable CI services set (to "true"); set, it makes missing
// oracles fail tests as requireEnv does.
const ciEnv = "CI"

// required reports whether missing oracles must fail tests: requireEnv or
// ciEnv is set to anything but "", "0" or "false".
func required() bool { return on(os.Getenv(requireEnv)) || on(os.Getenv(ciEnv)) }

// on is the one reading of a switch variable: set to anything but "", "0"
// or "false".
func on(v string) bool { return v != "" && v != "0" && v != "false" }

// OptedIn reports whether the opt-in variable env is on (anything but "",
// "0" or "false"), and its value (a path for ANEFIX_FULL_MODEL). Opt-ins
// make a test do more (every case instead of a sample, a full-scale input);
// CI and requireEnv leave them off.
func OptedIn(env string) (string, bool) {
	v := os.Getenv(env)
	return v, on(v)
}

// OptIn skips a test that runs only when asked unless env is on, saying
// what setting it does; it returns env's value.
func OptIn(t T, env, what string) string {
	t.Helper()
	v, ok := OptedIn(env)
	if !ok {
		t.Skipf("opt-in: set %s to %s", env, what)
	}
	return v
}

// mlirOpt22Path is where Debian's mlir-22-tools installs mlir-opt 22, which
// writes MLIR 22's native properties layouts (func.func with no_inline), as
// Apple's toolchain (producer MLIR22.0.0git) does.
const mlirOpt22Path = "/usr/lib/llvm-22/bin/mlir-opt"

// MlirOptTool is one installed mlir-opt release the tests compare against.
type MlirOptTool struct {
	Name     string // "mlir-opt-19", for subtest names
	Path     string
	Package  string // the Debian package that installs it
	Producer string // the producer string its bytecode carries
}

// MlirOpts are the mlir-opt releases the bytecode oracle tests run against.
var MlirOpts = []MlirOptTool{
	{Name: "mlir-opt-19", Path: mlirOptPath, Package: "mlir-19-tools", Producer: "MLIR19.1.7"},
	{Name: "mlir-opt-22", Path: mlirOpt22Path, Package: "mlir-22-tools", Producer: "MLIR22.1.8"},
}

// MlirOpt returns the path of mlir-opt 19. When it is missing it skips the
// test, or fails it when ANEFIX_REQUIRE_ORACLES is set.
func MlirOpt(t T) string {
	t.Helper()
	return MlirOpts[0].Require(t)
}

// EachMlirOpt runs f as one subtest per mlir-opt release; f calls
// tl.Require before it runs the tool (a subtest may need only the release's
// committed seeds).
// (TT is *testing.T in practice; the constraint keeps testing out of this
// package.)
func EachMlirOpt[TT interface {
	T
	Run(string, func(TT)) bool
}](t TT, f func(t TT, tl MlirOptTool)) {
	t.Helper()
	for _, tl := range MlirOpts {
		t.Run(tl.Name, func(t TT) { f(t, tl) })
	}
}

// MlirOptPaths returns the paths of the installed mlir-opt releases, for a
// test that runs every release inside one subtest tree. A missing release is
// logged, or fails the test when ANEFIX_REQUIRE_ORACLES is set; when none is
// installed the test skips.
func MlirOptPaths(t logT) []string {
	t.Helper()
	var paths []string
	for _, tl := range MlirOpts {
		if err := checkExec(tl.Path); err != nil {
			if required() {
				t.Fatalf("oracle %s is required (%s or %s is set) but unavailable: %v; install it: apt-get install %s, or run .ci/run", tl.Name, requireEnv, ciEnv, err, tl.Package)
			}
			t.Logf("oracle %s unavailable (%v): checking with the other releases only", tl.Name, err)
			continue
		}
		paths = append(paths, tl.Path)
	}
	if len(paths) == 0 {
		missing(t, "mlir-opt (any of mlir-19-tools, mlir-22-tools)", "apt-get install mlir-19-tools mlir-22-tools, or run .ci/run", os.ErrNotExist)
	}
	return paths
}

// Installed reports why the release cannot run, or nil when it can.
func (m MlirOptTool) Installed() error { return checkExec(m.Path) }

// Require returns the tool's path. When it is missing it skips the test, or
// fails it when ANEFIX_REQUIRE_ORACLES is set.
func (m MlirOptTool) Require(t T) string {
	t.Helper()
	if err := checkExec(m.Path); err != nil {
		missing(t, m.Name, "apt-get install "+m.Package+", or run .ci/run", err)
	}
	return m.Path
}

var numpy struct {
	once sync.Once
	err  error
}

// Python3Numpy returns the path of a python3 that can import numpy. When
// there is none it skips the test, or fails it when ANEFIX_REQUIRE_ORACLES is
// set.
func Python3Numpy(t T) string {
	t.Helper()
	numpy.once.Do(func() {
		if numpy.err = checkExec(python3Path); numpy.err != nil {
			return
		}
		out, err := exec.Command(python3Path, "-c", "import numpy").CombinedOutput()
		if err != nil {
			numpy.err = &importError{err: err, out: string(out)}
		}
	})
	if numpy.err != nil {
		missing(t, "python3 with numpy at "+python3Path, "apt-get install python3-numpy, or run .ci/run", numpy.err)
	}
	return python3Path
}

type importError struct {
	err error
	out string
}

func (e *importError) Error() string { return "import numpy: " + e.err.Error() + ": " + e.out }

func checkExec(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return &os.PathError{Op: "exec", Path: path, Err: os.ErrPermission}
	}
	return nil
}

// Tool returns the path of the program name found on PATH (a tool the
// system normally has, such as setsid(1)); when it is missing it skips the
// test, or fails it when Required, saying install.
func Tool(t T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, name, install, err)
	}
	return p
}

// Unavailable skips the test because what it needs (a tool, the corpus)
// is missing, or fails it when Required; install says how to get it.
// Every test that needs something outside the repository decides through
// it (or the functions above and below that call it).
func Unavailable(t T, what, install string, err error) {
	t.Helper()
	missing(t, what, install, err)
}

func missing(t T, what, install string, err error) {
	t.Helper()
	if required() {
		t.Fatalf("%s is required (%s or %s is set) but unavailable: %v; install it: %s", what, requireEnv, ciEnv, err, install)
		return
	}
	t.Skipf("%s unavailable: %v (install it: %s; set %s=1 to make this a failure)", what, err, install, requireEnv)
}

// RunMlirOpt runs the mlir-opt at bin with --allow-unregistered-dialect and
// args, in dir when dir is not empty, and returns what it wrote on stdout.
// A failure returns an error that carries mlir-opt's stderr (truncated to
// 4 KiB): the one way tests run the tool.
func RunMlirOpt(bin, dir string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, append([]string{"--allow-unregistered-dialect"}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := stderr.String()
		if len(msg) > 4096 {
			msg = msg[:4096] + "…"
		}
		return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(filepath.Dir(filepath.Dir(bin)))+"/mlir-opt", strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}
