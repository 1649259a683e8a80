// Package probe runs a user's test command on candidate models for
// `anefix bisect` and `anefix reduce`: `{}` in the command becomes a
// reference to $ANEFIX_CANDIDATE, which holds the candidate's path
// (expand.go), the exit status is read as `git bisect run` does (0 good,
// 125 cannot tell, anything else bad) plus anefix's own exit 4 (compiler
// unavailable: the search stops at once), and answers are cached by the
// candidate's content, the command and the files it names so that a rerun
// does not repeat a compile (cache.go, keyfiles.go). Each test runs in a process group of its own
// (passes/internal/proc): a timeout or a signal stops the whole group, and
// a child the test leaves behind holding its output delays the answer by a
// bounded drain, never by its lifetime.
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
	"sync"
	"time"

	"github.com/anefix/anefix/passes/internal/proc"
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
	exitSkip       = 125
	exitNoCompiler = 4
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

// classify maps an exit status to an outcome.
func classify(code int) Outcome {
	switch code {
	case 0:
		return Good
	case exitSkip:
		return Skip
	case exitNoCompiler:
		return NoCompiler
	}
	return Bad
}

// Config is how to run the test command.
type Config struct {
	// Command is a shell command (run by /bin/sh -c) in which every {} is
	// replaced by a reference to $ANEFIX_CANDIDATE (Expand).
	Command string
	// CacheDir holds one small file per answered candidate ("" = no cache).
	CacheDir string
	// Jobs is how many test commands may run at once (< 1 = 1).
	Jobs int
	// Timeout stops a test command's whole process group (0 = none).
	Timeout time.Duration
	// MaxProbes bounds the test commands started (cache hits are free;
	// 0 = no bound).
	MaxProbes int
	// Output receives the test commands' stdout and stderr (nil: discarded).
	Output io.Writer
	// Warn receives one line for each thing the user should know that is
	// not an answer: a cache entry ignored, a test that could not run its
	// command (exit 126/127), a process a test left running (nil: dropped).
	Warn func(string)
}

// ErrNoCompiler is returned as soon as a test command exits 4.
var ErrNoCompiler = errors.New("the test command exited 4: compiler unavailable")

// ErrBudget is returned when --max-probes is used up.
var ErrBudget = errors.New("probe budget (--max-probes) used up")

// errStopping is returned once KillAll has run: nothing new is started.
var errStopping = errors.New("stopping on a signal; no test is started")

// Result is one probe.
type Result struct {
	Outcome  Outcome
	ExitCode int
	Duration time.Duration // of the test command (of the original run when cached)
	Cached   bool
	Key      string // cache key: SHA-256 of the candidate's bytes, the command and the files it names
	// Uncached says why this answer was not written to the cache ("" when
	// it was, or there is no cache).
	Uncached string
}

// Runner runs probes; it is safe for one search at a time.
type Runner struct {
	cfg      Config
	expanded string   // cfg.Command with {} replaced (Expand)
	prefix   string   // what every key is hashed with (keyPrefix)
	files    []string // the files the command names, in the key
	mu       sync.Mutex
	run      int // test commands started
	hit      int // cache hits
	warned   map[string]bool
}

// New checks cfg and returns a Runner. A command Expand refuses is an
// error of type *commandError.
func New(cfg Config) (*Runner, error) {
	exp, err := Expand(cfg.Command)
	if err != nil {
		return nil, &commandError{err}
	}
	if cfg.Jobs < 1 {
		cfg.Jobs = 1
	}
	if cfg.CacheDir != "" {
		if err := os.MkdirAll(cfg.CacheDir, 0o755); err != nil {
			return nil, fmt.Errorf("cache directory: %w", err)
		}
	}
	prefix, files, err := keyPrefix(cfg.Command, namedFiles(cfg.Command), cfg.CacheDir != "")
	if err != nil {
		return nil, err
	}
	return &Runner{cfg: cfg, expanded: exp, prefix: prefix, files: files, warned: map[string]bool{}}, nil
}

// CacheDir is the directory of cached answers ("" when there is none).
func (r *Runner) CacheDir() string { return r.cfg.CacheDir }

// KeyFiles are the files the test command names whose bytes are in every
// key (keyfiles.go), as the command spells them.
func (r *Runner) KeyFiles() []string { return r.files }

// commandError is a test command that cannot be run as given (a usage
// error for the CLI).
type commandError struct{ Err error }

func (e *commandError) Error() string { return e.Err.Error() }
func (e *commandError) Unwrap() error { return e.Err }

// Counts returns the test commands started and the cache hits so far.
func (r *Runner) Counts() (run, cached int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run, r.hit
}

// warn passes msg to Config.Warn once per key.
func (r *Runner) warn(key, msg string) {
	r.mu.Lock()
	seen := r.warned[key]
	r.warned[key] = true
	r.mu.Unlock()
	if !seen && r.cfg.Warn != nil {
		r.cfg.Warn(msg)
	}
}

// DefaultCacheDir is <user cache dir>/anefix/probes.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "anefix", "probes"), nil
}

