// Package probe runs a user's test command on candidate models for
// `anefix bisect` and `anefix reduce`: `{}` in the command becomes the
// shell-quoted candidate path, the exit status is read as `git bisect run`
// does (0 good, 125 cannot tell, anything else bad) plus anefix's own exit
// 4 (compiler unavailable: the search stops at once), and answers are
// cached by the candidate's content so that a rerun does not repeat a
// compile.
package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Outcome is what the test command said about one candidate.
type Outcome int

const (
	Good       Outcome = iota + 1 // exit 0
	Bad                           // any other exit status
	Skip                          // exit 125: cannot tell
	NoCompiler                    // exit 4: the compiler is unavailable
	Timeout                       // killed after Config.Timeout: cannot tell
)

// Exit statuses with a meaning of their own.
const (
	ExitSkip       = 125
	ExitNoCompiler = 4
)

func (o Outcome) String() string {
	switch o {
	case Good:
		return "good"
	case Bad:
		return "bad"
	case Skip:
		return "skip"
	case NoCompiler:
		return "no-compiler"
	case Timeout:
		return "timeout"
	}
	return "?"
}

// Classify maps an exit status to an outcome.
func Classify(code int) Outcome {
	switch code {
	case 0:
		return Good
	case ExitSkip:
		return Skip
	case ExitNoCompiler:
		return NoCompiler
	}
	return Bad
}

// Config is how to run the test command.
type Config struct {
	// Command is a shell command (run by /bin/sh -c) in which every {} is
	// replaced by the shell-quoted candidate path.
	Command string
	// CacheDir holds one small file per answered candidate ("" = no cache).
	CacheDir string
	// Jobs is how many test commands may run at once (< 1 = 1).
	Jobs int
	// Timeout kills a test command's whole process group (0 = none).
	Timeout time.Duration
	// MaxProbes bounds the test commands started (cache hits are free;
	// 0 = no bound).
	MaxProbes int
	// Output receives the test commands' stdout and stderr (nil: discarded).
	Output io.Writer
}

// ErrNoCompiler is returned as soon as a test command exits 4.
var ErrNoCompiler = errors.New("the test command exited 4: compiler unavailable")

// ErrBudget is returned when --max-probes is used up.
var ErrBudget = errors.New("probe budget (--max-probes) used up")

// Result is one probe.
type Result struct {
	Outcome  Outcome
	ExitCode int
	Duration time.Duration // of the test command (of the original run when cached)
	Cached   bool
	Key      string // cache key: SHA-256 of the candidate's bytes and the command
}

// Runner runs probes; it is safe for one search at a time.
type Runner struct {
	cfg Config
	mu  sync.Mutex
	run int // test commands started
	hit int // cache hits
}

// New checks cfg and returns a Runner.
func New(cfg Config) (*Runner, error) {
	if strings.TrimSpace(cfg.Command) == "" {
		return nil, errors.New("empty test command")
	}
	if !strings.Contains(cfg.Command, "{}") {
		return nil, fmt.Errorf("test command %q has no {} (where the candidate's path goes)", cfg.Command)
	}
	if cfg.Jobs < 1 {
		cfg.Jobs = 1
	}
	if cfg.CacheDir != "" {
		if err := os.MkdirAll(cfg.CacheDir, 0o755); err != nil {
			return nil, fmt.Errorf("cache directory: %w", err)
		}
	}
	return &Runner{cfg: cfg}, nil
}

// Counts returns the test commands started and the cache hits so far.
func (r *Runner) Counts() (run, cached int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run, r.hit
}

// DefaultCacheDir is <user cache dir>/anefix/probes.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "anefix", "probes"), nil
}

// Quote quotes s for /bin/sh.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Expand replaces every {} in command by the quoted path.
func Expand(command, path string) string {
	return strings.ReplaceAll(command, "{}", Quote(path))
}

// Key hashes the candidate at path (a file, or a directory's files by
// sorted relative name, each name and length framed) with the command.
func Key(path, command string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "anefix-probe-1\x00%d:%s\x00", len(command), command)
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	add := func(rel, full string) error {
		b, err := os.ReadFile(full)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%d:%s\x00%d:", len(rel), rel, len(b))
		h.Write(b)
		return nil
	}
	if !st.IsDir() {
		if err := add("", path); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	for _, f := range files {
		rel, _ := filepath.Rel(path, f)
		if err := add(filepath.ToSlash(rel), f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Run probes every path (in parallel up to Jobs) and returns the results
// in the order of paths. It returns ErrNoCompiler when any test exited 4
// (results are then partial) and ErrBudget when MaxProbes ran out before
// every path was answered (unanswered results have Outcome 0). Which paths
// run is decided before any starts, so the answers do not depend on Jobs.
func (r *Runner) Run(ctx context.Context, paths []string) ([]Result, error) {
	res := make([]Result, len(paths))
	var todo []int
	for i, p := range paths {
		k, err := Key(p, r.cfg.Command)
		if err != nil {
			return nil, fmt.Errorf("candidate %s: %w", p, err)
		}
		res[i].Key = k
		if c, ok := r.lookup(k); ok {
			res[i] = c
			r.mu.Lock()
			r.hit++
			r.mu.Unlock()
			continue
		}
		todo = append(todo, i)
	}
	budget := false
	r.mu.Lock()
	if r.cfg.MaxProbes > 0 && r.run+len(todo) > r.cfg.MaxProbes {
		n := max(r.cfg.MaxProbes-r.run, 0)
		todo, budget = todo[:n], true
	}
	r.run += len(todo)
	r.mu.Unlock()

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	sem := make(chan struct{}, r.cfg.Jobs)
	var noCompiler sync.Once
	stopped := false
	var firstErr error
	var errMu sync.Mutex
	for _, i := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			out, err := r.one(ctx, paths[i], res[i].Key)
			if err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				errMu.Unlock()
				cancel()
				return
			}
			res[i] = out
			if out.Outcome == NoCompiler {
				noCompiler.Do(func() {
					errMu.Lock()
					stopped = true
					errMu.Unlock()
					cancel() // stop the other probes at once
				})
			}
		}(i)
	}
	wg.Wait()
	switch {
	case stopped:
		return res, ErrNoCompiler
	case firstErr != nil:
		return res, firstErr
	case parent.Err() != nil:
		return res, parent.Err()
	case budget:
		return res, ErrBudget
	}
	return res, nil
}

