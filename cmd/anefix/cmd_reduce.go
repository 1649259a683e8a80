package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/samber/lo"
	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes/bisect"
	"github.com/anefix/anefix/passes/reduce"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

func init() {
	register(&command{
		Name:    "reduce",
		Usage:   "reduce IN --test CMD -o OUT [--force] [--json] [-j N] [--cache DIR] [--max-probes N] [--probe-timeout D]",
		Summary: "shrink a model while a test still holds, for a bug report",
		Help: `Shrinks IN while the shell command CMD still exits 0 ("still reproduces")
on it. Exit 125 means cannot tell (the step is not taken), 4 compiler
unavailable (reduce stops at once and exits 4), anything else "no longer
reproduces".

` + testCommandHelp + `

Steps, in order, each tried in chunks (halves, quarters, … down to single
targets): drop-graph (an entry graph, while another is left),
to-constant (an op's results become splat-zero constants), pass-through
(an op's results become an operand of the same type), shrink-constant (a
constant becomes a splat zero). dce runs after every step and every
candidate passes graph.Verify before it is tested.

OUT is the smallest model found, written atomically (an existing OUT only
with --force).

Exit: 0 reduced; 3 the test does not hold on IN, or --max-probes ran out
(OUT is then the smallest so far); 1 bad input; 2 usage; 4 compiler
unavailable.

Example:
  anefix reduce crash.aimodel --test 'anefix compile {} 2>&1 | grep -q "internal error"' -o small.aimodel`,
		Setup: runWith((*reduceFlags).declare, runReduce),
	})
}

// reduceFlags are reduce's flags: the search's (shared with bisect) and
// the output's.
type reduceFlags struct {
	searchOpts
	out   string
	force bool
}

func (o *reduceFlags) declare(fs *pflag.FlagSet) {
	o.searchOpts.declare(fs, "reduce")
	declareOutput(fs, &o.out)
	markRequired(fs, "output", "-o OUT", "a path: the reduced model")
	declareForce(fs, &o.force)
}

// runReduce is `anefix reduce`.
func runReduce(env *Env, f *reduceFlags, args []string) error {
	if len(args) != 1 {
		return usagef("reduce takes exactly one input, got %d", len(args))
	}
	if f.out == "-" {
		return usagef("reduce writes -o OUT to a path, not stdout")
	}
	in, out, force, o := args[0], f.out, f.force, &f.searchOpts
	r, err := o.runner(env, in)
	if err != nil {
		return err
	}
	if pathWithin(in, out) || pathWithin(out, in) {
		return fmt.Errorf("-o %s would write into the input %s; anefix never modifies its input, choose another path", out, in)
	}
	if err := modelio.CheckAbsent(out, force); err != nil {
		return err
	}
	src := bisect.Source{Path: in, IgnoreHash: o.ignoreHash}
	first, err := src.Open()
	if err != nil {
		return err
	}
	input := reportInput(in, first.Loaded())
	_, err = planOutput(env, out, first.Loaded(), "", 0, force)
	first.Close()
	if err != nil {
		return err
	}
	work, err := bisect.NewWorkdir(in)
	if err != nil {
		return err
	}
	defer work.Close()
	update, done := searchProgress(env, "reduce")
	p := &bisect.Prober{Ctx: context.Background(), Runner: r, Work: work, Progress: update}
	rep, best, err := reduce.Reduce(src, p)
	done()
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if best != "" {
		if err := reduce.Save(best, out, force); err != nil {
			return err
		}
	}
	rp := reduceReport(rep, o.test)
	rp.Input = input
	if best != "" {
		rp.Output = out
	}
	if err := writeSearchReport(env, o.json, rp, func() { writeReduceText(env.Stdout, rp) }); err != nil {
		return err
	}
	cacheNote(env, o, r, rp.Probes, rp.ProbesCached)
	return searchExit(rep.Result == reduce.ResultReduced, rep.Result == reduce.ResultNoCompiler, rep.Message)
}

func reduceReport(rep *reduce.Report, test string) *pb.ReduceReport {
	out := &pb.ReduceReport{SchemaVersion: pbprint.SchemaVersion, TestCommand: test, OpsBefore: int64(rep.OpsBefore), OpsAfter: int64(rep.OpsAfter),
		Result: rep.Result, Message: rep.Message, Probes: probesPB(rep.Probes)}
	for _, s := range rep.Steps {
		out.Removed = append(out.Removed, &pb.ReduceStep{Kind: s.Kind, Targets: s.Targets, OpsBefore: int64(s.OpsBefore), OpsAfter: int64(s.OpsAfter)})
	}
	for _, n := range reduce.SortedCounts(rep.Remaining) {
		out.Remaining = append(out.Remaining, &pb.OpCount{OpName: n, Count: int32(rep.Remaining[n])})
	}
	out.ProbesRun, out.ProbesCached = probeCounts(rep.Probes)
	return out
}

func writeReduceText(w io.Writer, r *pb.ReduceReport) {
	r = pbprint.ForText(r) // names from the model stay on their line
	fmt.Fprintf(w, "ops: %d -> %d\n", r.OpsBefore, r.OpsAfter)
	for _, s := range r.Removed {
		list := fmt.Sprint(s.Targets)
		if len(s.Targets) > 6 {
			list = fmt.Sprintf("%v … (%d in all)", s.Targets[:6], len(s.Targets))
		}
		fmt.Fprintf(w, "  %-15s %5d -> %-5d %s\n", s.Kind, s.OpsBefore, s.OpsAfter, list)
	}
	fmt.Fprintf(w, "probes: %d (%d run, %d cached)\n", len(r.Probes), r.ProbesRun, r.ProbesCached)
	if len(r.Remaining) > 0 {
		counts := lo.Map(r.Remaining, func(c *pb.OpCount, _ int) string { return fmt.Sprintf("%s %d", c.OpName, c.Count) })
		fmt.Fprintf(w, "remaining: %s\n", strings.Join(counts, ", "))
	}
	fmt.Fprintf(w, "result: %s: %s\n", r.Result, r.Message)
	if r.Output != "" {
		fmt.Fprintf(w, "wrote %s\n", r.Output)
	}
}
