package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildAnefix builds the binary once per test binary run.
func buildAnefix(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "anefix")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// completeAIModel fails unless dir is a whole .aimodel: its main.hash is
// the raw SHA-256 of its main.mlirb and it holds the input's metadata.json.
func completeAIModel(t *testing.T, dir, in string) {
	t.Helper()
	main, err := os.ReadFile(filepath.Join(dir, "main.mlirb"))
	if err != nil {
		t.Fatalf("output not complete: %v", err)
	}
	hash, err := os.ReadFile(filepath.Join(dir, "main.hash"))
	sum := sha256.Sum256(main)
	if err != nil || !bytes.Equal(hash, sum[:]) {
		t.Fatalf("output %s: main.hash does not match main.mlirb (%v)", dir, err)
	}
	want, _ := os.ReadFile(filepath.Join(in, "metadata.json"))
	if got, err := os.ReadFile(filepath.Join(dir, "metadata.json")); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("output %s: metadata.json differs from the input's (%v)", dir, err)
	}
}

func hiddenTemps(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if strings.Contains(de.Name(), ".anefix-") {
			out = append(out, de.Name())
		}
	}
	return out
}

// signalRuns is how many interrupted runs the signal tests make: a few
// hundred by default (the fault this guards against showed in about 1 of
// 100), ANEFIX_SIGNAL_RUNS to change it.
func signalRuns(t *testing.T, def int) int {
	if s := os.Getenv("ANEFIX_SIGNAL_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("ANEFIX_SIGNAL_RUNS=%q: %v", s, err)
		}
		return n
	}
	if testing.Short() {
		return def / 10
	}
	return def
}

// SIGINT or SIGTERM at a random moment of `convert --force` (or `rewrite
// --force --report`) over a previous directory output leaves a complete
// output (the old one or the new one), a whole report, and no hidden
// temporary. The delays are spread over a run's whole length (measured
// first), so some land in the commit's swap.
func TestSignalDuringForcedReplace(t *testing.T) {
	bin := buildAnefix(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.aimodel")
	if out, err := exec.Command(bin, "synth", "--arm", "D", "-o", in).CombinedOutput(); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name string
		args []string // after the input; the output is dir/out.aimodel
	}{
		{"convert", []string{"convert", in, "--force"}},
		{"rewrite", []string{"rewrite", in, "--force", "--report", filepath.Join(dir, "rep.json")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.aimodel")
			args := append(append([]string{}, tc.args...), "-o", out)
			start := time.Now()
			for range 5 {
				if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tc.name, err, b)
				}
			}
			run := time.Since(start) / 5
			runs := signalRuns(t, 300)
			codes := map[string]int{}
			for i := range runs {
				sig := syscall.SIGINT
				if i%2 == 1 {
					sig = syscall.SIGTERM
				}
				cmd := exec.Command(bin, args...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(rand.Int64N(int64(run) * 12 / 10)))
				cmd.Process.Signal(sig)
				err := cmd.Wait()
				var ee *exec.ExitError
				switch {
				case err == nil:
					codes["0"]++
				case errors.As(err, &ee) && ee.ExitCode() == 130 && sig == syscall.SIGINT,
					errors.As(err, &ee) && ee.ExitCode() == 143 && sig == syscall.SIGTERM:
					codes[strconv.Itoa(ee.ExitCode())]++
				case errors.As(err, &ee) && ee.ExitCode() == -1:
					codes["killed before the handler"]++ // the runtime was not up yet
				default:
					t.Fatalf("run %d (%v): %v\n%s", i, sig, err, stderr.Bytes())
				}
				completeAIModel(t, out, in)
				if rep := filepath.Join(dir, "rep.json"); tc.name == "rewrite" {
					if b, err := os.ReadFile(rep); err != nil || !json.Valid(b) {
						t.Fatalf("run %d: report %s not whole: %v", i, rep, err)
					}
				}
				if left := hiddenTemps(t, dir); len(left) > 0 {
					t.Fatalf("run %d (%v after a random delay, %v): left %q\n%s", i, sig, err, left, stderr.Bytes())
				}
			}
			t.Logf("%d runs of about %v each: exits %v", runs, run, codes)
		})
	}
}

// SIGKILL at a random moment may leave a hidden temporary (nothing can
// catch it); the next run on the same output says so and removes it, and
// the output is complete throughout.
func TestSIGKILLLeftoversRemovedByNextRun(t *testing.T) {
	bin := buildAnefix(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.aimodel")
	if out, err := exec.Command(bin, "synth", "--arm", "D", "-o", in).CombinedOutput(); err != nil {
		t.Fatalf("synth: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out.aimodel")
	args := []string{"convert", in, "-o", out, "--force"}
	start := time.Now()
	for range 5 {
		if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("convert: %v\n%s", err, b)
		}
	}
	run := time.Since(start) / 5
	runs := signalRuns(t, 100)
	found := 0
	for i := range runs {
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.Int64N(int64(run) * 12 / 10)))
		cmd.Process.Kill()
		cmd.Wait()
		completeAIModel(t, out, in)
		left := hiddenTemps(t, dir)
		b, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("run after kill %d: %v\n%s", i, err, b)
		}
		for _, l := range left {
			found++
			if !strings.Contains(string(b), "removed the stale temporary "+filepath.Join(dir, l)) {
				t.Fatalf("run after kill %d left %s unreported:\n%s", i, l, b)
			}
		}
		if again := hiddenTemps(t, dir); len(again) > 0 {
			t.Fatalf("run after kill %d: still there: %q\n%s", i, again, b)
		}
		completeAIModel(t, out, in)
	}
	t.Logf("%d runs of about %v each killed at random; %d left a temporary the next run removed", runs, run, found)
}
