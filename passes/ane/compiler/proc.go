package compiler

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"
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
	groups   map[int]bool
}{temps: map[string]bool{}, groups: map[int]bool{}}

// errStopping is returned once Stop has run: nothing new is started.
var errStopping = errors.New("stopping on a signal; nothing new is started")

// pipeGrace is how long Run reads the compiler's output after its group
// was killed; past it the pipe is closed even if an escaped process (one
// that left the group) still holds it.
const pipeGrace = 2 * time.Second

// TempDir creates a temporary directory that Stop removes.
func TempDir(prefix string) (string, error) {
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

// RemoveTemp removes a directory made by TempDir.
func RemoveTemp(d string) {
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
	for pg := range reg.groups {
		killGroup(pg)
	}
	return len(reg.groups)+len(reg.temps) > 0
}

// Stop does what Interrupt does and removes every temporary directory made
// by TempDir that is still there, returning those removed, sorted.
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

// runTracked runs cmd (its Stdout and Stderr must be the same writer, or
// nil) in its own process group, with its output copied to w through a
// pipe anefix owns: Wait then returns when the compiler exits, the group is
// killed at once (so nothing it started lingers or holds the pipe), and
// the copy is given pipeGrace to drain.
func runTracked(cmd *exec.Cmd, w io.Writer) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	startGroup(cmd)
	reg.Lock()
	if reg.stopping {
		reg.Unlock()
		pr.Close()
		pw.Close()
		return errStopping
	}
	err = cmd.Start()
	pw.Close() // the child holds its own copy
	if err != nil {
		reg.Unlock()
		pr.Close()
		return err
	}
	pg := cmd.Process.Pid
	reg.groups[pg] = true
	reg.Unlock()

	copied := make(chan struct{})
	go func() {
		io.Copy(w, pr)
		close(copied)
	}()
	waitErr := cmd.Wait()
	reg.Lock()
	delete(reg.groups, pg)
	stopping := reg.stopping
	reg.Unlock()
	killGroup(pg)
	select {
	case <-copied:
	case <-time.After(pipeGrace):
	}
	pr.Close()
	<-copied
	if stopping {
		return errStopping
	}
	return waitErr
}
