package probe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killAllRuns is how many interrupted probes TestKillAllCachesNoAnswer
// makes (ANEFIX_SIGNAL_RUNS changes it; -short runs a tenth).
func killAllRuns(t *testing.T) int {
	if s := os.Getenv("ANEFIX_SIGNAL_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if testing.Short() {
		return 30
	}
	return 300
}

// KillAll (what the CLI's SIGINT/SIGTERM handler calls) at a random moment
// of a probe, with one cache shared by every run: the only entry ever
// written is the test's own answer ("bad 1"), never the status the signal
// gave it. Before, the killed test's exit 143 was cached as "bad" and a
// rerun answered from it.
func TestKillAllCachesNoAnswer(t *testing.T) {
	t.Cleanup(resetStopping)
	dir, cache := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	runs := killAllRuns(t)
	answered, interrupted := 0, 0
	for i := range runs {
		// Three regimes, so both sides of the race are exercised whatever
		// the machine's load (a load-dependent mix made this test flaky):
		// i%3 == 0, the candidate holds 0-30 ms and the signal comes at
		// 0-40 ms (the race itself); i%3 == 1, the candidate holds 10 s,
		// so the signal interrupts it; i%3 == 2, the signal comes only
		// after Run has answered.
		delay := fmt.Sprintf("0.%03d", rng.IntN(30))
		if i%3 == 1 {
			delay = "10"
		}
		p := write(t, dir, fmt.Sprintf("c%d", i), delay)
		r := newRunner(t, Config{Command: `sleep "$(cat {})"; exit 1`, CacheDir: cache})
		done := make(chan []Result, 1)
		go func() {
			res, _ := r.Run(context.Background(), []string{p})
			done <- res
		}()
		var res []Result
		if i%3 == 2 {
			select {
			case res = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("run %d: no answer in 10 s from a candidate that holds %s s", i, delay)
			}
			KillAll()
		} else {
			time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
			KillAll()
			select {
			case res = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("run %d: Run still waiting 10 s after KillAll", i)
			}
		}
		resetStopping()
		b, err := os.ReadFile(r.cachePath(res[0].Key))
		switch {
		case err == nil && string(b) != formatEntry(Result{Key: res[0].Key, Outcome: Bad, ExitCode: 1, Duration: res[0].Duration}):
			t.Fatalf("run %d: cached %q; the test's own answer is bad, exit 1 (result %+v)", i, b, res[0])
		case err == nil:
			answered++
		default:
			interrupted++
			if res[0].Outcome == Bad && res[0].ExitCode == 1 && res[0].Uncached == "" {
				t.Errorf("run %d: answered on its own but not cached", i)
			}
		}
	}
	t.Logf("%d runs: %d answered on their own and cached, %d interrupted (nothing cached)", runs, answered, interrupted)
	if interrupted < runs/10 || answered < runs/10 {
		t.Errorf("the signal should land both before and after the answer: %d answered, %d interrupted", answered, interrupted)
	}
}

// Answers that say nothing about the candidate are never cached: a command
// the shell cannot find (127) or run (126), and a death by SIGHUP, SIGINT,
// SIGKILL or SIGTERM; a crash of the test's program (139) is an answer.
func TestUncacheableExits(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "c", "x")
	noexec := write(t, dir, "noexec.sh", "#!/bin/sh\nexit 0\n")
	for _, c := range []struct {
		name, cmd string
		code      int
		cached    bool
	}{
		{"not found", "anefix-no-such-command-for-tests {}", 127, false},
		{"not executable", shq(noexec) + " {}", 126, false},
		{"SIGTERM", "kill -TERM $$; : {}", 143, false},
		{"exit 130", "exit 130; : {}", 130, false},
		{"SIGKILL", "kill -KILL $$; : {}", 137, false},
		{"crash", "exit 139; : {}", 139, true},
		{"bad", "exit 1; : {}", 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w warnings
			cache := t.TempDir()
			for round := range 2 {
				r := newRunner(t, Config{Command: c.cmd, CacheDir: cache, Warn: w.add})
				res, err := r.Run(context.Background(), []string{p})
				if err != nil {
					t.Fatal(err)
				}
				if res[0].ExitCode != c.code || res[0].Outcome != Bad {
					t.Fatalf("%+v, want bad exit %d", res[0], c.code)
				}
				if res[0].Cached != (c.cached && round == 1) {
					t.Errorf("round %d: cached %v", round, res[0].Cached)
				}
			}
			if c.code == 127 && !strings.Contains(w.text(), "could not find or run") {
				t.Errorf("exit 127 not reported: %q", w.text())
			}
		})
	}
}

// A hostile cache directory: an entry that is a link to /dev/zero, a FIFO,
// a 100 MB file, a directory, a link to a valid entry, an entry of the
// earlier format or of another key. Each is a miss (the test runs), said
// once, read within a bounded time and without reading the entry whole;
// the answer then replaces a regular file, and leaves a link (never
// written through), a FIFO or a directory alone, uncached: the rule of
// every file anefix writes (bundle.CheckReplaceFile).
func TestHostileCacheEntries(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "c", "x")
	const cmd = "exit 1; : {}"
	key, err := key(p, cmd)
	if err != nil {
		t.Fatal(err)
	}
	valid := formatEntry(Result{Key: key, Outcome: Good, ExitCode: 0, Duration: time.Second})
	for _, c := range []struct {
		name     string
		make     func(entry string) error
		replaced bool
	}{
		{"link to /dev/zero", func(e string) error { return os.Symlink("/dev/zero", e) }, false},
		{"FIFO", func(e string) error { return syscall.Mkfifo(e, 0o644) }, false},
		{"100 MB", func(e string) error {
			f, err := os.Create(e)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := f.WriteString(valid); err != nil {
				return err
			}
			return f.Truncate(100 << 20)
		}, true},
		{"directory", func(e string) error { return os.Mkdir(e, 0o755) }, false},
		{"link to a valid entry", func(e string) error {
			return os.Symlink(write(t, dir, "elsewhere", valid), e)
		}, false},
		{"format 1", func(e string) error { return os.WriteFile(e, []byte("bad 143 1.000\n"), 0o644) }, true},
		{"another key", func(e string) error {
			return os.WriteFile(e, []byte(strings.Replace(valid, key, strings.Repeat("0", len(key)), 1)), 0o644)
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w warnings
			r := newRunner(t, Config{Command: cmd, CacheDir: t.TempDir(), Warn: w.add})
			entry := r.cachePath(key)
			if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := c.make(entry); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			done := make(chan bool, 1)
			go func() {
				_, ok := r.lookup(key)
				done <- ok
			}()
			select {
			case ok := <-done:
				if ok {
					t.Fatal("answered from a hostile entry")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("reading the entry still blocks after 5 s")
			}
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("reading the entry allocated %d bytes", grew)
			}
			if !strings.Contains(w.text(), "cache entry ignored") {
				t.Errorf("not said: %q", w.text())
			}
			res := runBounded(t, r, []string{p}, 10*time.Second)
			if res[0].Cached || res[0].Outcome != Bad {
				t.Fatalf("%+v, want the test run (bad)", res[0])
			}
			again := runBounded(t, r, []string{p}, 10*time.Second)
			if again[0].Cached != c.replaced {
				t.Errorf("after the run: cached %v, want %v", again[0].Cached, c.replaced)
			}
			if c.name == "link to a valid entry" {
				if b, _ := os.ReadFile(filepath.Join(dir, "elsewhere")); string(b) != valid {
					t.Error("the link's target was written through")
				}
			}
		})
	}
}
