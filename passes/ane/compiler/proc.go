package compiler

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sort"
	"sync"

	"github.com/anefix/anefix/passes/internal/proc"
)

// The compiler runs in its own process group, and every compiler and
// temporary directory anefix has open is registered here, so that a
// timeout kills the whole group and a signal (Stop) can kill every group
// and remove every temporary before the process exits. Without the group,
// killing the direct child left its children holding stderr open and
// anefix waiting on the pipe.
var reg = struct {
	sync.Mutex
	stopping bool
	temps    map[string]bool
	groups   map[*proc.Group]bool
}{temps: map[string]bool{}, groups: map[*proc.Group]bool{}}

// errStopping is returned once Stop has run: nothing new is started.
var errStopping = errors.New("stopping on a signal; nothing new is started")

// tempDir creates a temporary directory that Stop removes.
func tempDir(prefix string) (string, error) {
	reg.Lock()
	defer reg.Unlock()
	if reg.stopping {
		return "", errStopping
	}
	d, err := os.MkdirTemp("", prefix)
	if err == nil {
		reg.temps[d] = true
	}
	return d, err
}

// removeTemp removes a directory made by tempDir.
func removeTemp(d string) {
	reg.Lock()
	delete(reg.temps, d)
	reg.Unlock()
	os.RemoveAll(d)
}

// Interrupt kills every running compiler's process group and makes later
// Runs and TempDirs fail (a Run in progress returns an error at once). The
// signal handler of cmd/anefix calls it first, then lets the command
// unwind, then calls Stop. It reports whether a compile was under way
// (a compiler running or a temporary directory present).
func Interrupt() bool {
	reg.Lock()
	defer reg.Unlock()
	reg.stopping = true
	for g := range reg.groups {
		g.Kill()
	}
	return len(reg.groups)+len(reg.temps) > 0
}

// Stop does what Interrupt does and removes every temporary directory made
// by tempDir that is still there, returning those removed, sorted.
func Stop() []string {
	Interrupt()
	reg.Lock()
	defer reg.Unlock()
	var removed []string
	for d := range reg.temps {
		os.RemoveAll(d)
		removed = append(removed, d)
	}
	reg.temps = map[string]bool{}
	sort.Strings(removed)
	return removed
}

// runTracked runs cmd in its own process group with its output copied to
// w (passes/internal/proc): it returns when the compiler exits (or, when
// ctx ends first, once SIGKILL to the group made it exit), after what it
// left in its group was killed and the pipe drained for at most
// proc.DefaultDrain + proc.KillDrain.
func runTracked(ctx context.Context, cmd *exec.Cmd, w io.Writer) error {
	reg.Lock()
	if reg.stopping {
		reg.Unlock()
		return errStopping
	}
	g, err := proc.Start(ctx, cmd, proc.Options{Output: w})
	if err != nil {
		reg.Unlock()
		return err
	}
	reg.groups[g] = true
	reg.Unlock()

	ex := g.Wait()
	reg.Lock()
	delete(reg.groups, g)
	stopping := reg.stopping
	reg.Unlock()
	if stopping {
		return errStopping
	}
	return ex.Err
}