// one runs the command on path and caches a good, bad or skip answer.
func (r *Runner) one(ctx context.Context, path, key string) (Result, error) {
	cmd := exec.Command("/bin/sh", "-c", Expand(r.cfg.Command, path))
	out := r.cfg.Output
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout, cmd.Stderr = out, out
	setGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("running the test command: %w", err)
	}
	track(cmd)
	defer untrack(cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timer <-chan time.Time
	if r.cfg.Timeout > 0 {
		t := time.NewTimer(r.cfg.Timeout)
		defer t.Stop()
		timer = t.C
	}
	var err error
	res := Result{Key: key}
	select {
	case err = <-done:
	case <-timer:
		stop(cmd, done)
		res.Outcome, res.ExitCode, res.Duration = Timeout, -1, time.Since(start)
		return res, nil
	case <-ctx.Done():
		stop(cmd, done)
		return Result{Key: key}, nil // not answered
	}
	res.Duration = time.Since(start)
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return Result{}, fmt.Errorf("running the test command: %w", err)
		}
		code = ee.ExitCode()
		if code < 0 { // killed by a signal, not by us
			code = 128 + signalNumber(ee)
		}
	}
	res.ExitCode, res.Outcome = code, Classify(code)
	if res.Outcome != NoCompiler {
		r.store(res)
	}
	return res, nil
}

// stopGrace is how long a test command's process group has after SIGTERM
// before SIGKILL: `anefix compile` in a test runs its compiler in a group
// of its own, which only anefix's SIGTERM handler kills (passes/ane/compiler), so
// killing the test outright could leave a compiler running.
const stopGrace = 5 * time.Second

// stop sends SIGTERM to the test command's group, then SIGKILL after
// stopGrace, and waits for the command (done delivers cmd.Wait's result).
func stop(cmd *exec.Cmd, done <-chan error) {
	termGroup(cmd)
	select {
	case <-done:
		killGroup(cmd) // what is left of the group
		return
	case <-time.After(stopGrace):
	}
	killGroup(cmd)
	<-done
}

// Cache files hold "outcome exit seconds\n"; an unreadable or malformed one
// is a miss.
func (r *Runner) cachePath(key string) string {
	return filepath.Join(r.cfg.CacheDir, key[:2], key)
}

func (r *Runner) lookup(key string) (Result, bool) {
	if r.cfg.CacheDir == "" {
		return Result{}, false
	}
	b, err := os.ReadFile(r.cachePath(key))
	if err != nil {
		return Result{}, false
	}
	res, ok := parseEntry(b)
	res.Key = key
	return res, ok
}

// parseEntry reads a cache file; anything but "outcome exit seconds" with an
// outcome matching its exit status (never no-compiler) is a miss.
func parseEntry(b []byte) (Result, bool) {
	if len(b) > 128 {
		return Result{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return Result{}, false
	}
	code, err1 := strconv.Atoi(f[1])
	secs, err2 := strconv.ParseFloat(f[2], 64)
	o := Classify(code)
	if err1 != nil || err2 != nil || o.String() != f[0] || o == NoCompiler || !(secs >= 0 && secs < 1e9) {
		return Result{}, false
	}
	return Result{Outcome: o, ExitCode: code, Duration: time.Duration(secs * float64(time.Second)), Cached: true}, true
}

// store writes the answer through a temporary and a rename, so a reader
// never sees half a file; a failure to cache is not an error of the search.
func (r *Runner) store(res Result) {
	if r.cfg.CacheDir == "" || res.Outcome == Timeout {
		return
	}
	p := r.cachePath(res.Key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, err = fmt.Fprintf(f, "%s %d %.3f\n", res.Outcome, res.ExitCode, res.Duration.Seconds())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// Running test commands, so that a signal handler can kill them (they run
// in their own process groups and do not get the terminal's Ctrl-C).
var running = struct {
	sync.Mutex
	cmds map[*exec.Cmd]bool
}{cmds: map[*exec.Cmd]bool{}}

func track(c *exec.Cmd) {
	running.Lock()
	running.cmds[c] = true
	running.Unlock()
}

func untrack(c *exec.Cmd) {
	running.Lock()
	delete(running.cmds, c)
	running.Unlock()
}

// KillAll sends SIGTERM to every running test command's process group
// (so an anefix compile in it stops its compiler and removes its
// temporaries) and reports whether there was one. The caller exits next.
func KillAll() bool {
	running.Lock()
	defer running.Unlock()
	for c := range running.cmds {
		termGroup(c)
	}
	return len(running.cmds) > 0
}
