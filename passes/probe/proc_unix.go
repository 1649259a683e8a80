//go:build unix

package probe

import (
	"os/exec"
	"syscall"
)

// setGroup makes the test command the leader of a new process group, so a
// timeout kills everything it started (a compiler it runs, too).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func termGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func signalNumber(ee *exec.ExitError) int {
	var ws syscall.WaitStatus
	if st, ok := ee.Sys().(syscall.WaitStatus); ok {
		ws = st
	} else {
		return 0
	}
	if ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}
