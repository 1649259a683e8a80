package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// mutantsEnv turns TestMutants on: it builds and tests a copy of the tree
// per mutation (minutes of CPU), so a plain `go test ./...` skips it.
const mutantsEnv = "ANEFIX_MUTANTS"

// mutantJobs is how many mutations are tested at once (CI has two cores).
const mutantJobs = 2

// mutantsNeed is the time the suite asks of go test's -timeout: 12 min
// were measured with a cold build cache on two cores shared with other
// builds (load about 9).
const mutantsNeed = 20 * time.Minute

// TestMutants applies each deliberate bug of the mutants table
// (mutants_list_test.go) to its own copy of the tree and passes only if
// every test selection the mutation names fails on it, for a test reason
// (a mutation that does not compile is itself a bug of the table). The
// same selections must pass on an unmutated copy first, or "caught"
// would mean nothing. A mutation's anchor must occur exactly once in its
// file: when a refactor moves the code, the table says so instead of
// silently testing nothing.
//
// Run it as `ANEFIX_MUTANTS=1 go test ./cmd/anefix -run TestMutants`
// (one mutation: -run TestMutants/<name>).
func TestMutants(t *testing.T) {
	if os.Getenv(mutantsEnv) == "" {
		t.Skipf("set %s=1 to build and test the tree once per deliberate bug (mutants_list_test.go)", mutantsEnv)
	}
	if testing.Short() {
		t.Skip("mutation suite under -short")
	}
	// A deadline cut mid-run panics without the summary: ask for room.
	if d, ok := t.Deadline(); ok && time.Until(d) < mutantsNeed {
		t.Fatalf("the mutation suite needs up to %v on two busy cores; run it as %s=1 go test ./cmd/anefix -run TestMutants -timeout 30m", mutantsNeed, mutantsEnv)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root %s: %v", root, err)
	}
	if err := checkMutantTable(mutants); err != nil {
		t.Fatal(err)
	}
	h := &mutantHarness{root: root, work: t.TempDir(), sem: make(chan struct{}, mutantJobs), baseline: map[string]*baselineRun{}}
	start := time.Now()
	t.Cleanup(func() { h.summary(t, time.Since(start)) })
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			h.run(t, m)
		})
	}
}

// mutant is one deliberate bug: the text find, which must occur exactly
// once in file, becomes replace.
type mutant struct {
	name    string
	file    string // slash path from the repository root
	find    string
	replace string
	breaks  string        // what the bug breaks, one line
	catch   []mutantCatch // every one of these must fail on the mutated tree
}

// mutantCatch is one test selection: `go test <pkg> -run <run>`.
type mutantCatch struct {
	pkg string // "./passes/anefacts"
	run string
}

func (c mutantCatch) String() string { return c.pkg + " -run '" + c.run + "'" }

func checkMutantTable(ms []mutant) error {
	seen := map[string]bool{}
	for _, m := range ms {
		switch {
		case m.name == "" || strings.ContainsAny(m.name, " /"):
			return fmt.Errorf("mutant %q: a name without spaces or slashes", m.name)
		case seen[m.name]:
			return fmt.Errorf("mutant %q listed twice", m.name)
		case m.file == "" || m.find == "" || m.find == m.replace || m.breaks == "" || len(m.catch) == 0:
			return fmt.Errorf("mutant %s: file, find, a different replace, breaks and at least one catch are required", m.name)
		}
		for _, c := range m.catch {
			if !strings.HasPrefix(c.pkg, "./") || c.run == "" {
				return fmt.Errorf("mutant %s: catch %v: a ./package and a -run pattern", m.name, c)
			}
		}
		seen[m.name] = true
	}
	return nil
}

type mutantHarness struct {
	root, work string
	sem        chan struct{}

	mu       sync.Mutex
	baseDir  string
	baseErr  error
	baseOnce sync.Once
	baseline map[string]*baselineRun
	results  []mutantResult
}

type baselineRun struct {
	once sync.Once
	err  error
}

type mutantResult struct {
	name, file, verdict string
	took                time.Duration
}

