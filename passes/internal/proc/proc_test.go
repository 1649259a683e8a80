package proc

import (
	"context"
	"github.com/anefix/anefix/graph/oracle"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileChild is testdata/search/standin-hostile-child.sh, a HOSTILE
// STAND-IN whose child keeps the command's output open.
func hostileChild(t *testing.T, mode, pidFile string) *exec.Cmd {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "search", "standin-hostile-child.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return exec.Command(p, p, mode, pidFile)
}

func pidIn(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// Wait returns when the command exits, whoever holds its output: a child
// left in the group that ignores SIGTERM is killed after Drain (Lingered);
// one that left the group is reported with its pid (Leaked), not waited
// for; the end of ctx stops the group (Signalled). Each within its bound
// (the fault this guards against waited the child's 30 s).
func TestWaitBounded(t *testing.T) {
	for _, c := range []struct {
		mode                        string
		cancel                      bool
		lingered, leaked, signalled bool
	}{
		{"ignore-term", false, true, false, false},
		{"setsid", false, true, true, false},
		{"setsid-hang", true, true, true, true},
	} {
		t.Run(c.mode, func(t *testing.T) {
			if strings.HasPrefix(c.mode, "setsid") {
				oracle.Tool(t, "setsid", "apt-get install util-linux")
			}
			pidFile := filepath.Join(t.TempDir(), "pid")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out strings.Builder
			start := time.Now()
			g, err := Start(ctx, hostileChild(t, c.mode, pidFile), Options{Output: &out, Drain: 200 * time.Millisecond, Grace: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if c.cancel {
				time.Sleep(300 * time.Millisecond)
				cancel()
			}
			ex := g.Wait()
			took := time.Since(start)
			pid := pidIn(t, pidFile)
			defer syscall.Kill(pid, syscall.SIGKILL) // ours: started by this test
			if took > 5*time.Second {
				t.Errorf("Wait took %s", took)
			}
			if ex.Lingered != c.lingered || ex.Leaked != c.leaked || ex.Signalled != c.signalled {
				t.Errorf("%+v, want lingered %v leaked %v signalled %v", ex, c.lingered, c.leaked, c.signalled)
			}
			if c.leaked && !slices.Contains(ex.Holders, pid) {
				t.Errorf("holders %v, want %d", ex.Holders, pid)
			}
			if !strings.Contains(out.String(), "holds this output") {
				t.Errorf("output %q", out.String())
			}
		})
	}
}
