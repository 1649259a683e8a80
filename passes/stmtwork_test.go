package passes_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
)

// stmtWorkEnv tells TestHelperStmtWork which case and size to run, as
// "INDEX SIZE" (an index into stmtCases), or "none" to run nothing (the
// statements every run executes: package initialization, flag parsing).
const stmtWorkEnv = "ANEFIX_STMTWORK"

// stmtWorkPkgs are the packages whose executed statements are counted: the
// passes and everything under passes/ they call (check's rule model for
// strip-fp32-casts' islands=blockers, the shared facts, internal helpers).
const stmtWorkPkgs = "github.com/anefix/anefix/passes/..."

// stmtLayers are the arm sizes counted: a step linear in the graph runs
// about 4× the statements at the larger, a step quadratic in it about 16×.
var stmtLayers = [2]int{12, 48}

// TestPassStatementsLinear counts the statements each step of workCases
// executes in passes/... (Go's coverage counters, not a timer) on arm
// graphs of 12 and 48 layers, and fails when the statements per op grow
// with the graph. TestPassWorkLinear counts only what goes through package
// graph, so a pass's own scan of a Go slice per op was invisible to it
// (one added to fold-casts kept it at ×1.00); here every loop of the pass
// is counted. The test builds this package's test binary with -cover
// -covermode=count, runs TestHelperStmtWork in it once per case and size
// (a test binary writes its counters only when it exits), converts each
// run's counters with `go tool covdata textfmt` and sums statements ×
// executions, less what a run that does nothing executes.
func TestPassStatementsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a coverage-instrumented test binary and generates 48-layer graphs")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "passes.test")
	build := exec.Command(goTool, "test", "-c", "-o", bin, "-cover", "-covermode=count", "-coverpkg="+stmtWorkPkgs, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c -cover: %v\n%s", err, out)
	}
	// Run covdata's binary directly: `go tool` resolves it once.
	path, err := exec.Command(goTool, "tool", "-n", "covdata").Output()
	if err != nil {
		t.Fatalf("go tool -n covdata: %v", err)
	}
	covdata := strings.TrimSpace(string(path))
	run := func(t *testing.T, which string) (map[string]int64, int) {
		t.Helper()
		dir, err := os.MkdirTemp(tmp, "run")
		if err != nil {
			t.Fatal(err)
		}
		child := exec.Command(bin, "-test.run=^TestHelperStmtWork$", "-test.gocoverdir="+dir)
		child.Env = append(os.Environ(), stmtWorkEnv+"="+which)
		out, err := child.CombinedOutput()
		if err != nil {
			t.Fatalf("child %q: %v\n%s", which, err, out)
		}
		ops := 0
		if _, err := fmt.Sscanf(string(out[strings.Index(string(out), "ops ")+4:]), "%d", &ops); err != nil && which != "none" {
			t.Fatalf("child %q printed no op count: %s", which, out)
		}
		return stmtCounts(t, covdata, dir), ops
	}
	base, _ := run(t, "none")
	for i, c := range stmtCases() {
		t.Run(c.name, func(t *testing.T) {
			var perOp [2]float64
			var files [2]map[string]int64
			var totals [2]int64
			var ops [2]int
			for k, size := range c.sizes {
				files[k], ops[k] = run(t, fmt.Sprintf("%d %d", i, size))
				for f, n := range files[k] {
					files[k][f] = n - base[f]
					totals[k] += n - base[f]
				}
				perOp[k] = float64(totals[k]) / float64(ops[k])
			}
			growth := perOp[1] / perOp[0]
			msg := fmt.Sprintf("statements per op %.1f at %s %d (%d), %.1f at %d (%d) (×%.2f); fastest-growing file %s",
				perOp[0], c.unit, c.sizes[0], totals[0], perOp[1], c.sizes[1], totals[1], growth, fastestFile(files, ops[0], ops[1]))
			if totals[0] <= 0 {
				t.Fatalf("no statement counted: the case proves nothing (%s)", msg)
			}
			// Linear steps measure ×0.93–1.01 here (a few fixed ops
			// per module, union-find paths); a scan per op of a slice
			// that grows with the graph gives ×3–4.
			if growth > 1.15 {
				t.Errorf("statements grow faster than the graph: %s", msg)
			} else {
				t.Log(msg)
			}
		})
	}
}

