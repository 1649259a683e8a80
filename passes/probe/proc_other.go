//go:build !unix

package probe

import "os/exec"

// Without process groups a timeout kills the shell only.
func setGroup(cmd *exec.Cmd) {}

func termGroup(cmd *exec.Cmd) { killGroup(cmd) }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func signalNumber(ee *exec.ExitError) int { return 0 }
