// Command anefix makes Core AI exports legal for Apple's Neural Engine:
// it reads .aimodel bundles (MLIR bytecode) or MLIR text, rewrites the graph
// with a pipeline of passes, checks it against a model of the Neural Engine's
// rules, wraps the real compiler, and verifies what a rewrite did to the
// numbers.
//
// Each subcommand lives in its own cmd_<name>.go file and registers itself
// with register; this file only dispatches and maps errors to exit codes.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/nearest"
	"github.com/anefix/anefix/passes/ane/compiler"
	"github.com/anefix/anefix/passes/probe"
	"github.com/spf13/pflag"
)

// Exit codes (documented in the README).
const (
	exitOK         = 0 // success
	exitFailure    = 1 // bad input or failure
	exitUsage      = 2 // usage error
	exitGate       = 3 // check/verify gate not met
	exitNoCompiler = 4 // compiler unavailable
)

// Env is what a command may touch besides files named on its command line.
type Env struct {
	Stdin       io.Reader
	Stdout      io.Writer
	Stderr      io.Writer
	StderrIsTTY bool // progress bars only when true
	StdoutIsTTY bool // no binary output (-o -) when true
}

// command describes one subcommand.
type command struct {
	Name    string // "inspect"
	Usage   string // "inspect IN [--json]"
	Summary string // one line for `anefix --help`
	Help    string // longer text with examples, printed by `anefix NAME --help`
	// Setup declares the command's flags and returns the function that runs
	// it with the remaining positional arguments.
	Setup func(fs *pflag.FlagSet) func(env *Env, args []string) error
	// StdoutModel: `-o -` writes the model's bytes to stdout, which must
	// pass through untouched (so stdout is not a safeWriter).
	StdoutModel bool
	// NoInput: the command reads no input (synth), so a stop by signal
	// does not say the input was kept.
	NoInput bool
}

var commands = map[string]*command{}

// runWith makes a command's Setup from its two named parts: declare adds
// the command's flags to fs, bound to the fields of a fresh F, and run is
// the command, called with them parsed and the positional arguments.
func runWith[F any](declare func(*F, *pflag.FlagSet), run func(*Env, *F, []string) error) func(*pflag.FlagSet) func(*Env, []string) error {
	return func(fs *pflag.FlagSet) func(*Env, []string) error {
		f := new(F)
		declare(f, fs)
		return func(env *Env, args []string) error { return run(env, f, args) }
	}
}