// stmtCase is one step counted at two sizes of its input.
type stmtCase struct {
	name, unit string // unit: what sizes counts
	sizes      [2]int
	module     func(t *testing.T, size int) *graph.Module
	run        func(m *graph.Module) error
}

// stmtCases are workCases on arms of 12 and 48 layers, and the passes whose
// work grows with something the arms hold few of (state pairs, ports,
// private graphs) on work_test.go's generated modules of 100 and 400 of
// them.
func stmtCases() []stmtCase {
	var cs []stmtCase
	for _, c := range workCases() {
		cs = append(cs, stmtCase{name: c.name, unit: "layers", sizes: stmtLayers,
			module: func(t *testing.T, n int) *graph.Module { return c.module(t, n) }, run: c.run})
	}
	pipeline := func(spec string) func(m *graph.Module) error {
		return func(m *graph.Module) error {
			p, err := passes.ParsePipeline(spec)
			if err != nil {
				return err
			}
			_, err = p.Run(m, passes.RunOptions{})
			return err
		}
	}
	for _, c := range []struct {
		name, unit, spec string
		build            func(t *testing.T, n int) *graph.Module
	}{
		{"promote-states, state pairs", "pairs", "promote-states", pairsModule},
		{"promote-states form=handle, state pairs", "pairs", "promote-states{form=handle}", pairsModule},
		{"states-as-outputs, handle states", "states", "states-as-outputs", handleStates},
		{"fold-io-unsqueeze, ports", "ports", "fold-io-unsqueeze", rankPorts},
		{"strip-fp32-casts, ports", "ports", "strip-fp32-casts", portsModule},
		{"dce, chained private graphs", "graphs", "dce", func(t *testing.T, n int) *graph.Module { return graphsModule("chain")(t, n) }},
	} {
		cs = append(cs, stmtCase{name: c.name, unit: c.unit, sizes: [2]int{100, 400}, module: c.build, run: pipeline(c.spec)})
	}
	return cs
}

// stmtCounts converts one run's counters to text (`go tool covdata
// textfmt`) and returns, per source file, the statements executed: the
// sum over its blocks of statements × executions.
func stmtCounts(t *testing.T, covdata, dir string) map[string]int64 {
	t.Helper()
	prof := filepath.Join(dir, "profile.txt")
	if out, err := exec.Command(covdata, "textfmt", "-i="+dir, "-o="+prof).CombinedOutput(); err != nil {
		t.Fatalf("covdata textfmt: %v\n%s", err, out)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// mode: atomic, then "file:l.c,l.c statements executions".
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || !strings.Contains(fields[0], ":") {
			continue
		}
		stmts, err1 := strconv.ParseInt(fields[1], 10, 64)
		execs, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("profile line %q", sc.Text())
		}
		file := fields[0][:strings.LastIndex(fields[0], ":")]
		counts[file] += stmts * execs
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return counts
}

// fastestFile names the file whose statements per op grew most between
// the two runs, with its figures (to say where a failure comes from).
func fastestFile(files [2]map[string]int64, ops0, ops1 int) string {
	best, bestGrowth := "(none)", 0.0
	keys := make([]string, 0, len(files[1]))
	for k := range files[1] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a, b := files[0][k], files[1][k]
		if b < 1000 { // too few to say anything
			continue
		}
		g := (float64(b) / float64(ops1)) / (float64(max(a, 1)) / float64(ops0))
		if g > bestGrowth {
			best, bestGrowth = fmt.Sprintf("%s (%d → %d, ×%.2f per op)", strings.TrimPrefix(k, "github.com/anefix/anefix/"), a, b, g), g
		}
	}
	return best
}

// TestHelperStmtWork is TestPassStatementsLinear's child, not a test:
// with ANEFIX_STMTWORK set (in a binary built with -cover) it runs one
// stmtCase at one size and prints the module's op count.
func TestHelperStmtWork(t *testing.T) {
	which := os.Getenv(stmtWorkEnv)
	if which == "" {
		t.Skip("TestPassStatementsLinear's child process")
	}
	if which == "none" {
		return
	}
	var i, size int
	if _, err := fmt.Sscanf(which, "%d %d", &i, &size); err != nil {
		t.Fatalf("%s=%q: %v", stmtWorkEnv, which, err)
	}
	c := stmtCases()[i]
	m := c.module(t, size)
	n := m.NumOps()
	if err := c.run(m); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ops %d\n", n)
}
