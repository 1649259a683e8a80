package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/samber/lo"
	"github.com/spf13/pflag"
	"google.golang.org/protobuf/proto"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/passes/bisect"
	"github.com/anefix/anefix/passes/probe"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

func init() {
	register(&command{
		Name:    "bisect",
		Usage:   "bisect IN --test CMD [--json] [-j N] [--cache DIR] [--max-probes N] [--probe-timeout D]",
		Summary: "find a smallest set of experiments and neutralizations that makes a test pass",
		Help: `Runs the shell command CMD on candidates: IN with a subset of changes
applied, written as a model of IN's kind. CMD's exit status: 0 good, 125
cannot tell (the probe is skipped), 4 compiler unavailable (bisect stops at
once and exits 4), anything else bad.

` + testCommandHelp + `

The changes: the experiments (strip-fp32-casts islands=norms and
islands=all, externalize-constant and states-as-outputs when those passes
exist, the fix pass of every suspect 'anefix check' lists), then arm-d per
region kind (recurrence, sdpa, rope); a kind in the minimal set is then
narrowed to its regions (arm-d groups=N). A change that alone does nothing
to IN is left out (and listed). The search is delta debugging (ddmin);
every candidate is IN plus its changes plus dce. Two values of one option
(islands=norms, islands=all) never go into one candidate: "every change
together" is each largest set with one value per option. When the test
cannot tell on those, the search splits further instead of giving up.

Exit: 0 a minimal set was found; 3 IN already passes, or every change
together still fails, or no set passed and the test could not tell, or
--max-probes ran out (the message says which); 1 bad input; 2 usage; 4
compiler unavailable.

Examples:
  anefix bisect fixed.aimodel --test 'anefix compile {} --require-ane'
  anefix bisect fixed.aimodel --test './my-test.sh {}' -j 2 --json`,
		Setup: runWith((*bisectFlags).declare, runBisect),
	})
}

// testCommandHelp is what bisect's and reduce's --help say about CMD: how
// {} is substituted, what is bounded, and what is cached under which key
// (passes/probe keyfiles.go).
const testCommandHelp = `How {} is substituted: CMD runs under /bin/sh -c with the candidate's path
in the environment variable ANEFIX_CANDIDATE, and each {} becomes a
reference to it, never the path itself: {} becomes "$ANEFIX_CANDIDATE", and
a {} inside double quotes ${ANEFIX_CANDIDATE}, so {} and "{}" both give the
program the path as one word, and no character of a file name is read as
shell syntax. A {} inside single quotes, inside ${...}, inside backquotes
within double quotes or after a here-document is refused (exit 2); for a
nested shell write "$ANEFIX_CANDIDATE" inside its single quotes, e.g.
--test "sh -c 'anefix compile \"\$ANEFIX_CANDIDATE\"'". A program that
parses the path itself (eval, sh -c "... {} ...") gets its bytes, as it
gets any argument.

Each test runs in a process group of its own, and the search waits for the
test, not for its output: once the test exits, what it left in its group
gets SIGTERM, its output is read for at most 2 s more, then the group gets
SIGKILL and the output 0.5 s more. A process that left the group (setsid)
cannot be stopped that way: it is reported and no longer waited for.
--probe-timeout stops the whole group (SIGTERM, SIGKILL 5 s later) and
counts the probe as cannot tell.

Answers are cached (--cache DIR, default <user cache dir>/anefix/probes),
so a rerun repeats no compile. The key is the candidate's bytes, CMD's text
and the bytes of every file CMD names: each word of CMD that is a path
(relative to the working directory, or absolute) to a regular file, such as
the script of 'sh my-test.sh {}', read when the search starts. Not in the
key: the target of an output redirection (> log), and a file the test reads
that CMD does not name (one the script calls): after editing such a file,
rerun with --no-cache. When answers came from the cache, a line on stderr
says how many and where. Only an answer from a test that ran to its end on
its own is cached: never a timeout, a test stopped by Ctrl-C/SIGTERM to
anefix, a death by SIGHUP, SIGINT, SIGKILL or SIGTERM, exit 4, or exit
126/127 (a command in CMD could not be run). A cache entry that is not a
regular file of at most 256 bytes holding an answer for its own key (a
link, a FIFO, a huge file, an entry of an earlier anefix) is ignored with a
warning.`

// searchOpts are the flags bisect and reduce share.
type searchOpts struct {
	cmd        string // "bisect" or "reduce", for warnings
	test       string
	cache      string
	noCache    bool
	jobs       int
	maxProbes  int
	timeout    time.Duration
	json       bool
	ignoreHash bool
	showOutput bool
}

// bisectFlags are bisect's flags, the search's (shared with reduce).
type bisectFlags struct{ searchOpts }

func (o *bisectFlags) declare(fs *pflag.FlagSet) { o.searchOpts.declare(fs, "bisect") }

