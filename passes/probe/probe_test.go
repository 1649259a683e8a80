package probe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		code int
		want Outcome
	}{{0, Good}, {1, Bad}, {2, Bad}, {3, Bad}, {4, NoCompiler}, {124, Bad}, {125, Skip}, {126, Bad}, {137, Bad}} {
		if got := classify(c.code); got != c.want {
			t.Errorf("Classify(%d) = %s, want %s", c.code, got, c.want)
		}
	}
}

func write(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The key covers the bytes of every file of a directory, their names and
// the command; nothing else (not the candidate's own path).
func TestKey(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		write(t, d, "main.mlirb", "bytes")
		write(t, d, "metadata.json", "{}")
	}
	ka, _ := key(a, "t {}")
	kb, _ := key(b, "t {}")
	if ka != kb {
		t.Error("same files, different keys")
	}
	if k, _ := key(a, "u {}"); k == ka {
		t.Error("command not in the key")
	}
	write(t, b, "metadata.json", "{ }")
	if k, _ := key(b, "t {}"); k == ka {
		t.Error("content not in the key")
	}
	c := t.TempDir()
	write(t, c, "main.mlirbmetadata.json", "bytes{}")
	if k, _ := key(c, "t {}"); k == ka {
		t.Error("file boundaries not in the key")
	}
}

func newRunner(t *testing.T, cfg Config) *Runner {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A candidate file holding a number is answered with that exit status.
const exitWithContent = `exit "$(cat {})"`

func TestRunOutcomesAndCache(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	var paths []string
	for _, code := range []int{0, 1, 125, 3} {
		paths = append(paths, write(t, dir, "c"+strconv.Itoa(code), strconv.Itoa(code)))
	}
	want := []Outcome{Good, Bad, Skip, Bad}
	for _, jobs := range []int{1, 3} {
		r := newRunner(t, Config{Command: exitWithContent, CacheDir: cache, Jobs: jobs})
		res, err := r.Run(context.Background(), paths)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range res {
			if x.Outcome != want[i] {
				t.Errorf("-j %d %s: %s, want %s", jobs, paths[i], x.Outcome, want[i])
			}
			if x.Cached != (jobs == 3) {
				t.Errorf("-j %d %s: cached %v", jobs, paths[i], x.Cached)
			}
		}
		run, hit := r.Counts()
		if jobs == 1 && (run != 4 || hit != 0) || jobs == 3 && (run != 0 || hit != 4) {
			t.Errorf("-j %d: %d run, %d cached", jobs, run, hit)
		}
	}
	// A different command misses the cache.
	r := newRunner(t, Config{Command: exitWithContent + " ", CacheDir: cache})
	if res, _ := r.Run(context.Background(), paths[:1]); res[0].Cached {
		t.Error("cache hit for another command")
	}
}

// Exit 4 stops the search at once: with one job the next probe never
// starts; with two the running one is killed (it would write a marker).
func TestNoCompilerStopsAtOnce(t *testing.T) {
	for _, jobs := range []int{1, 2} {
		dir := t.TempDir()
		marker := filepath.Join(dir, "marker")
		four := write(t, dir, "four", "4")
		slow := write(t, dir, "slow", "slow")
		cmd := `if [ "$(cat {})" = slow ]; then sleep 30; touch ` + shq(marker) + `; exit 1; fi; exit 4`
		r := newRunner(t, Config{Command: cmd, Jobs: jobs})
		res, err := r.Run(context.Background(), []string{four, slow})
		if !errors.Is(err, ErrNoCompiler) {
			t.Fatalf("-j %d: err %v, want ErrNoCompiler", jobs, err)
		}
		if res[0].Outcome != NoCompiler || res[1].Outcome != 0 {
			t.Errorf("-j %d: outcomes %s %s", jobs, res[0].Outcome, res[1].Outcome)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("-j %d: the slow probe ran to its end", jobs)
		}
	}
	// Exit 4 is never cached: the compiler may be back next time.
	cache, dir := t.TempDir(), t.TempDir()
	p := write(t, dir, "c", "4")
	for range 2 {
		r := newRunner(t, Config{Command: exitWithContent, CacheDir: cache})
		res, _ := r.Run(context.Background(), []string{p})
		if res[0].Cached {
			t.Error("exit 4 answered from the cache")
		}
	}
}

// A probe past its timeout is killed with its whole process group (the
// grandchild too), counted as a timeout and not cached.
func TestTimeoutKillsGroup(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	p := write(t, dir, "c", "x")
	cmd := `sh -c 'echo $$ > ` + shq(pidFile) + `; exec sleep 60' & wait; : {}`
	for round := range 2 {
		r := newRunner(t, Config{Command: cmd, CacheDir: cache, Timeout: 300 * time.Millisecond})
		res, err := r.Run(context.Background(), []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Outcome != Timeout || res[0].Cached {
			t.Fatalf("round %d: %+v, want an uncached timeout", round, res[0])
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		gone := false
		for range 100 {
			if !alive(pid) {
				gone = true
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !gone {
			t.Errorf("round %d: grandchild %d still runs", round, pid)
		}
	}
}

// alive reports whether pid runs (not a zombie), from /proc.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// --max-probes counts started commands only; what is left is unanswered.
func TestBudget(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	a := write(t, dir, "a", "0")
	b := write(t, dir, "b", "1")
	r := newRunner(t, Config{Command: exitWithContent, CacheDir: cache, MaxProbes: 1})
	res, err := r.Run(context.Background(), []string{a, b})
	if !errors.Is(err, ErrBudget) || res[0].Outcome != Good || res[1].Outcome != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	// The cached answer is free: a is answered, b still has no budget.
	res, err = r.Run(context.Background(), []string{a, b})
	if !errors.Is(err, ErrBudget) || !res[0].Cached || res[1].Outcome != 0 {
		t.Fatalf("rerun: %v %+v", err, res)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, cmd := range []string{"", "  ", "true"} {
		if _, err := New(Config{Command: cmd}); err == nil {
			t.Errorf("%q accepted", cmd)
		}
	}
}

// A timed-out test gets SIGTERM first (so it can clean up, as anefix
// compile stops its compiler), and SIGKILL when it ignores it.
func TestTimeoutTermThenKill(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "c", "x")
	cleaned := filepath.Join(dir, "cleaned")
	pidFile := filepath.Join(dir, "pid")
	for _, c := range []struct {
		name, cmd string
		clean     bool
	}{
		{"handles TERM", `trap 'touch ` + shq(cleaned) + `; exit 1' TERM; sleep 60 & echo $! > ` + shq(pidFile) + `; wait; : {}`, true},
		{"ignores TERM", `trap '' TERM; sleep 60 & echo $! > ` + shq(pidFile) + `; wait; : {}`, false},
	} {
		os.Remove(cleaned)
		r := newRunner(t, Config{Command: c.cmd, Timeout: 300 * time.Millisecond})
		res, err := r.Run(context.Background(), []string{p})
		if err != nil || res[0].Outcome != Timeout {
			t.Fatalf("%s: %v %+v", c.name, err, res)
		}
		if _, err := os.Stat(cleaned); (err == nil) != c.clean {
			t.Errorf("%s: clean-up ran %v, want %v", c.name, err == nil, c.clean)
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		for i := 0; i < 100 && alive(pid); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if pid == 0 || alive(pid) {
			t.Errorf("%s: child %d still runs", c.name, pid)
		}
	}
}

// shq quotes a path the test itself made for a test command.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
