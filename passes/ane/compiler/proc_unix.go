//go:build unix

package compiler

import (
	"os/exec"
	"syscall"
)

// startGroup makes cmd the leader of a new process group, killed as a
// whole when its context ends.
func startGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
}

// killGroup sends SIGKILL to process group pg (no error when it is gone).
func killGroup(pg int) error {
	if err := syscall.Kill(-pg, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
