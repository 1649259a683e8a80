package main

import (
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGINT or SIGTERM while bisect waits for a test command: anefix exits
// 128+signal, the candidates' temporary directory is gone from TMPDIR and
// the test command (in its own process group) is killed.
func TestBisectSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	fixed := fixedArmA(t)
	for _, c := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		tmp := t.TempDir()
		tmpdir := filepath.Join(tmp, "tmp")
		if err := os.Mkdir(tmpdir, 0o755); err != nil {
			t.Fatal(err)
		}
		pidFile := filepath.Join(tmp, "pid")
		test := "echo $$ > '" + pidFile + "'; exec sleep 60; : {}"
		cmd := exec.Command(os.Args[0], "bisect", fixed, "--test", test, "--no-cache")
		cmd.Env = append(os.Environ(), envRunMain+"=1", "TMPDIR="+tmpdir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var pid int
		for range 400 {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if pid == 0 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the test command never started")
		}
		cmd.Process.Signal(c.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v: anefix still running 10 s after the signal", c.sig)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.want {
			t.Errorf("%v: exit %v, want %d", c.sig, err, c.want)
		}
		if ents, _ := os.ReadDir(tmpdir); len(ents) > 0 {
			t.Errorf("%v: left %d entries in TMPDIR (%s)", c.sig, len(ents), ents[0].Name())
		}
		deadline := time.Now().Add(3 * time.Second)
		for procAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if procAlive(pid) {
			t.Errorf("%v: test command %d still running", c.sig, pid)
			syscall.Kill(pid, syscall.SIGKILL) // ours: started by this test
		}
	}
}

// SIGINT or SIGTERM at a random moment of `bisect` and `reduce` runs that
// share one cache never leaves an answer the test did not give: every entry
// is the stand-in's own exit status (0 or 1), and a run after the loop,
// answered from that cache, reports what a run with a fresh cache reports.
// Before, the killed test's status (bad 143) was cached and reruns
// answered from it (27 of 30 runs in the loop).
func TestSearchSignalsKeepCacheClean(t *testing.T) {
	bin := buildAnefix(t)
	in := "../../testdata/passes/strip-fp32-casts.mlir"
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args func(cache string) []string
	}{
		// The candidate passes when no f32 is left (islands=all).
		{"bisect", func(cache string) []string {
			return []string{"bisect", in, "--test", markProbe + "sleep 0.02; ! grep -q f32 {}", "--cache", cache}
		}},
		// "Still reproduces" while an f32 remains.
		{"reduce", func(cache string) []string {
			return []string{"reduce", in, "--test", markProbe + "sleep 0.02; grep -q f32 {}", "--cache", cache, "-o", filepath.Join(dir, "small.mlir"), "--force"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			clean, err := exec.Command(bin, tc.args(t.TempDir())...).Output()
			if err != nil {
				t.Fatalf("clean run: %v", err)
			}
			start := time.Now()
			if err := exec.Command(bin, tc.args(t.TempDir())...).Run(); err != nil {
				t.Fatal(err)
			}
			length := time.Since(start)
			// Runs go on until a quarter of the wanted count were stopped
			// mid-run (a run answered from the cache can end before its
			// signal, more often on a loaded machine), at most 4× over.
			runs := signalRuns(t, 100)
			rng := rand.New(rand.NewPCG(3, uint64(len(tc.name))))
			stopped, i := 0, 0
			for ; i < runs || stopped < runs/4 && i < 4*runs; i++ {
				// A fresh cache now and then, so that early probes are
				// signalled again, not answered from the cache.
				if i%10 == 0 {
					cache = t.TempDir()
				}
				sig := syscall.SIGINT
				if i%2 == 1 {
					sig = syscall.SIGTERM
				}
				// Half the runs are signalled at a random moment of the
				// whole run (startup and cache answers included); the other
				// half at a random moment after a probe has started, so the
				// count of runs stopped mid-probe does not depend on how
				// slowly a loaded machine starts processes.
				mark := filepath.Join(dir, "mark"+strconv.Itoa(i))
				cmd := exec.Command(bin, tc.args(cache)...)
				cmd.Env = append(os.Environ(), "ANEFIX_TEST_MARK="+mark)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				if i%4 >= 2 {
					waitForFile(mark, done, 10*time.Second)
					time.Sleep(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
				} else {
					time.Sleep(time.Duration(rng.Int64N(int64(length))))
				}
				cmd.Process.Signal(sig)
				err := <-done
				var ee *exec.ExitError
				switch {
				case err == nil:
				case errors.As(err, &ee) && (ee.ExitCode() == 128+int(sig)):
					stopped++
				case errors.As(err, &ee) && ee.ExitCode() == -1:
					// killed before the runtime's handler was up
				default:
					t.Fatalf("run %d: %v", i, err)
				}
				checkCacheEntries(t, cache, i)
			}
			t.Logf("%d runs, %d stopped by the signal", i, stopped)
			if stopped < runs/4 {
				t.Errorf("only %d of %d runs were stopped by the signal", stopped, i)
			}
			// The last cache, filled by signalled runs, answers as a clean run.
			again, err := exec.Command(bin, tc.args(cache)...).Output()
			if err != nil {
				t.Fatalf("rerun: %v", err)
			}
			if a, b := resultLine(string(clean)), resultLine(string(again)); a != b {
				t.Errorf("after the signals: %q, a clean run: %q", b, a)
			}
		})
	}
}

// markProbe makes a test command touch $ANEFIX_TEST_MARK when it starts (an
// environment variable, so the command and its cache key stay the same).
const markProbe = `[ -z "$ANEFIX_TEST_MARK" ] || : > "$ANEFIX_TEST_MARK"; `

// waitForFile returns once p exists, the process has ended (its Wait result
// is put back on done) or max has passed.
func waitForFile(p string, done chan error, max time.Duration) {
	for end := time.Now().Add(max); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return
		}
		select {
		case err := <-done:
			done <- err
			return
		default:
		}
	}
}

// checkCacheEntries fails on an entry that does not hold exit 0 or 1.
func checkCacheEntries(t *testing.T, cache string, run int) {
	t.Helper()
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b))
		if strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("run %d: a temporary %s was left in the cache", run, d.Name())
			return nil
		}
		if len(f) != 5 || f[3] != "0" && f[3] != "1" {
			t.Fatalf("run %d: cache entry %s holds %q, not the test's own answer", run, d.Name(), b)
		}
		return nil
	})
}

// resultLine is the "result: …" line of a text report.
func resultLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "result: ") {
			return l
		}
	}
	return ""
}
