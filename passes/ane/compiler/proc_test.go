package compiler

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anefix/anefix/passes/internal/proc"
)

// hostile is testdata/compiler/hostile-stderr-child.sh, a HOSTILE STAND-IN
// whose child keeps stderr open.
func hostile(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "compiler", "hostile-stderr-child.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// pidsOf reads the pids the stand-in wrote.
func pidsOf(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, s := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// waitGone waits up to 2 s for the processes to be gone.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for _, p := range pids {
		for alive(p) {
			if time.Now().After(deadline) {
				t.Errorf("process %d is still running", p)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// Before the process group, --timeout killed the shell only and Run then
// waited for the child to close stderr (600 s here): Run must return soon
// after the timeout, with the whole tree gone.
func TestTimeoutKillsGroup(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	for _, mode := range []string{"hang", "exit"} {
		t.Run(mode, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			t.Setenv("HOSTILE_PIDS", pids)
			t.Setenv("HOSTILE_MODE", mode)
			o := DefaultOptions()
			o.Compiler = hostile(t)
			o.Timeout = 300 * time.Millisecond
			type ret struct {
				res *Result
				err error
			}
			done := make(chan ret, 1)
			start := time.Now()
			go func() {
				r, err := Run(context.Background(), o, armA)
				done <- ret{r, err}
			}()
			var r ret
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Run still waiting 10 s after a 300 ms --timeout")
			}
			if took := time.Since(start); took > o.Timeout+proc.DefaultDrain+proc.KillDrain+time.Second {
				t.Errorf("Run took %s", took)
			}
			switch mode {
			case "hang":
				if r.err == nil || !strings.Contains(r.err.Error(), "--timeout") {
					t.Errorf("err = %v", r.err)
				}
			case "exit": // exits 0 at once; its child must not outlive it
				if r.err != nil || r.res.ExitCode != 0 || !strings.Contains(string(r.res.Stderr), "holds stderr") {
					t.Errorf("res %+v, err %v", r.res, r.err)
				}
			}
			waitGone(t, pidsOf(t, pids))
		})
	}
}
