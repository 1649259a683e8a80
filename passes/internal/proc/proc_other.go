//go:build !unix

package proc

import (
	"errors"
	"os"
	"os/exec"
)

// Without process groups only the command itself is signalled.
func setGroup(cmd *exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, kill bool) {
	_ = cmd.Process.Kill()
}

func ExitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return -1
	}
	return ee.ExitCode()
}

func pipeHolders(*os.File) []int { return nil }
