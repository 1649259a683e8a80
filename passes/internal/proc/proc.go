// Package proc runs one child command in a process group of its own, with
// its stdout and stderr on one pipe that anefix owns, for the two places
// that run other programs: passes/ane/compiler (coreai-build) and
// passes/probe (a user's test command for bisect and reduce).
//
// What it bounds, and why: exec.Cmd.Wait with a Writer that is not a file
// waits until every process holding the pipe closes it, so a background
// child of the command that keeps stdout or stderr open held the caller
// hostage for as long as it lived. Here Wait returns when the command
// itself exits; what is left of its group then gets SIGTERM, the pipe is
// read for at most Drain more, then the group gets SIGKILL and the pipe is
// closed after at most KillDrain. A process that left the group (setsid,
// or setpgid) cannot be killed through the group: it is not waited for
// past those bounds, and when it still holds the pipe Wait reports it
// (Exit.Leaked, with the pids found holding the pipe where /proc shows
// them). One that also closed its stdout and stderr cannot be seen at all.
package proc

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// DefaultDrain is how long the pipe is read after the command exits, while
// what is left of its group has had SIGTERM.
const DefaultDrain = 2 * time.Second

// KillDrain is how long the pipe is read after the group's SIGKILL; a
// holder still there then is outside the group.
const KillDrain = 500 * time.Millisecond

// Options say how a command runs.
type Options struct {
	// Output receives stdout and stderr (nil: read and dropped; the pipe
	// is still used, so that a process left holding it is seen).
	Output io.Writer
	// Drain bounds the read after the command exits (0: DefaultDrain).
	Drain time.Duration
	// Grace is how long the group has after SIGTERM, when ctx ends, before
	// SIGKILL (0: SIGKILL at once).
	Grace time.Duration
}

// Group is a started command.
type Group struct {
	cmd    *exec.Cmd
	opts   Options
	pr     *os.File
	start  time.Time
	exited chan struct{} // closed when the command has exited and been reaped
	copied chan struct{} // closed when the copy from the pipe ended

	mu        sync.Mutex
	reaped    bool
	signalled bool
	waitErr   error
	ran       time.Duration
}

// Exit is how the command ended.
type Exit struct {
	// Err is exec.Cmd.Wait's error (an *exec.ExitError for a non-zero
	// status or a death by signal).
	Err error
	// Ran is the time from start to the command's exit (not the drain).
	Ran time.Duration
	// Signalled: Term, Kill or the end of ctx sent a signal to the group
	// while the command still ran, so its status may be that signal's and
	// not an answer of its own.
	Signalled bool
	// Lingered: the pipe was still open Drain after the command exited and
	// its group got SIGTERM (a process left in the group that did not end
	// on SIGTERM, killed then).
	Lingered bool
	// Leaked: the pipe was still open after the group was killed, so a
	// process outside the group (setsid) holds it and still runs.
	Leaked bool
	// Holders are the pids found holding the pipe then (Linux, from
	// /proc; empty where that cannot be read).
	Holders []int
}

// Start starts cmd (whose Stdout, Stderr and SysProcAttr must be unset)
// in a new process group. When ctx ends before the command exits, the
// group gets SIGTERM and, Grace later, SIGKILL.
func Start(ctx context.Context, cmd *exec.Cmd, o Options) (*Group, error) {
	if cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, errors.New("proc: Stdout and Stderr must be unset")
	}
	if o.Drain <= 0 {
		o.Drain = DefaultDrain
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	setGroup(cmd)
	g := &Group{cmd: cmd, opts: o, pr: pr, exited: make(chan struct{}), copied: make(chan struct{}), start: time.Now()}
	err = cmd.Start()
	pw.Close() // the child holds its own copy
	if err != nil {
		pr.Close()
		return nil, err
	}
	out := o.Output
	if out == nil {
		out = io.Discard
	}
	go func() {
		io.Copy(out, pr)
		close(g.copied)
	}()
	go func() {
		// Stdout and Stderr are files, so Wait returns when the command
		// exits, whoever else holds the pipe.
		err := cmd.Wait()
		g.mu.Lock()
		g.reaped, g.waitErr, g.ran = true, err, time.Since(g.start)
		g.mu.Unlock()
		close(g.exited)
	}()
	if ctx.Done() != nil {
		go func() {
			select {
			case <-g.exited:
			case <-ctx.Done():
				g.Stop(o.Grace)
			}
		}()
	}
	return g, nil
}

// Pid is the command's pid, which is also its process group's id.
func (g *Group) Pid() int { return g.cmd.Process.Pid }

// Exited is closed when the command has exited.
func (g *Group) Exited() <-chan struct{} { return g.exited }

// Term sends SIGTERM to the group.
func (g *Group) Term() { g.signal(false) }

// Kill sends SIGKILL to the group.
func (g *Group) Kill() { g.signal(true) }

// signal signals the group and records it while the command runs. Once
// the command is reaped its pid may be reused; the group id stays
// reserved only while a member lives, so after that only the clean-up in
// Wait signals it, once, right away.
func (g *Group) signal(kill bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reaped {
		return
	}
	g.signalled = true
	signalGroup(g.cmd, kill)
}

// Stop sends SIGTERM, waits up to grace for the command to exit, then
// sends SIGKILL; it returns once the command has exited.
func (g *Group) Stop(grace time.Duration) {
	if grace > 0 {
		g.Term()
		select {
		case <-g.exited:
			return
		case <-time.After(grace):
		}
	}
	g.Kill()
	<-g.exited
}

// Wait waits for the command to exit, then ends what is left of its group
// and the pipe within the bounds in the package comment.
func (g *Group) Wait() Exit {
	<-g.exited
	g.mu.Lock()
	ex := Exit{Err: g.waitErr, Ran: g.ran, Signalled: g.signalled}
	g.mu.Unlock()
	signalGroup(g.cmd, false) // what the command left in its group
	select {
	case <-g.copied:
	case <-time.After(g.opts.Drain):
		ex.Lingered = true
	}
	signalGroup(g.cmd, true)
	select {
	case <-g.copied:
	case <-time.After(KillDrain):
		ex.Leaked = true
		ex.Holders = pipeHolders(g.pr)
	}
	g.pr.Close() // ends the copy; a writer left gets EPIPE
	<-g.copied
	return ex
}