func register(c *command) {
	if _, dup := commands[c.Name]; dup {
		panic("anefix: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// exitError carries an exit code other than 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// usagef reports a usage error (exit 2).
func usagef(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// withCode wraps err (which may be nil for a silent exit) with an exit code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

func main() {
	env := &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, StderrIsTTY: isTerminal(os.Stderr), StdoutIsTTY: isTerminal(os.Stdout)}
	// Notify before any work: a signal arriving before the handler is
	// registered would kill the process with its temporaries in place.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go removeTempsOnSignal(sigs, env.Stderr)
	progressDelayFromEnv(env)
	code := run(os.Args[1:], env)
	close(runDone)
	if bundle.Stopped() || signalled.Load() {
		select {} // the signal handler is cleaning up; it exits 128+signal
	}
	os.Exit(code)
}

// progressDelayFromEnv applies ANEFIX_PROGRESS_DELAY (a Go duration such
// as 0s or 3s): how long work runs before its progress bar shows.
func progressDelayFromEnv(env *Env) {
	v := os.Getenv("ANEFIX_PROGRESS_DELAY")
	if v == "" {
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		fmt.Fprintf(env.Stderr, "anefix: warning: ANEFIX_PROGRESS_DELAY=%q is not a duration such as 0s or 2s; bars keep their 1s delay\n", v)
		return
	}
	bundle.SetProgressDelay(d)
}

var (
	signalled atomic.Bool
	runDone   = make(chan struct{})
)

// compileGrace is how long the signal handler lets a compile unwind (its
// deferred clean-ups remove its temporaries in program order, with no race
// against its own writes) before removing what is left itself. Killing the
// compiler makes compile return at once; what can take long is writing the
// temporary .aimodel of a large model. A second signal skips the wait.
// Other commands do not wait: their unfinished outputs are removed at once.
const compileGrace = 10 * time.Second

// removeTempsOnSignal makes Ctrl-C or SIGTERM during a write remove the
// half-built output (which can be as large as the model) before exiting
// with 128+signal; a previous output is never touched.
func removeTempsOnSignal(ch <-chan os.Signal, stderr io.Writer) {
	sig := <-ch
	signalled.Store(true)
	// bisect's and reduce's test commands run in their own process groups.
	probe.KillAll()
	// A compiler runs in its own process group, so it does not get the
	// terminal's Ctrl-C: kill it, which makes compile return at once.
	if compiler.Interrupt() {
		select {
		case <-runDone:
		case <-time.After(compileGrace):
		case <-ch:
		}
	}
	removed := append(compiler.Stop(), bundle.RemovePending()...)
	fmt.Fprint(stderr, stopMessage(sig, removed, commandReadsInput.Load()))
	code := 128 + int(syscall.SIGINT)
	if sig == syscall.SIGTERM {
		code = 128 + int(syscall.SIGTERM)
	}
	os.Exit(code)
}

// commandReadsInput is false while a command without an input (synth) runs.
var commandReadsInput atomic.Bool

// stopMessage is what a stop by signal prints: what was removed and, when
// the command has an input, that it was kept.
func stopMessage(sig os.Signal, removed []string, readsInput bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nanefix: %v: stopped", sig)
	if len(removed) > 0 {
		q := make([]string, len(removed))
		for i, r := range removed {
			q[i] = quotePath(r)
		}
		fmt.Fprintf(&b, "; removed the unfinished output %s", strings.Join(q, ", "))
	}
	if readsInput {
		b.WriteString("; the input was not modified")
	}
	b.WriteString("\n")
	return b.String()
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// unknownCommand is the usage error for a command name anefix lacks: the
// nearest command, if one is near, and where the list is; not the whole
// help, which pushed the suggestion off the screen.
func unknownCommand(env *Env, name string) int {
	fmt.Fprintf(env.Stderr, "anefix: unknown command %q%s\nRun 'anefix --help' for the list of commands.\n", name, nearest.Hint(name, commandNames(), ""))
	return exitUsage
}

// run executes one command line and returns the exit code.
func run(args []string, env *Env) int {
	if len(args) == 0 {
		printMainHelp(env.Stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			c, ok := commands[args[1]]
			if !ok {
				return unknownCommand(env, args[1])
			}
			fs := newFlagSet(c, env)
			c.Setup(fs)
			printCommandHelp(env.Stdout, c, fs)
			return exitOK
		}
		printMainHelp(env.Stdout)
		return exitOK
	case "__complete":
		return runComplete(env, args[1:])
	case "--version", "version":
		return runVersion(env, args[0], args[1:])
	}
	c, ok := commands[args[0]]
	if !ok {
		return unknownCommand(env, args[0])
	}
	// Paths and model names with control characters are printed quoted
	// in everything meant for people (escape.go).
	var paths []string
	names := &shownNames{}
	env = &Env{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: safeWriter{w: env.Stderr, paths: &paths, names: names}, StderrIsTTY: env.StderrIsTTY, StdoutIsTTY: env.StdoutIsTTY}
	if !c.StdoutModel {
		env.Stdout = safeWriter{w: env.Stdout, paths: &paths, names: names}
	}
	commandReadsInput.Store(!c.NoInput)
	fs := newFlagSet(c, env)
	runFn := c.Setup(fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printCommandHelp(env.Stdout, c, fs)
			return exitOK
		}
		fmt.Fprintf(env.Stderr, "anefix %s: %v%s\nRun 'anefix %s --help' for usage.\n", c.Name, err, flagHint(fs, err), c.Name)
		return exitUsage
	}
	if err := missingRequired(fs); err != nil {
		fmt.Fprintf(env.Stderr, "anefix %s: %v\nRun 'anefix %s --help' for usage.\n", c.Name, err, c.Name)
		return exitUsage
	}
	paths = append(paths, fs.Args()...)
	fs.Visit(func(f *pflag.Flag) {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			paths = append(paths, sv.GetSlice()...)
		} else {
			paths = append(paths, f.Value.String())
		}
	})
	err := runFn(env, fs.Args())
	if err == nil {
		return exitOK
	}
	code := exitFailure
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(env.Stderr, "anefix %s: %s\n", c.Name, msg)
		if code == exitUsage {
			fmt.Fprintf(env.Stderr, "Run 'anefix %s --help' for usage.\n", c.Name)
		}
	}
	return code
}

func newFlagSet(c *command, env *Env) *pflag.FlagSet {
	fs := pflag.NewFlagSet("anefix "+c.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are printed by run
	fs.SortFlags = false
	fs.SetInterspersed(true)
	return fs
}

func printCommandHelp(w io.Writer, c *command, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage: anefix %s\n\n%s\n", c.Usage, c.Summary)
	if c.Help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.Help, "\n"))
	}
	if fs.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
	}
}

// commandNames lists the registered commands, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// flagHint suggests the nearest of fs's flags for an unknown --flag (pflag
// names it only in its message: "unknown flag: --name").
func flagHint(fs *pflag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return nearest.Hint(name, names, "--")
}

func printMainHelp(w io.Writer) {
	fmt.Fprint(w, `anefix makes Core AI exports (.aimodel, MLIR bytecode or text) legal for
Apple's Neural Engine, and checks and proves what it did.

Usage: anefix <command> [flags] args     ("-" reads stdin / writes stdout)

Commands:
`)
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].Summary)
	}
	fmt.Fprint(w, `
Run 'anefix <command> --help' for a command's flags and examples, and
'anefix --version' for the build (with --json: as JSON, anefix.v1.VersionInfo).
Exit codes: 0 ok, 1 bad input or failure, 2 usage, 3 check/verify gate not met,
4 compiler unavailable.
`)
}
