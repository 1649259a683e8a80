// Package rewrite is `anefix rewrite` below the command line. From the
// parsed options it makes a Plan (the pipeline, the passes after which to
// print the IR, the output vetted); Run then takes a loaded input through
// the rest in one direction: the output's plan (graph/modelio), the
// pipeline (passes), check's verdict on the result (passes/ane) and the
// write with anefix's record of the run (graph/modelio, graph/bundle). It
// returns what happened as data (Result); cmd/anefix converts that to the
// report (proto anefix.v1.RewriteReport) once and prints it. Nothing here
// calls back into the command.
package rewrite

import (
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
	"github.com/anefix/anefix/passes/plandiff"
)

// Options are rewrite's parsed options.
type Options struct {
	// Out is the output path, "-" for stdout; "" with DryRun.
	Out string
	// Spec selects the pipeline and sets options (passes.Build).
	Spec passes.Spec
	// ArmD runs the seed's arm-D experiment: arm-d alone, plus the passes
	// Spec.Enable names (Spec.Passes and Spec.Disable must be empty).
	ArmD bool
	// DryRun runs the passes and writes nothing.
	DryRun bool
	// VerifyEach verifies the IR after every pass (it is always verified
	// after the last one, so unverified IR is never written).
	VerifyEach bool
	// PrintIRAfter names the passes after which the IR is printed to IR,
	// "all" for every pass.
	PrintIRAfter []string
	// Emit, BytecodeVersion and Force are the output's (modelio.PlanOutput).
	Emit            string
	BytecodeVersion int
	Force           bool

	// Tool names the writer in the bundle's record ("anefix 0.1.0").
	Tool string
	// Stdout receives the model for Out "-"; IR the printed IR.
	Stdout, IR io.Writer
	// StdoutIsTerminal refuses bytecode for Out "-" (Plan.RefuseTerminal).
	StdoutIsTerminal bool
	// Progress is where a long write may draw a bar (nil: none).
	Progress *os.File
	// MaxMemory bounds what a pass that allocates per weight may plan to
	// take for one weight (passes.RunOptions.MaxMemory; 0: no bound).
	MaxMemory int64
	// Diff fills Result.Diff: the plan diff of the input against the
	// rewritten module (passes/plandiff). It checks the input first and
	// keeps a copy of its ops (not its weights) for the comparison.
	Diff bool
	// Beside, when set, gives the files written beside the output (the
	// report) from the finished Result, once the output is complete and
	// before it is put in place: both are committed or neither, so a
	// report that cannot be made or written leaves no output.
	Beside func(*Result) ([]bundle.SideFile, error)
}

// plan is a rewrite decided before any input is read.
type plan struct {
	Options
	Pipeline   *passes.Pipeline
	printAll   bool
	printAfter map[string]bool
}

// NewPlan builds the pipeline and vets what needs no input: an unknown
// pass or option, a broken order, a --print-ir-after name outside the
// pipeline (each a *passes.UsageError) and an existing output without Force.
func NewPlan(o Options) (*plan, error) {
	spec := o.Spec
	if o.ArmD {
		// The seed's arm D is the builder's graph with only the recurrence,
		// per-head SDPA and RoPE replaced: arm-d alone, plus whatever the
		// user adds with --enable, in default order. This is exactly how
		// synth builds arm D.
		if len(spec.Passes) > 0 || len(spec.Disable) > 0 {
			return nil, &passes.UsageError{Msg: "--arm-d runs the seed's arm-D experiment (the arm-d pass alone); add passes with --enable, or list arm-d in --passes instead"}
		}
		spec.Passes = armDPipeline(spec.Enable)
		spec.Enable = nil
		spec.PassesByEnable = true
	}
	pl, err := passes.Build(spec)
	if err != nil {
		if !passes.IsUsage(err) { // Build's other errors (a pass's option defaults) are usage errors too, as rewrite has always said
			err = &passes.UsageError{Msg: err.Error()}
		}
		return nil, err
	}
	p := &plan{Options: o, Pipeline: pl, printAfter: map[string]bool{}}
	for _, n := range o.PrintIRAfter {
		if n == "all" {
			p.printAll = true
			continue
		}
		if !slices.Contains(pl.Names(), n) {
			return nil, &passes.UsageError{Msg: fmt.Sprintf("--print-ir-after %s: not a pass of this pipeline", n), Valid: append([]string{"all"}, pl.Names()...)}
		}
		p.printAfter[n] = true
	}
	if err := modelio.CheckAbsent(o.Out, o.Force); err != nil {
		return nil, err
	}
	return p, nil
}

// armDPipeline is arm-d followed by the extra passes, in default order.
func armDPipeline(extra []string) []string {
	want := map[string]bool{"arm-d": true}
	for _, n := range extra {
		want[n] = true
	}
	var out []string
	for _, n := range passes.Names() {
		if want[n] {
			out = append(out, n)
			delete(want, n)
		}
	}
	for _, n := range extra { // unknown names: let Build report them
		if want[n] {
			out = append(out, n)
			delete(want, n)
		}
	}
	return out
}

