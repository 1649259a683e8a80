package probe

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/passes/internal/proc"
)

// hostileChild is testdata/search/standin-hostile-child.sh, a HOSTILE
// STAND-IN test whose child keeps the test's output open.
func hostileChild(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "search", "standin-hostile-child.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readPid waits for the stand-in's pid file.
func readPid(t *testing.T, file string) int {
	t.Helper()
	for range 200 {
		if b, err := os.ReadFile(file); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// runBounded runs r on paths and fails the test if Run has not returned
// within limit (the fault this guards against made it wait 30 s).
func runBounded(t *testing.T, r *Runner, paths []string, limit time.Duration) []Result {
	t.Helper()
	type ret struct {
		res []Result
		err error
	}
	done := make(chan ret, 1)
	go func() {
		res, err := r.Run(context.Background(), paths)
		done <- ret{res, err}
	}()
	select {
	case x := <-done:
		if x.err != nil {
			t.Fatal(x.err)
		}
		return x.res
	case <-time.After(limit):
		t.Fatalf("Run still waiting after %s", limit)
	}
	return nil
}

type warnings struct {
	mu  sync.Mutex
	all []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.all = append(w.all, s); w.mu.Unlock() }
func (w *warnings) text() string { w.mu.Lock(); defer w.mu.Unlock(); return strings.Join(w.all, "\n") }

// A test that exits at once, leaving a child that ignores SIGTERM holding
// its output, is answered by its own exit status, not turned into a
// timeout: before, Run waited for the pipe, so with a 2 s timeout every
// such probe was a timeout. The child is killed with the group.
func TestChildHoldingOutputIgnoresTerm(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	p := write(t, dir, "c", "x")
	pidFile := filepath.Join(dir, "pid")
	var w warnings
	for _, out := range []bool{false, true} {
		os.Remove(pidFile)
		cfg := Config{Command: hostileChild(t) + " {} ignore-term " + shq(pidFile), Timeout: 2 * time.Second, Warn: w.add}
		var got strings.Builder
		if out {
			cfg.Output, cfg.CacheDir = &syncWriter{w: &got}, cache
		}
		r := newRunner(t, cfg)
		res := runBounded(t, r, []string{p}, 10*time.Second)
		if res[0].Outcome != Good || res[0].Cached {
			t.Fatalf("output %v: %+v, want good (the test's own exit 0)", out, res[0])
		}
		if out && !strings.Contains(got.String(), "holds this output") {
			t.Errorf("output not passed through: %q", got.String())
		}
		if pid := readPid(t, pidFile); !gone(pid) {
			t.Errorf("child %d outlived its test", pid)
			syscall.Kill(pid, syscall.SIGKILL) // ours: started by this test
		}
	}
	if !strings.Contains(w.text(), "did not end on SIGTERM") {
		t.Errorf("no warning that a child held the output: %q", w.text())
	}
}

// A child that left the process group (setsid) cannot be killed through
// it: the timeout is still honoured (before, Run waited until the child
// ended, 30 s), the test's own answer is taken when it exits by itself,
// and the leak is reported with the child's pid.
func TestSetsidChildIsReported(t *testing.T) {
	oracle.Tool(t, "setsid", "apt-get install util-linux")
	dir := t.TempDir()
	p := write(t, dir, "c", "x")
	for _, c := range []struct {
		mode string
		want Outcome
	}{{"setsid-hang", Timeout}, {"setsid", Bad}} {
		t.Run(c.mode, func(t *testing.T) {
			pidFile := filepath.Join(dir, c.mode)
			var w warnings
			// The timeout leaves the stand-in time to start its child and
			// write the pid on a loaded machine (300 ms did not, at load
			// 34); only setsid-hang waits for it.
			const timeout = 3 * time.Second
			r := newRunner(t, Config{Command: hostileChild(t) + " {} " + c.mode + " " + shq(pidFile) + " 1", Timeout: timeout, Warn: w.add})
			res := runBounded(t, r, []string{p}, timeout+stopGrace+proc.DefaultDrain+proc.KillDrain+3*time.Second)
			pid := readPid(t, pidFile)
			defer syscall.Kill(pid, syscall.SIGKILL) // ours: started by this test
			if res[0].Outcome != c.want {
				t.Errorf("%+v, want %s", res[0], c.want)
			}
			if msg := w.text(); !strings.Contains(msg, "outside its process group") || !strings.Contains(msg, strconv.Itoa(pid)) {
				t.Errorf("leak of %d not reported: %q", pid, msg)
			}
		})
	}
}

// gone waits up to 2 s for pid to end.
func gone(pid int) bool {
	for range 100 {
		if !alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
