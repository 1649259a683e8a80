package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGINT or SIGTERM while bisect waits for a test command: anefix exits
// 128+signal, the candidates' temporary directory is gone from TMPDIR and
// the test command (in its own process group) is killed.
func TestBisectSignal(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	fixed := fixedArmA(t)
	for _, c := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		tmp := t.TempDir()
		tmpdir := filepath.Join(tmp, "tmp")
		if err := os.Mkdir(tmpdir, 0o755); err != nil {
			t.Fatal(err)
		}
		pidFile := filepath.Join(tmp, "pid")
		test := "echo $$ > '" + pidFile + "'; exec sleep 60; : {}"
		cmd := exec.Command(os.Args[0], "bisect", fixed, "--test", test, "--no-cache")
		cmd.Env = append(os.Environ(), envRunMain+"=1", "TMPDIR="+tmpdir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var pid int
		for range 400 {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if pid == 0 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the test command never started")
		}
		cmd.Process.Signal(c.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v: anefix still running 10 s after the signal", c.sig)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.want {
			t.Errorf("%v: exit %v, want %d", c.sig, err, c.want)
		}
		if ents, _ := os.ReadDir(tmpdir); len(ents) > 0 {
			t.Errorf("%v: left %d entries in TMPDIR (%s)", c.sig, len(ents), ents[0].Name())
		}
		deadline := time.Now().Add(3 * time.Second)
		for procAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if procAlive(pid) {
			t.Errorf("%v: test command %d still running", c.sig, pid)
			syscall.Kill(pid, syscall.SIGKILL) // ours: started by this test
		}
	}
}