// Result is what a rewrite did.
type Result struct {
	Pipeline *passes.Pipeline
	// Run is the pipeline's run (the steps done so far when it failed).
	Run *passes.Result
	// Err is the pipeline's failure (a *passes.PassError, a usage error
	// only the model can refute, or the final verification); the module
	// is then partly rewritten and nothing was written.
	Err error
	// Check is check's verdict on the rewritten module (hazard rules
	// aside: they never change it and would read every weight).
	Check *ane.Report
	// Diff is the input against the rewritten module (Options.Diff; nil
	// otherwise and on a failure).
	Diff *plandiff.Diff
	// Written is what was written (nil for a dry run or a failure).
	Written *bundle.Result
	// Prepare is the time from the loaded input to the pipeline's start
	// (the output's plan, the input's verification); Write the write's.
	Prepare, Write time.Duration
}

// Run rewrites the input ld, read from path in, as p says. An error
// before the pipeline (an output the input cannot have, an input that
// does not verify) or after it (the verdict, the write) is returned as
// the error; the pipeline's own failure is Result.Err, with the steps
// done so far.
func (p *plan) Run(in string, ld *modelio.Loaded) (*Result, error) {
	t0 := time.Now()
	var out *modelio.Plan
	if !p.DryRun {
		var err error
		if out, err = modelio.PlanOutput(p.Out, ld, p.Emit, p.BytecodeVersion, p.Force); err != nil {
			return nil, err
		}
		if err = out.RefuseTerminal(p.StdoutIsTerminal); err != nil {
			return nil, err
		}
	}
	if err := passes.VerifyInput(ld.Module, in,
		"rewrite writes a model, so it needs them: rewrite the complete export (inspect and check work without the weights)",
		"no pass runs on it"); err != nil {
		return nil, err
	}
	var before plandiff.Side
	if p.Diff {
		var err error
		if before, err = inputSide(in, ld); err != nil {
			return nil, err
		}
	}
	r := &Result{Pipeline: p.Pipeline, Prepare: time.Since(t0)}
	bars := passBars{f: p.Progress}
	r.Run, r.Err = p.Pipeline.Run(ld.Module, passes.RunOptions{
		VerifyEach:  p.VerifyEach,
		VerifyAfter: true, // never write unverified IR
		AfterPass:   p.printIR,
		MaxMemory:   p.MaxMemory,
		Progress:    bars.report,
	})
	bars.done()
	if r.Err != nil {
		return r, nil
	}
	var err error
	if r.Check, err = ane.CheckWith(ld.Module, ane.Options{NoHazards: true, Placement: p.Diff}); err != nil {
		return nil, fmt.Errorf("%s: check on the rewritten module: %w; nothing written", in, err)
	}
	if p.Diff {
		after := plandiff.Side{Module: ld.Module, Report: r.Check, Path: p.Out}
		if r.Diff, err = plandiff.Compute(before, after); err != nil {
			return nil, fmt.Errorf("%s: the plan diff of the input against the rewritten module: %w; nothing written", in, err)
		}
	}
	if p.DryRun {
		// Nothing is written, so no write waits for the input's main.hash
		// check (bundle.Write does): wait here, so that a dry run refuses
		// a damaged bundle (or warns, with IgnoreHash) as check does.
		if err := ld.Input.CheckHash(); err != nil {
			return nil, err
		}
		return r, nil
	}
	t1 := time.Now()
	rec := r.Run.Record(p.Tool)
	rec.Pipelines = []string{p.Pipeline.String()} // rewrite --pipeline takes it back
	so := modelio.SaveOptions{Stdout: p.Stdout, Progress: p.Progress, Record: &rec}
	if p.Beside != nil {
		so.Beside = func(w *bundle.Result) ([]bundle.SideFile, error) {
			r.Written, r.Write = w, time.Since(t1)
			return p.Beside(r)
		}
	}
	if r.Written, err = out.Save(ld.Module, ld, so); err != nil {
		return nil, err
	}
	if p.Beside == nil {
		r.Write = time.Since(t1)
	}
	return r, nil
}

// printIR prints the IR after pass when the plan asks for it. Weights
// would drown the IR (and can be gigabytes): the blobs are left out,
// their dense_resource handles stay.
func (p *plan) printIR(pass string, m *graph.Module) error {
	if !p.printAll && !p.printAfter[pass] {
		return nil
	}
	fmt.Fprintf(p.IR, "// ----- IR after %s (resource blobs omitted) -----\n", pass)
	res := m.Resources
	m.Resources = nil
	defer func() { m.Resources = res }()
	return mlirtext.Write(p.IR, m, mlirtext.FormPretty)
}

// inputSide checks the input as the plan diff compares it and copies its
// ops, which the pipeline rewrites in place; the copy has no resource
// table (the weights' bytes), which the diff does not read.
func inputSide(in string, ld *modelio.Loaded) (plandiff.Side, error) {
	rep, err := ane.CheckWith(ld.Module, ane.Options{NoHazards: true, Placement: true})
	if err != nil {
		return plandiff.Side{}, fmt.Errorf("%s: check on the input, for the plan diff: %w", in, err)
	}
	return plandiff.Side{Module: &graph.Module{Op: ld.Module.Op.Clone(nil)}, Report: rep, Path: ld.TextName()}, nil
}

// passBars draws a bar for each pass that reports its progress
// (passes.Context.Progress), on a terminal only.
type passBars struct {
	f    *os.File
	pass string
	bar  bundle.Bar
}

func (b *passBars) report(pass string, done, total int64, unit string) {
	if b.f == nil {
		return
	}
	if pass != b.pass {
		b.done()
		b.pass, b.bar = pass, bundle.NewCountBar(b.f, pass, total, unit)
	}
	b.bar.Set(done)
}

func (b *passBars) done() {
	b.bar.Done()
	b.bar, b.pass = bundle.Bar{}, ""
}