// declare adds the search's flags to fs for command cmd.
func (o *searchOpts) declare(fs *pflag.FlagSet, cmd string) {
	o.cmd = cmd
	fs.StringVar(&o.test, "test", "", "shell command run on each candidate; {} stands for its path, passed as $ANEFIX_CANDIDATE (required)")
	markRequired(fs, "test", "--test CMD", "a shell command run on each candidate; {} stands for its path")
	fs.StringVar(&o.cache, "cache", "", "directory of cached answers (default <user cache dir>/anefix/probes)")
	fs.BoolVar(&o.noCache, "no-cache", false, "neither read nor write cached answers")
	fs.IntVarP(&o.jobs, "jobs", "j", 1, "test commands run at once")
	fs.IntVar(&o.maxProbes, "max-probes", 0, "stop after starting this many test commands (0: no limit; cache hits are free)")
	fs.DurationVar(&o.timeout, "probe-timeout", 0, "stop a test command (SIGTERM to its process group, SIGKILL 5 s later) after this long and count it as cannot tell (0: no limit)")
	declareJSON(fs, &o.json)
	declareIgnoreHash(fs, &o.ignoreHash)
	fs.BoolVar(&o.showOutput, "show-output", false, "pass the test commands' output through to stderr")
}

// runner checks the shared flags and builds the probe runner.
func (o *searchOpts) runner(env *Env, in string) (*probe.Runner, error) {
	if _, err := probe.Expand(o.test); err != nil {
		return nil, usagef("--test: %v", err)
	}
	if o.jobs < 1 || o.maxProbes < 0 || o.timeout < 0 {
		return nil, usagef("-j wants at least 1, --max-probes and --probe-timeout at least 0")
	}
	if in == "-" {
		return nil, usagef("the input must be a path (each candidate is re-read from it), not -")
	}
	if isCompiledPackage(in) {
		return nil, compiledRefusal(in)
	}
	if _, err := os.Stat(in); err != nil {
		return nil, err
	}
	dir := o.cache
	if o.noCache {
		if dir != "" {
			return nil, usagef("--cache and --no-cache exclude each other")
		}
	} else if dir == "" {
		d, err := probe.DefaultCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no user cache directory (%v); give --cache DIR or --no-cache", err)
		}
		dir = d
	}
	var out io.Writer
	if o.showOutput {
		out = env.Stderr
	}
	warn := func(msg string) {
		fmt.Fprintf(env.Stderr, "anefix %s: warning: %s\n", o.cmd, escapeControls(msg))
	}
	return probe.New(probe.Config{Command: o.test, CacheDir: dir, Jobs: o.jobs, Timeout: o.timeout, MaxProbes: o.maxProbes, Output: out, Warn: warn})
}

// searchProgress is bisect's and reduce's bar: the probes answered so far,
// how many ran the test and how many came from the cache, drawn as every
// bar is (graph/bundle progress.go): on the raw terminal only
// (progressFile; through env.Stderr its control codes would be escaped
// into text), one line redrawn in place, gone once done is called.
func searchProgress(env *Env, what string) (update func(probes, run, cached int), done func()) {
	bar := bundle.NewCountBar(progressFile(env), what, 0, "probes")
	return func(probes, run, cached int) {
		bar.SetNote(fmt.Sprintf("(%d run, %d cached)", run, cached))
		bar.Set(int64(probes))
	}, bar.Done
}

// cacheNote says, on stderr, how many of a search's answers came from the
// cache and where it is, since an answer from the cache may be older than
// something the test reads that is not in the key.
func cacheNote(env *Env, o *searchOpts, r *probe.Runner, probes []*pb.Probe, cached int32) {
	if cached == 0 {
		return
	}
	key := append([]string{"the candidate", "CMD"}, lo.Map(r.KeyFiles(), func(f string, _ int) string { return quotePath(f) })...)
	fmt.Fprintf(env.Stderr, "anefix %s: %d of %d answers came from the cache %s (key: %s); --no-cache forces fresh runs\n",
		o.cmd, cached, len(probes), quotePath(r.CacheDir()), strings.Join(key, ", "))
}

// runBisect is `anefix bisect`.
func runBisect(env *Env, f *bisectFlags, args []string) error {
	if len(args) != 1 {
		return usagef("bisect takes exactly one input, got %d", len(args))
	}
	in, o := args[0], &f.searchOpts
	r, err := o.runner(env, in)
	if err != nil {
		return err
	}
	src := bisect.Source{Path: in, IgnoreHash: o.ignoreHash}
	first, err := src.Open()
	if err != nil {
		return err
	}
	input := reportInput(in, first.Loaded())
	first.Close()
	plan, err := bisect.BuildPlan(src.Loader())
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	work, err := bisect.NewWorkdir(in)
	if err != nil {
		return err
	}
	defer work.Close()
	update, done := searchProgress(env, "bisect")
	p := &bisect.Prober{Ctx: context.Background(), Runner: r, Work: work, Progress: update}
	rep, err := bisect.Bisect(src, plan, p)
	done()
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	out := bisectReport(rep, r, o.test)
	out.Input = input
	if err := writeSearchReport(env, o.json, out, func() { writeBisectText(env.Stdout, out) }); err != nil {
		return err
	}
	cacheNote(env, o, r, out.Probes, out.ProbesCached)
	return searchExit(rep.Result == bisect.ResultMinimal, rep.Result == bisect.ResultNoCompiler, rep.Message)
}

