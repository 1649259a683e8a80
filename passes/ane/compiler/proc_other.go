//go:build !unix

package compiler

import "os/exec"

// startGroup: without process groups only the direct child is killed.
func startGroup(cmd *exec.Cmd) {}

func killGroup(pg int) error { return nil }
