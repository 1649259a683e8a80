package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// envRunMain makes the test binary run anefix's main instead of the tests,
// so that signal tests send real signals to a real anefix process.
const envRunMain = "ANEFIX_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		os.Args = append([]string{"anefix"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

// procAlive reports whether pid is a live (not zombie) process (Linux /proc).
func procAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestCompileSignals sends SIGINT or SIGTERM to `anefix compile` at a
// random moment (before, while and after it writes the temporary .aimodel
// and starts the compiler), a few hundred times, with the hostile stand-in
// testdata/compiler/hostile-stderr-child.sh as the compiler (it never
// finishes; its child holds stderr). After each exit no anefix-*
// temporary may be left in TMPDIR and no stand-in process may run. Before
// the compiler had its own group and Stop, every run that reached the
// compiler left both behind.
func TestCompileSignals(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	runs := 200
	if testing.Short() {
		runs = 40
	}
	if s := os.Getenv("ANEFIX_SIGNAL_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	compiler := filepath.Join(repo, "testdata", "compiler", "hostile-stderr-child.sh")
	input := filepath.Join(repo, "testdata", "mlir", "coreai", "binary.mlir") // text: compile writes a temporary .aimodel
	var mu sync.Mutex
	var fails []string
	var reached int // runs whose stand-in had started
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				msg, started := compileSignalRun(t, i, compiler, input)
				mu.Lock()
				if msg != "" {
					fails = append(fails, msg)
				}
				if started {
					reached++
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < runs; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for i, f := range fails {
		if i == 10 {
			t.Errorf("... %d failures in all", len(fails))
			break
		}
		t.Error(f)
	}
	t.Logf("%d runs, %d reached the compiler", runs, reached)
	if runs >= 40 && reached == 0 {
		t.Error("no run reached the compiler: the signal times do not cover the compile")
	}
}

// compileSignalRun is one run; it returns what went wrong ("" if nothing)
// and whether the stand-in had started.
func compileSignalRun(t *testing.T, i int, compiler, input string) (string, bool) {
	tmp := t.TempDir()
	tmpdir := filepath.Join(tmp, "tmp")
	if err := os.Mkdir(tmpdir, 0o755); err != nil {
		return err.Error(), false
	}
	pids := filepath.Join(tmp, "pids")
	cmd := exec.Command(os.Args[0], "compile", input, "--compiler", compiler)
	cmd.Env = append(os.Environ(), envRunMain+"=1", "TMPDIR="+tmpdir, "HOSTILE_PIDS="+pids, "HOSTILE_MODE=hang")
	sig, want := syscall.SIGINT, 130
	if i%2 == 1 {
		sig, want = syscall.SIGTERM, 143
	}
	if err := cmd.Start(); err != nil {
		return err.Error(), false
	}
	time.Sleep(time.Duration(rand.IntN(80_000)) * time.Microsecond)
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		return fmt.Sprintf("run %d: anefix still running 10 s after %v", i, sig), false
	}
	var msgs []string
	var ee *exec.ExitError
	switch {
	case !errors.As(err, &ee):
		msgs = append(msgs, fmt.Sprintf("exit %v, want %d", err, want))
	case ee.ExitCode() == want:
	case ee.Sys().(syscall.WaitStatus).Signaled() && ee.Sys().(syscall.WaitStatus).Signal() == sig:
		// Killed before main installed the handler (Go's runtime start):
		// nothing had been created yet, which the checks below confirm.
	default:
		msgs = append(msgs, fmt.Sprintf("exit %v, want %d", err, want))
	}
	if ents, _ := os.ReadDir(tmpdir); len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		msgs = append(msgs, "left "+strings.Join(names, ", "))
	}
	started := false
	if b, err := os.ReadFile(pids); err == nil {
		started = true
		deadline := time.Now().Add(2 * time.Second)
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			for procAlive(pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if procAlive(pid) {
				msgs = append(msgs, fmt.Sprintf("stand-in process %d still running", pid))
				syscall.Kill(pid, syscall.SIGKILL) // ours: started by this run
			}
		}
	}
	if len(msgs) == 0 {
		return "", started
	}
	return fmt.Sprintf("run %d (%v): %s", i, sig, strings.Join(msgs, "; ")), started
}

// TestVerifyTruncatedUnderIt truncates the candidate's main.mlirb at a
// random moment of `anefix verify` (while it is read, hashed or run), a
// few hundred times: every run must end with exit 0 (finished first) or 1
// (an error naming the file), never a runtime crash. Before
// graph/interp/fault.go a truncation during the run died with SIGBUS
// ("fatal error: fault", exit 2).
func TestVerifyTruncatedUnderIt(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 40
	}
	if s := os.Getenv("ANEFIX_SIGNAL_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	src := filepath.Join(repo, "testdata", "synth", "armA.aimodel")
	var mu sync.Mutex
	codes := map[int]int{}
	var fails []string
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				code, msg := truncateRun(t, src)
				mu.Lock()
				codes[code]++
				if msg != "" {
					fails = append(fails, fmt.Sprintf("run %d: %s", i, msg))
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < runs; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for i, f := range fails {
		if i == 10 {
			t.Errorf("... %d failures in all", len(fails))
			break
		}
		t.Error(f)
	}
	t.Logf("%d runs, exit codes %v", runs, codes)
}

func truncateRun(t *testing.T, src string) (int, string) {
	dir := filepath.Join(t.TempDir(), "cand.aimodel")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return -1, err.Error()
	}
	for _, n := range []string{"main.mlirb", "main.hash", "metadata.json"} {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			return -1, err.Error()
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			return -1, err.Error()
		}
	}
	mlirb := filepath.Join(dir, "main.mlirb")
	st, _ := os.Stat(mlirb)
	var stderr strings.Builder
	cmd := exec.Command(os.Args[0], "verify", src, dir, "--steps", "2")
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return -1, err.Error()
	}
	time.Sleep(time.Duration(rand.IntN(150_000)) * time.Microsecond)
	os.Truncate(mlirb, rand.Int64N(st.Size()))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		return -1, "verify still running 20 s after the truncation"
	}
	code := cmd.ProcessState.ExitCode()
	e := stderr.String()
	switch {
	case strings.Contains(e, "fatal error") || strings.Contains(e, "panic:") || strings.Contains(e, "goroutine "):
		return code, "runtime crash: " + firstLine(e)
	case code == 1 && !strings.Contains(e, "cand.aimodel"):
		return code, "error does not name the input: " + firstLine(e)
	case code != 0 && code != 1:
		return code, fmt.Sprintf("exit %d: %s", code, firstLine(e))
	}
	return code, ""
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}