// writeSearchReport prints a bisect or reduce report: protojson with
// --json, else the text text writes.
func writeSearchReport(env *Env, asJSON bool, m proto.Message, text func()) error {
	if !asJSON {
		text()
		return nil
	}
	b, err := protoJSON(m)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(b)
	return err
}

// searchExit maps a search's outcome to the exit code: 0 when it found
// what it looked for, 4 when the compiler was unavailable, else 3 (the
// message says which case).
func searchExit(ok, noCompiler bool, msg string) error {
	switch {
	case ok:
		return nil
	case noCompiler:
		return withCode(exitNoCompiler, errors.New(msg))
	}
	return withCode(exitGate, errors.New(msg))
}

func changePB(i int, c bisect.Change) *pb.SearchChange {
	return &pb.SearchChange{Index: int32(i), Pass: c.Pass, Options: c.Options, Role: c.Role, Refines: int32(c.Refines), Flags: c.Flags()}
}

func probesPB(recs []bisect.ProbeRecord) []*pb.Probe {
	var out []*pb.Probe
	for _, q := range recs {
		var set []int32
		for _, i := range q.Set {
			set = append(set, int32(i))
		}
		out = append(out, &pb.Probe{Changes: set, Step: q.Step, Outcome: outcomePB(q.Result.Outcome), ExitCode: int32(q.Result.ExitCode),
			Seconds: q.Result.Duration.Seconds(), Cached: q.Result.Cached, Key: q.Result.Key})
	}
	return out
}

func outcomePB(o probe.Outcome) pb.ProbeOutcome {
	switch o {
	case probe.Good:
		return pb.ProbeOutcome_GOOD
	case probe.Bad:
		return pb.ProbeOutcome_BAD
	case probe.Skip:
		return pb.ProbeOutcome_SKIP
	case probe.NoCompiler:
		return pb.ProbeOutcome_NO_COMPILER
	case probe.Timeout:
		return pb.ProbeOutcome_TIMEOUT
	}
	return pb.ProbeOutcome_PROBE_OUTCOME_UNSPECIFIED
}

func bisectReport(rep *bisect.Report, r *probe.Runner, test string) *pb.BisectReport {
	out := &pb.BisectReport{SchemaVersion: pbprint.SchemaVersion, TestCommand: test, Result: rep.Result, Message: rep.Message,
		CoarseChanges: int32(rep.Plan.Coarse), AllChanges: int32(len(rep.Plan.Changes))}
	for i, c := range rep.Plan.Changes {
		out.Changes = append(out.Changes, changePB(i, c))
	}
	for _, c := range rep.Plan.Ineffective {
		out.Ineffective = append(out.Ineffective, changePB(-1, c))
	}
	for _, i := range rep.Minimal {
		if rep.Result == bisect.ResultMinimal {
			out.Minimal = append(out.Minimal, changePB(i, rep.Plan.Changes[i]))
		}
	}
	out.Probes = probesPB(rep.Probes)
	out.ProbesRun, out.ProbesCached = probeCounts(rep.Probes)
	return out
}

// probeCounts counts the probes that ran the test and those answered from
// the cache.
func probeCounts(ps []bisect.ProbeRecord) (run, cached int32) {
	for _, q := range ps {
		if q.Result.Cached {
			cached++
		} else {
			run++
		}
	}
	return run, cached
}

func writeBisectText(w io.Writer, r *pb.BisectReport) {
	r = pbprint.ForText(r) // names from the model stay on their line
	fmt.Fprintf(w, "changes: %d coarse, %d in all (2^%d subsets of the coarse ones)\n", r.CoarseChanges, r.AllChanges, r.CoarseChanges)
	for _, c := range r.Changes {
		tag := ""
		if c.Refines >= 0 {
			tag = fmt.Sprintf(" (narrows #%d)", c.Refines)
		}
		fmt.Fprintf(w, "  #%-2d %-10s %s%s\n", c.Index, c.Role, changeName(c), tag)
	}
	for _, c := range r.Ineffective {
		fmt.Fprintf(w, "  left out (changes nothing here, or its pass refuses this input): %s\n", changeName(c))
	}
	fmt.Fprintf(w, "probes: %d (%d run, %d cached)\n", len(r.Probes), r.ProbesRun, r.ProbesCached)
	for _, q := range r.Probes {
		cached := ""
		if q.Cached {
			cached = " cached"
		}
		fmt.Fprintf(w, "  %-11s exit %-3d %6.2fs%s  {%s}\n", strings.ToLower(q.Outcome.String()), q.ExitCode, q.Seconds, cached, int32List(q.Changes))
	}
	fmt.Fprintf(w, "result: %s: %s\n", r.Result, r.Message)
	for _, c := range r.Minimal {
		fmt.Fprintf(w, "  #%d %s   (anefix rewrite IN -o OUT %s)\n", c.Index, changeName(c), c.Flags)
	}
}

func changeName(c *pb.SearchChange) string {
	if len(c.Options) == 0 {
		return c.Pass
	}
	return c.Pass + " " + strings.Join(c.Options, " ")
}

func int32List(xs []int32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