// run tests one mutation.
func (h *mutantHarness) run(t *testing.T, m mutant) {
	verdict := "not caught"
	start := time.Now()
	defer func() {
		h.mu.Lock()
		h.results = append(h.results, mutantResult{m.name, m.file, verdict, time.Since(start)})
		h.mu.Unlock()
	}()
	// The anchor is checked before anything runs: a stale one fails at once.
	src, err := os.ReadFile(filepath.Join(h.root, filepath.FromSlash(m.file)))
	if err != nil {
		verdict = "stale: " + err.Error()
		t.Fatalf("mutant %s: %v", m.name, err)
	}
	if n := bytes.Count(src, []byte(m.find)); n != 1 {
		verdict = fmt.Sprintf("stale anchor (%d matches)", n)
		t.Fatalf("mutant %s: its anchor occurs %d times in %s, not once: the code moved; update the anchor in mutants_list_test.go\nanchor:\n%s", m.name, n, m.file, m.find)
	}
	h.sem <- struct{}{}
	defer func() { <-h.sem }()
	if err := h.baselines(m); err != nil {
		verdict = "baseline fails"
		t.Fatal(err)
	}
	dir := filepath.Join(h.work, m.name)
	if err := mutantCopyTree(h.root, dir); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "anefix")
	target := filepath.Join(repo, filepath.FromSlash(m.file))
	if err := os.WriteFile(target, bytes.Replace(src, []byte(m.find), []byte(m.replace), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if out, err := mutantGoCmd(repo, "build", "-trimpath", "./"+filepath.ToSlash(filepath.Dir(m.file))); err != nil {
		verdict = "broken (does not build)"
		t.Fatalf("mutant %s does not build, so it tests nothing: fix its replacement\n%s", m.name, out)
	}
	var caught, missed []string
	for _, c := range m.catch {
		out, err := mutantGoTest(repo, c)
		switch {
		case err == nil:
			missed = append(missed, c.String())
			t.Errorf("mutant %s (%s) not caught by %s", m.name, m.breaks, c)
		case mutantBuildFailed(out):
			verdict = "broken (tests do not build)"
			t.Fatalf("mutant %s: the tests of %s do not build with it, so it tests nothing:\n%s", m.name, c.pkg, mutantTail(out, 40))
		default:
			failed := mutantFailedTests(out)
			if len(failed) == 0 {
				// A failure without a failing test (a panic in init, a
				// timeout) still names its cause in the output.
				failed = []string{"(" + mutantLastLine(out) + ")"}
			}
			caught = append(caught, c.pkg+" "+strings.Join(failed, ","))
		}
	}
	switch {
	case len(missed) == 0:
		verdict = "caught by " + strings.Join(caught, "; ")
		t.Logf("%s: %s", m.name, verdict)
	case len(caught) > 0:
		verdict = "caught by " + strings.Join(caught, "; ") + "; missed by " + strings.Join(missed, "; ")
	}
}

// baselines runs each selection m names on an unmutated copy once.
func (h *mutantHarness) baselines(m mutant) error {
	h.baseOnce.Do(func() {
		h.baseDir = filepath.Join(h.work, "unmutated")
		h.baseErr = mutantCopyTree(h.root, h.baseDir)
	})
	if h.baseErr != nil {
		return h.baseErr
	}
	for _, c := range m.catch {
		h.mu.Lock()
		b := h.baseline[c.String()]
		if b == nil {
			b = &baselineRun{}
			h.baseline[c.String()] = b
		}
		h.mu.Unlock()
		b.once.Do(func() {
			out, err := mutantGoTest(filepath.Join(h.baseDir, "anefix"), c)
			switch {
			case err != nil:
				b.err = fmt.Errorf("baseline: %s fails on the unmutated tree, so a mutation it catches proves nothing:\n%s", c, mutantTail(out, 40))
			case strings.Contains(out, "no tests to run"):
				b.err = fmt.Errorf("baseline: %s runs no test (renamed?): update the catch in mutants_list_test.go", c)
			}
		})
		if b.err != nil {
			return b.err
		}
	}
	return nil
}

func (h *mutantHarness) summary(t *testing.T, took time.Duration) {
	slices.SortFunc(h.results, func(a, b mutantResult) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	n := 0
	for _, r := range h.results {
		if strings.HasPrefix(r.verdict, "caught by") && !strings.Contains(r.verdict, "missed by") {
			n++
		}
		fmt.Fprintf(&b, "  %-28s %-44s %5.0fs  %s\n", r.name, r.file, r.took.Seconds(), r.verdict)
	}
	t.Logf("mutation suite: %d of %d caught, %.0fs with %d at once:\n%s", n, len(h.results), took.Seconds(), mutantJobs, b.String())
}

// mutantGoTest runs one selection uncached. -trimpath makes the compiled
// packages of every copy the same build actions, so the build cache serves
// the packages a mutation does not touch.
func mutantGoTest(repo string, c mutantCatch) (string, error) {
	return mutantGoCmd(repo, "test", "-trimpath", "-count=1", "-timeout=10m", "-run", c.run, c.pkg)
}

func mutantGoCmd(repo string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = repo
	// The copy's own TestMutants must skip; tests that build the CLI use
	// -trimpath too, for the same cache.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, mutantsEnv+"=") || strings.HasPrefix(kv, "GOFLAGS=")
	})
	cmd.Env = append(env, "GOFLAGS=-trimpath "+os.Getenv("GOFLAGS"))
	if os.Getenv("GOROOT") == "" {
		// A -trimpath test binary's runtime.GOROOT() is "" unless GOROOT
		// is set, and tests find the go command through it
		// (passes/stmtwork_test.go).
		cmd.Env = append(cmd.Env, "GOROOT="+mutantGoroot())
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var mutantGoroot = sync.OnceValue(func() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

var (
	failLine     = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	buildFailure = regexp.MustCompile(`(?m)\[(build|setup) failed\]|^# \S+\n|cannot find package|no Go files`)
)

func mutantBuildFailed(out string) bool { return buildFailure.MatchString(out) }

// mutantFailedTests names the failing tests of a go test output, subtests under
// their test.
func mutantFailedTests(out string) []string {
	var names []string
	for _, m := range failLine.FindAllStringSubmatch(out, -1) {
		top, _, _ := strings.Cut(m[1], "/")
		if !slices.Contains(names, top) {
			names = append(names, top)
		}
	}
	return names
}

func mutantLastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "FAIL") {
			return l
		}
	}
	return "no output"
}

func mutantTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// mutantCopyTree copies the repository root (its tracked layout, without .git
// and other dot directories) to dir/anefix and links dir/shared to the
// shared directory beside the repository, so tests that read
// ../shared/corpus find it at the same relative place.
func mutantCopyTree(root, dir string) error {
	dst := filepath.Join(dir, "anefix")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() || d.Name() == ".git" { // a worktree's .git is a file
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	if err != nil {
		return fmt.Errorf("copying the tree: %w", err)
	}
	if shared := filepath.Join(filepath.Dir(root), "shared"); mutantDirExists(shared) {
		return os.Symlink(shared, filepath.Join(dir, "shared"))
	}
	return nil
}

func mutantDirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// TestMutantAnchors runs in every go test: the table is well formed and
// each anchor occurs exactly once, so a refactor that moves a mutated
// spot shows up at once, not only when the suite runs.
func TestMutantAnchors(t *testing.T) {
	if err := checkMutantTable(mutants); err != nil {
		t.Fatal(err)
	}
	for _, m := range mutants {
		src, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(m.file)))
		if err != nil {
			t.Errorf("mutant %s: %v", m.name, err)
			continue
		}
		if n := bytes.Count(src, []byte(m.find)); n != 1 {
			t.Errorf("mutant %s: its anchor occurs %d times in %s, not once: update it in mutants_list_test.go\nanchor:\n%s", m.name, n, m.file, m.find)
		}
	}
}

// The harness tells a failing test from a build that failed, from go
// test's own output (samples of what go 1.26 prints).
func TestMutantOutputParsing(t *testing.T) {
	cases := []struct {
		name, out string
		build     bool
		failed    []string
	}{
		{"test failure", "--- FAIL: TestA (0.01s)\n    a_test.go:9: wrong\n--- FAIL: TestB (0.00s)\n    --- FAIL: TestB/sub (0.00s)\nFAIL\nFAIL\texample.com/p\t0.1s\nFAIL\n", false, []string{"TestA", "TestB"}},
		{"compile error", "# example.com/p\np/a.go:3:2: undefined: x\nFAIL\texample.com/p [build failed]\nFAIL\n", true, nil},
		{"test compile error", "# example.com/p [example.com/p.test]\np/a_test.go:3:2: undefined: y\nFAIL\texample.com/p [build failed]\nFAIL\n", true, nil},
		{"vet failure", "# example.com/p\n# [example.com/p]\np/a_test.go:9:3: fmt.Sprintf format %d has arg s of wrong type string\nFAIL\texample.com/p [build failed]\n", true, nil},
		{"panic", "panic: boom\n\ngoroutine 1 [running]:\nFAIL\texample.com/p\t0.1s\nFAIL\n", false, nil},
	}
	for _, c := range cases {
		if got := mutantBuildFailed(c.out); got != c.build {
			t.Errorf("%s: build failed %v, want %v", c.name, got, c.build)
		}
		if got := mutantFailedTests(c.out); !slices.Equal(got, c.failed) {
			t.Errorf("%s: failed tests %q, want %q", c.name, got, c.failed)
		}
	}
	if got := mutantLastLine("panic: boom\nFAIL\texample.com/p\t0.1s\nFAIL\n"); got != "panic: boom" {
		t.Errorf("last line %q", got)
	}
}