// keyVersion starts every key. 2: {} became a reference to
// $ANEFIX_CANDIDATE (the same command string now runs differently), and
// answers of version 1 may be a search's interruption cached as "bad".
const keyVersion = "anefix-probe-2"

// key hashes the candidate at path (a file, or a directory's files by
// sorted relative name, each name and length framed) with prefix: the
// command and the files it names (keyPrefix).
func key(path, prefix string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d:%s\x00", keyVersion, len(prefix), prefix)
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
		k, err := key(p, r.prefix)
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

// stopGrace is how long a test command's process group has after SIGTERM
// before SIGKILL: `anefix compile` in a test runs its compiler in a group
// of its own, which only anefix's SIGTERM handler kills (passes/ane/compiler), so
// killing the test outright could leave a compiler running.
const stopGrace = 5 * time.Second

// one runs the command on path and caches its answer when the test ran to
// its end on its own (cacheable).
func (r *Runner) one(ctx context.Context, path, key string) (Result, error) {
	cmd := exec.Command("/bin/sh", "-c", r.expanded)
	cmd.Env = append(os.Environ(), candidateEnv+"="+path)
	pctx := ctx
	if r.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, r.cfg.Timeout)
		defer cancel()
	}
	g, err := start(pctx, cmd, r.cfg.Output)
	if errors.Is(err, errStopping) {
		return Result{Key: key}, nil // not answered
	}
	if err != nil {
		return Result{}, fmt.Errorf("running the test command: %w", err)
	}
	ex := g.Wait()
	untrack(g)
	switch {
	case ex.Leaked:
		r.warn("leak", leakMessage(ex, path))
	case ex.Lingered:
		r.warn("linger", fmt.Sprintf("a test on %s exited, leaving a process in its group that held its output and did not end on SIGTERM: it was killed %s later (each such probe waits that long)",
			filepath.Base(path), proc.DefaultDrain))
	}
	res := Result{Key: key, Duration: ex.Ran}
	if ex.Signalled {
		switch {
		case ctx.Err() != nil:
			return Result{Key: key}, nil // stopped by the search: not answered
		case pctx.Err() != nil:
			res.Outcome, res.ExitCode, res.Uncached = Timeout, -1, "timed out"
			return res, nil
		}
		// Stopped by KillAll (anefix is exiting): an answer no one will
		// read, and never one for the cache.
	}
	code := proc.ExitStatus(ex.Err)
	if code < 0 {
		return Result{}, fmt.Errorf("running the test command: %w", ex.Err)
	}
	res.ExitCode, res.Outcome = code, classify(code)
	res.Uncached = uncacheable(code, ex.Signalled)
	if code == 126 || code == 127 {
		r.warn("notfound", fmt.Sprintf("the test command exited %d (the shell could not find or run a command in it: %s); such answers count as bad and are never cached", code, r.cfg.Command))
	}
	if res.Uncached == "" {
		if !r.store(res) {
			res.Uncached = "stopping"
		}
	}
	return res, nil
}

// leakMessage says that a process left the test's group and still held
// its output.
func leakMessage(ex proc.Exit, path string) string {
	who := "a process"
	if len(ex.Holders) > 0 {
		who = fmt.Sprintf("process(es) %v", ex.Holders)
	}
	return fmt.Sprintf("a test on %s left %s outside its process group (setsid?) holding its output: anefix stopped reading after %s and took the test's own exit status, but cannot stop what left the group; it may still run",
		filepath.Base(path), who, proc.DefaultDrain+proc.KillDrain)
}

// Running test commands, so that a signal handler can stop them (they run
// in their own process groups and do not get the terminal's Ctrl-C), and
// whether KillAll has run, after which nothing is started or cached.
var running = struct {
	sync.Mutex
	stopping bool
	groups   map[*proc.Group]bool
}{groups: map[*proc.Group]bool{}}

// start starts cmd in its own group and registers it, unless KillAll has
// run (errStopping).
func start(ctx context.Context, cmd *exec.Cmd, out io.Writer) (*proc.Group, error) {
	running.Lock()
	defer running.Unlock()
	if running.stopping {
		return nil, errStopping
	}
	g, err := proc.Start(ctx, cmd, proc.Options{Output: out, Grace: stopGrace})
	if err != nil {
		return nil, err
	}
	running.groups[g] = true
	return g, nil
}

func untrack(g *proc.Group) {
	running.Lock()
	delete(running.groups, g)
	running.Unlock()
}

// KillAll sends SIGTERM to every running test command's process group
// (so an anefix compile in it stops its compiler and removes its
// temporaries), starts no test after it and caches no answer after it
// (an entry being written when it is called is finished first), and
// reports whether a test was running. The caller exits next.
func KillAll() bool {
	cacheWrites.Lock() // waits for a write under way; none starts after
	defer cacheWrites.Unlock()
	running.Lock()
	defer running.Unlock()
	running.stopping = true
	for g := range running.groups {
		g.Term()
	}
	return len(running.groups) > 0
}

// stopping reports whether KillAll has run.
func stopping() bool {
	running.Lock()
	defer running.Unlock()
	return running.stopping
}
