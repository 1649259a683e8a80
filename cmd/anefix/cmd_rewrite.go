package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/samber/lo"
	"github.com/spf13/pflag"
	"google.golang.org/protobuf/proto"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
	"github.com/anefix/anefix/passes/rewrite"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

func init() {
	register(&command{
		Name:        "rewrite",
		StdoutModel: true,
		Usage:       "rewrite IN -o OUT [--passes a,b | --enable X --disable Y] [--set pass.opt=v] [--arm-d] [--dry-run]",
		Summary:     "run the pass pipeline that makes an export ANE-legal and write the result",
		Help: `Loads IN (an .aimodel, an LLM bundle, a .mlirb bytecode file or .mlir text),
runs the pass pipeline, verifies the IR after every pass, and writes OUT in
IN's kind (an .aimodel stays an .aimodel) unless OUT's extension or --emit
says otherwise. 'anefix passes' lists the passes and their options.

The pipeline is the default one (passes marked "on"), toggled with --enable
and --disable (repeatable, comma lists), or exactly the list given with
--passes, or given whole with --pipeline STRING (every pass in order with
its options, as --print-pipeline prints it and anefix.json records it, so a
rewrite can be repeated exactly). --arm-d reproduces the seed's arm-D experiment: it runs the arm-d
pass alone (plus passes named with --enable), so the recurrence, per-head
SDPA and RoPE become pass-throughs and the graph is otherwise as exported;
on synth arm A it gives the IR of 'anefix synth --arm D' (not the same bytes:
the encoding and metadata.json differ). --set pass.option=value sets
an option (repeatable). A pipeline that breaks an ordering constraint, an
unknown pass or a bad option is a usage error (exit 2) listing the valid
names. A pass that cannot handle the input stops with the pass, op id,
source and what to do (exit 1); nothing is written.

palettize and quantize-weights take per-weight settings in one run
(--set 'palettize.rules=*attn*:bits=6,*mlp*:bits=4': the first rule whose
pattern matches a weight sets it, quote the value for the shell); the
summary lists per rule its weights' bytes before → after, a --dry-run
also the weights by name, without writing anything.

A summary of what each pass changed goes to stderr; the reports of --compile
and --verify go to stdout (to stderr with --json); --report FILE writes the
full report as JSON (proto anefix.v1.RewriteReport), --json prints it on
stdout (not with -o -); both are the same bytes on every run unless --timings
adds wall times (to them and to the summary). --diff adds to it the plan
diff of IN against the output (planDiff: what 'anefix diff IN OUT' prints). --print-ir-after PASS|all prints the IR after that
pass to stderr. --max-memory SIZE (default 8GiB) bounds the memory
palettize, quantize-weights and legalize-weights may plan for one weight:
each weight is estimated before any changes, and one over SIZE stops the
rewrite (exit 1) naming it, the estimate and options that need less.
--max-work N bounds the run of --verify as it bounds verify's.

Examples:
  anefix rewrite model.aimodel -o model.fixed.aimodel
  anefix rewrite armA.mlir -o - --emit pretty --passes strip-fp32-casts
  anefix rewrite model.aimodel -o d.aimodel --arm-d --report d.json
  anefix rewrite model.aimodel --dry-run --disable promote-states --set strip-fp32-casts.clamp=true
  anefix rewrite model.aimodel --dry-run --enable palettize --set 'palettize.rules=*attn*:bits=6:group-size=4,*mlp*:bits=4'`,
		Setup: runWith((*rewriteFlags).declare, runRewrite),
	})
}

// rewriteFlags are rewrite's flags: the rewrite's own options
// (passes/rewrite) and what the command does around it.
type rewriteFlags struct {
	rewrite.Options
	report           string
	json, ignoreHash bool
	timings          bool
	compile, verify  bool
	printPipeline    bool
	maxMem           sizeFlag
	maxWork          int64 // of --verify
	fs               *pflag.FlagSet
}

func (o *rewriteFlags) declare(fs *pflag.FlagSet) {
	declareOutput(fs, &o.Out)
	fs.StringSliceVar(&o.Spec.Passes, "passes", nil, "run exactly these passes, in this order (comma list)")
	fs.StringSliceVar(&o.Spec.Enable, "enable", nil, "switch passes on within the default pipeline (repeatable, comma list)")
	fs.StringSliceVar(&o.Spec.Disable, "disable", nil, "switch passes off within the default pipeline (repeatable, comma list)")
	fs.StringArrayVar(&o.Spec.Set, "set", nil, "set a pass option: pass.option=value (repeatable)")
	flagPasses(fs, "passes")
	flagPasses(fs, "enable")
	flagPasses(fs, "disable")
	flagPassSet(fs, "set")
	fs.StringVar(&o.Spec.Pipeline, "pipeline", "", "run exactly this pipeline, as --print-pipeline prints it (not with --passes, --enable, --disable, --set, --arm-d)")
	fs.BoolVar(&o.printPipeline, "print-pipeline", false, "print the pipeline as one string (every pass and option, for --pipeline) on stdout and exit")
	fs.BoolVar(&o.ArmD, "arm-d", false, "switch the arm-d pass on (the seed's arm D experiment)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "run the passes and report, write nothing")
	fs.StringSliceVar(&o.PrintIRAfter, "print-ir-after", nil, "print the IR to stderr after PASS (comma list) or after all passes")
	flagPasses(fs, "print-ir-after", "all")
	fs.BoolVar(&o.VerifyEach, "verify-each", true, "verify the IR after every pass (--verify-each=false to skip)")
	fs.StringVar(&o.report, "report", "", "write the report as JSON to FILE (an existing FILE only with --force)")
	fs.BoolVar(&o.Diff, "diff", false, "with --report or --json: add the plan diff of IN against the rewritten module (planDiff, as 'anefix diff IN OUT'; checks IN too)")
	declareJSON(fs, &o.json)
	declareTimings(fs, &o.timings)
	declareForce(fs, &o.Force)
	declareEmit(fs, &o.Emit)
	declareBytecodeVersion(fs, &o.BytecodeVersion)
	declareIgnoreHash(fs, &o.ignoreHash)
	fs.BoolVar(&o.compile, "compile", false, "after writing, compile input and output with coreai-build and print ANE regions before → after")
	fs.BoolVar(&o.verify, "verify", false, "after writing, run anefix verify on input vs output (teacher-forced, 8 streams over the whole context, the default gates; exit 3 when missed)")
	declareMaxMemory(fs, &o.maxMem)
	declareMaxWork(fs, &o.maxWork)
	o.fs = fs
}

// runRewrite is `anefix rewrite`: the flags checked, the plan made
// (passes/rewrite), the input loaded and rewritten by it; then the result
// converted to the report once (rewriteReportOf), printed, and the optional
// compile and verify of the output.
func runRewrite(env *Env, o *rewriteFlags, args []string) error {
	if o.printPipeline {
		return rwPrintPipeline(env, o, args)
	}
	if len(args) != 1 {
		return usagef("want exactly one input, got %d", len(args))
	}
	in := args[0]
	if err := rwCheckFlags(o); err != nil {
		return err
	}
	o.Tool, o.Stdout, o.IR, o.Progress = toolName(), env.Stdout, env.Stderr, progressFile(env)
	o.StdoutIsTerminal = env.StdoutIsTTY
	o.MaxMemory = int64(o.maxMem)
	plan, err := rewrite.NewPlan(o.Options)
	if passes.IsUsage(err) {
		return withCode(exitUsage, err)
	} else if err != nil {
		return err
	}
	if o.report != "" {
		// Vetted before the work, like the output: a report path that is
		// the input (or inside it) would overwrite the input.
		if err := checkSideOutput("--report", o.report, in, o.Out, o.Force); err != nil {
			return err
		}
	}
	t0 := time.Now()
	ld, err := loadInput(env, in, o.ignoreHash)
	if err != nil {
		return err
	}
	defer ld.Close()
	load := time.Since(t0)
	defer loadedGC(ld)()
	// The report describes the written output, yet a report that cannot be
	// made or written must leave no output: it is made once the output is
	// complete and committed with it, both or neither (rewrite.Options.Beside).
	var rep *pb.RewriteReport
	var committed []byte
	if o.report != "" || o.json {
		plan.Beside = func(res *rewrite.Result) ([]bundle.SideFile, error) {
			rep, _ = rewriteReportOf(o, in, ld, res, load, true)
			b, err := protoJSON(rep)
			if err != nil {
				return nil, fmt.Errorf("making the report: %w; nothing written", err)
			}
			committed = b
			if o.report == "" {
				return nil, nil
			}
			return []bundle.SideFile{{Path: o.report, Data: b, Force: o.Force}}, nil
		}
	}
	res, err := plan.Run(in, ld)
	if err != nil {
		return usage(err)
	}
	var gs *checkGroups
	if rep == nil { // a dry run or a failure: no write called Beside
		rep, gs = rewriteReportOf(o, in, ld, res, load, o.report != "" || o.json)
	}
	writeRewriteSummary(env.Stderr, rep, gs, o.timings)
	if res.Err != nil {
		if err := writeRewriteReport(env, o, rep); err != nil {
			fmt.Fprintf(env.Stderr, "anefix rewrite: %v\n", err)
		}
		err := fmt.Errorf("%s: %w; nothing written", in, res.Err)
		if passes.IsUsage(res.Err) {
			// An option value only the model can refute (an islands
			// pattern that matches no op): the command line is wrong.
			return withCode(exitUsage, err)
		}
		return err
	}
	if committed != nil {
		if o.json {
			if _, err := env.Stdout.Write(committed); err != nil {
				return err
			}
		}
	} else if err := writeRewriteReport(env, o, rep); err != nil {
		return err
	}
	// After OUT is written: rewriteCompile (cmd_compile.go) and
	// rewriteVerify (cmd_verify.go), on the paths the user gave.
	report := o.reportWriter(env)
	if o.compile {
		if err := rewriteCompile(env, report, in, o.Out); err != nil {
			return err
		}
	}
	if o.verify {
		if err := rewriteVerify(env, report, in, o.Out, o.maxWork, o.timings); err != nil {
			return err
		}
	}
	return nil
}

// reportWriter is where the reports of --compile and --verify go: stdout,
// as `anefix compile` and `anefix verify` print them, unless stdout
// carries the model (-o -) or the JSON report (--json); then stderr, so
// that stdout stays one thing. (The summary of what the passes did is
// rewrite's log, on stderr like convert's "wrote".)
func (o *rewriteFlags) reportWriter(env *Env) io.Writer {
	if o.Out == "-" || o.json {
		return env.Stderr
	}
	return env.Stdout
}

// rewriteReportOf is the one conversion of a rewrite's result to the report
// (proto anefix.v1.RewriteReport); load is the time loadInput took. With
// all the check holds its groups (the JSON report); without, they are
// left out of it and returned for the text summary, made one at a time as
// it prints them (rwCheckText).
func rewriteReportOf(o *rewriteFlags, in string, ld *modelio.Loaded, res *rewrite.Result, load time.Duration, all bool) (*pb.RewriteReport, *checkGroups) {
	rep := &pb.RewriteReport{SchemaVersion: pbprint.SchemaVersion, DryRun: o.DryRun, VerifyEach: o.VerifyEach, Output: o.Out, Input: reportInput(in, ld)}
	rwFillReport(rep, res.Pipeline, res.Run)
	if o.timings {
		rwFillTimings(rep, load+res.Prepare, res.Run)
	}
	if res.Err != nil {
		rep.Error = res.Err.Error()
		var pe *passes.PassError
		if errors.As(res.Err, &pe) {
			rep.FailedPass = pe.Pass
		}
		return rep, nil
	}
	// Handed over, not kept: once grouped, the rule model's findings (about
	// 150 bytes an op of issue 28's 500k-op chain) can go while the groups
	// become messages (checkReport), and while the report is printed.
	chk := res.Check
	res.Check = nil
	var gs *checkGroups
	if all {
		rep.Check = rwCheck(chk)
	} else {
		rep.Check, gs = rwCheckText(chk)
	}
	if res.Diff != nil {
		rep.PlanDiff = planDiffReport(res.Diff)
	}
	if wr := res.Written; wr != nil {
		if o.timings {
			rep.WriteNs = res.Write.Nanoseconds()
		}
		rep.Written = true
		rep.OutputKind = wr.Kind.String()
		rep.OutputHash = wr.Hash
		rep.OutputSize = wr.MainSize
	}
	return rep, gs
}

// rwHazardNote is the rewrite report's hazard_notes: its check runs
// without the fp16 hazard rules (passes/rewrite), which never change a
// verdict and would read every weight.
const rwHazardNote = "fp16 hazard rules not run by rewrite; anefix check OUT runs them"

// rwCheck is check's report on the rewritten module: the message `anefix
// check OUT --json` prints, with input left unset (the module is the
// report's output) and no hazards (rwHazardNote).
func rwCheck(r *ane.Report) *pb.CheckReport {
	cr := checkReport(r, true)
	cr.HazardNotes = append(cr.HazardNotes, rwHazardNote)
	return cr
}

// rwCheckText is rwCheck without the groups, which come as sequences
// instead, each group made and converted as it is read (as check's text
// report does, textGroups): on issue 28's 500k-op chain, with a blocker
// group per op, every group at once as a message was 108 MB on top of the
// module, where the grouping holds 12 bytes a finding.
func rwCheckText(r *ane.Report) (*pb.CheckReport, *checkGroups) {
	cr := checkSummary(r, false)
	cr.HazardNotes = append(cr.HazardNotes, rwHazardNote)
	gs := textGroups(r)
	return cr, &gs
}

// rwCheckFlags rejects flag combinations rewrite cannot honour, before any work.
func rwCheckFlags(o *rewriteFlags) error {
	switch {
	case o.Out == "" && !o.DryRun:
		return usagef("-o OUT is required (or --dry-run)")
	case o.Out != "" && o.DryRun:
		return usagef("--dry-run writes nothing; drop -o")
	case o.report == "-":
		return usagef("--report takes a file; --json prints the report on stdout")
	case o.json && o.Out == "-":
		return usagef("--json prints the report on stdout, which -o - already uses for the IR; use --report FILE")
	case o.Diff && o.report == "" && !o.json:
		return usagef("--diff adds the plan diff to the report: give --report FILE or --json (or run 'anefix diff IN OUT')")
	case o.DryRun && (o.compile || o.verify):
		return usagef("--compile and --verify need a written output; drop --dry-run")
	}
	if o.fs != nil && o.fs.Changed("max-work") && !o.verify {
		return usagef("--max-work bounds the run of --verify; give --verify or drop it")
	}
	if err := checkMaxWork(o.maxWork); err != nil {
		return err
	}
	if err := checkOutputFlags(o.Emit, o.BytecodeVersion); err != nil {
		return err
	}
	return nil
}

func rwContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func rwCensus(c passes.Census) []*pb.TypeCount {
	var out []*pb.TypeCount
	for _, k := range c.Sorted() {
		out = append(out, &pb.TypeCount{Type: k, Count: count32(c[k])})
	}
	return out
}

func rwOpRef(r passes.OpRef) *pb.OpRef {
	return &pb.OpRef{Graph: r.Graph, OpId: r.OpID, OpName: r.OpName, Source: r.Source}
}

// rwFillReport copies a pipeline result into the report.
func rwFillReport(rep *pb.RewriteReport, pl *passes.Pipeline, res *passes.Result) {
	if res == nil {
		return
	}
	if pl != nil && pl.Context != nil {
		for _, v := range pl.Context.Settings.Values() {
			rep.Settings = append(rep.Settings, &pb.PassOption{Name: v.Name, Value: v.Value, Set: rwContains(pl.SettingsSet, v.Name)})
		}
	}
	rep.CensusBefore = rwCensus(res.CensusBefore)
	rep.CensusAfter = rwCensus(res.CensusAfter)
	for _, s := range res.Steps {
		pr := &pb.PassRun{Name: s.Pass}
		opts := slices.Clone(s.Options)
		sort.Slice(opts, func(i, j int) bool { return opts[i].Name < opts[j].Name })
		for _, o := range opts {
			pr.Options = append(pr.Options, &pb.PassOption{Name: o.Name, Value: o.Value, Set: rwContains(s.Set, o.Name)})
		}
		if ch := s.Change; ch != nil {
			pr.OpsRemoved, pr.OpsAdded, pr.OpsRetyped = count32(ch.OpsRemoved), count32(ch.OpsAdded), count32(ch.OpsRetyped)
			for _, io := range ch.IOChanges {
				kind := pb.IOChange_RETYPED
				if io.Before == io.After {
					kind = pb.IOChange_KIND_UNSPECIFIED // a role or attribute change (promote-states)
				}
				before := &pb.Port{Name: io.Port, Type: io.Before}
				if io.Before == "" { // a new port (externalize-constant)
					kind, before = pb.IOChange_ADDED, nil
				}
				pr.IoChanges = append(pr.IoChanges, &pb.IOChange{
					Graph: io.Graph, Kind: kind, IsOutput: io.IsOutput, Reason: io.Why,
					Before: before, After: &pb.Port{Name: io.Port, Type: io.After},
				})
			}
			for _, c := range ch.Constants {
				pr.Constants = append(pr.Constants, &pb.ConstantConversion{Op: rwOpRef(c.Op), Resource: c.Resource, From: c.From, To: c.To,
					Elements: count32(c.Elements), Overflow: count32(c.Overflow), Underflow: count32(c.Underflow)})
			}
			for _, sc := range ch.StateScales {
				pr.StateScales = append(pr.StateScales, &pb.StateScale{Graph: sc.Graph, State: sc.State, Log2: int32(sc.Log2), Form: sc.Form})
			}
			for _, st := range ch.States {
				pr.States = append(pr.States, &pb.StatePromotion{Graph: st.Graph, Input: st.Input, Output: st.Output})
			}
			for _, r := range ch.Replaced {
				pr.Replaced = append(pr.Replaced, rwOpRef(r))
			}
			for _, st := range ch.PlainStates {
				pr.PlainStates = append(pr.PlainStates, &pb.StatePromotion{Graph: st.Graph, Input: st.Input, Output: st.Output})
			}
			for _, e := range ch.ConstantInputs {
				pr.Externalized = append(pr.Externalized, &pb.ExternalizedConstant{Graph: e.Graph, Input: e.Input, Index: count32(int64(e.Index)),
					Op: &pb.OpRef{Graph: e.Graph, OpId: e.OpID, OpName: e.OpName, Source: e.Source}, Resource: e.Resource, Type: e.Type, Shape: e.Shape, Dtype: e.DType, Bytes: e.Bytes})
			}
			rwCompressed(pr, ch.Compressed, ch.Left)
			rwRules(pr, ch.Rules)
			pr.Notes = append(pr.Notes, ch.Notes...)
		}
		rep.Passes = append(rep.Passes, pr)
	}
}

// rwCompressed copies a compression pass's per-weight records and their
// total into the report.
func rwCompressed(pr *pb.PassRun, cws []passes.CompressedWeight, left []passes.LeftWeight) {
	if len(cws)+len(left) == 0 {
		return
	}
	tot := &pb.CompressionTotal{MinSnrDb: math.Inf(1), Taken: count32(len(cws) + len(left)), Left: count32(len(left))}
	for _, l := range left {
		pr.Left = append(pr.Left, &pb.LeftWeight{Name: l.Name, Op: rwOpRef(l.Op), Resource: l.Resource, Type: l.Type, Bytes: l.Bytes,
			Rule: int32(l.Rule), Reason: l.Reason, Hint: l.Hint})
		tot.LeftBytes += l.Bytes
	}
	var sig, errp float64
	for _, c := range cws {
		pr.Compressed = append(pr.Compressed, &pb.CompressedWeight{Op: rwOpRef(c.Op), Resource: c.Resource, Type: c.Type, Form: c.Form,
			Group: c.Group, BytesBefore: c.BytesBefore, BytesAfter: c.BytesAfter, SnrDb: c.SNR, Exact: math.IsInf(c.SNR, 1), Rule: int32(c.Rule), Name: c.Name})
		tot.Weights++
		tot.BytesBefore += c.BytesBefore
		tot.BytesAfter += c.BytesAfter
		sig += c.SignalPower
		errp += c.ErrorPower
		if c.SNR < tot.MinSnrDb || tot.MinSnrOp == nil { // the first, when every weight is exact
			tot.MinSnrDb, tot.MinSnrOp = c.SNR, rwOpRef(c.Op)
		}
	}
	tot.SnrDb = passes.SNRdB(sig, errp)
	tot.Exact = len(cws) > 0 && math.IsInf(tot.MinSnrDb, 1)
	if len(cws) == 0 {
		tot.SnrDb, tot.MinSnrDb = math.NaN(), math.NaN() // no weight: no SNR (null)
	}
	pr.Compression = tot
}

// rwRules copies what each rule of a compression pass's rules option
// selected, and their total, into the report: the rules in the order
// written, then the pass's own options.
func rwRules(pr *pb.PassRun, uses []passes.RuleUse) {
	if len(uses) == 0 {
		return
	}
	tot := &pb.CompressionRulesTotal{}
	for _, u := range append(slices.Clone(uses[1:]), uses[0]) {
		pr.Rules = append(pr.Rules, &pb.CompressionRule{Index: int32(u.Index), Rule: u.Rule, Form: u.Form, Skip: u.Skip,
			Weights: u.Weights, Count: count32(len(u.Weights)), Shadowed: u.Shadowed, Left: count32(u.Left),
			BytesBefore: u.BytesBefore, BytesAfter: u.BytesAfter, Compressed: count32(u.Compressed), LeftBytes: u.LeftBytes})
		tot.Weights += count32(len(u.Weights))
		tot.BytesBefore += u.BytesBefore
		tot.BytesAfter += u.BytesAfter
		tot.Compressed += count32(u.Compressed)
		tot.Left += count32(u.Left)
		tot.LeftBytes += u.LeftBytes
	}
	pr.RulesTotal = tot
}

// writeRules prints a compression pass's rules table: per rule the
// weights it took, compressed (bytes before → after) and left as they are
// (their bytes) with why each is left, and with names (a dry run) the
// weights compressed and those an earlier rule took from it.
func writeRules(w io.Writer, p *pb.PassRun, names bool) {
	if len(p.Rules) == 0 {
		return
	}
	fmt.Fprintf(w, "  rules (the first rule that matches a weight sets it; the others keep the pass's options):\n")
	for _, r := range p.Rules {
		label := fmt.Sprintf("rule %d %s", r.Index, r.Rule)
		if r.Index == 0 {
			label = "no rule matched"
		}
		fmt.Fprintf(w, "    %s → %s: %s\n", label, r.Form, takenLine(r.Count, r.Compressed, r.Left, r.BytesBefore-r.LeftBytes, r.BytesAfter-r.LeftBytes, r.LeftBytes, false))
		if names {
			var done []string
			for _, c := range p.Compressed {
				if c.Rule == r.Index {
					done = append(done, c.Name)
				}
			}
			writeNameList(w, "      compressed: ", done)
		}
		writeLeft(w, "      ", p.Left, r.Index) // always, as notes are
		if names {
			if len(r.Shadowed) > 0 {
				writeNameList(w, "      also matches, taken by an earlier rule: ", r.Shadowed)
			}
		}
	}
	t := p.RulesTotal
	fmt.Fprintf(w, "    total: %s\n", takenLine(t.Weights, t.Compressed, t.Left, t.BytesBefore-t.LeftBytes, t.BytesAfter-t.LeftBytes, t.LeftBytes, true))
}

// takenLine says what became of the weights a pass or rule took: "4
// taken: 1 compressed 4096 → 1794 bytes, 3 left as they are (13056
// bytes)"; the bytes before → after are the compressed weights', with
// binary units too when human (the total, which the headline's agree with).
func takenLine(taken, compressed, left int32, before, after, leftBytes int64, human bool) string {
	if compressed == 0 {
		return fmt.Sprintf("%d taken: 0 compressed, %d left as they are (%d bytes)", taken, left, leftBytes)
	}
	s := fmt.Sprintf("%d taken: %d compressed %d → %d bytes", taken, compressed, before, after)
	if human {
		s += fmt.Sprintf(" (%s → %s)", humanBytes(before), humanBytes(after))
	}
	if left > 0 {
		s += fmt.Sprintf(", %d left as they are (%d bytes)", left, leftBytes)
	}
	return s
}

// writeLeft prints the weights of rules entry rule (-1: all) a pass left
// as they are, one a line: name, why, and a setting that would take it.
func writeLeft(w io.Writer, indent string, left []*pb.LeftWeight, rule int32) {
	for _, l := range left {
		if rule >= 0 && l.Rule != rule {
			continue
		}
		hint := ""
		if l.Hint != "" {
			hint = "; " + l.Hint + " would take it"
		}
		fmt.Fprintf(w, "%sleft: %s (%s): %s%s\n", indent, l.Name, l.Type, l.Reason, hint)
	}
}

// writeNameList prints names after prefix, comma-separated, a line each
// 100 characters or so.
func writeNameList(w io.Writer, prefix string, names []string) {
	line := prefix
	for i, n := range names {
		if i > 0 {
			line += ", "
		}
		if len(line) > 100 {
			fmt.Fprintln(w, strings.TrimRight(line, " "))
			line = "        "
		}
		line += n
	}
	if len(names) > 0 {
		fmt.Fprintln(w, line)
	}
}

// rwFillTimings adds the wall times (--timings only: they differ from run
// to run, and the report without them is the same bytes on every run).
func rwFillTimings(rep *pb.RewriteReport, read time.Duration, res *passes.Result) {
	rep.ReadNs = read.Nanoseconds()
	if res == nil {
		return
	}
	rep.PipelineNs = res.Duration.Nanoseconds()
	for i, s := range res.Steps {
		if i < len(rep.Passes) {
			rep.Passes[i].DurationNs, rep.Passes[i].VerifyNs = s.Duration.Nanoseconds(), s.Verify.Nanoseconds()
		}
	}
}

func writeRewriteReport(env *Env, o *rewriteFlags, rep *pb.RewriteReport) error {
	if o.report == "" && !o.json {
		return nil
	}
	b, err := protoJSON(rep)
	if err != nil {
		return err
	}
	if o.report != "" {
		if err := bundle.WriteFile(o.report, b, o.Force, nil); err != nil {
			return fmt.Errorf("writing report: %w", err)
		}
	}
	if o.json {
		_, err = env.Stdout.Write(b)
	}
	return err
}

// humanBytes prints a byte count with a binary unit.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// dB prints an SNR ("exact" for no error).
func dB(x float64) string {
	if math.IsInf(x, 1) {
		return "exact"
	}
	return fmt.Sprintf("%.1f dB", x)
}

// lowest names the weight with the lowest SNR and its form.
func lowest(p *pb.PassRun) (name, form string) {
	for _, c := range p.Compressed {
		if c.SnrDb == p.Compression.MinSnrDb {
			return c.Name, c.Form
		}
	}
	return "", ""
}

// compressionHeadline is a compression pass's summary: the weights taken,
// compressed (their bytes and SNR) and left as they are.
func compressionHeadline(c *pb.CompressionTotal) string {
	s := fmt.Sprintf("%d weights taken: %d compressed", c.Taken, c.Weights)
	if c.Weights > 0 {
		s += fmt.Sprintf(" %s → %s (%.1f%%), SNR %s overall, lowest %s",
			humanBytes(c.BytesBefore), humanBytes(c.BytesAfter), 100*float64(c.BytesAfter)/float64(max(c.BytesBefore, 1)), dB(c.SnrDb), dB(c.MinSnrDb))
	}
	if c.Left > 0 {
		s += fmt.Sprintf(", %d left as they are (%s)", c.Left, humanBytes(c.LeftBytes))
	}
	return s
}

// protoJSON prints a report for --json (proto/pbprint: any byte sequence a
// name holds is printable).
func protoJSON(m proto.Message) ([]byte, error) { return pbprint.Marshal(m) }

// writeRewriteSummary prints what each pass did, for people. gs, when not
// nil, are the check's groups (rewriteReportOf), else rep.Check's are
// printed.
func writeRewriteSummary(w io.Writer, rep *pb.RewriteReport, gs *checkGroups, timings bool) {
	rep = pbprint.ForText(rep) // names from the model stay on their line
	for _, p := range rep.Passes {
		var parts []string
		add := func(n int32, what string) {
			if n != 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, what))
			}
		}
		add(p.OpsRemoved, "ops removed")
		add(p.OpsAdded, "ops added")
		add(p.OpsRetyped, "ops retyped")
		add(count32(len(p.IoChanges)), "I/O changes")
		if n := len(p.Constants); n > 0 {
			var ov, un int64
			for _, c := range p.Constants {
				ov += int64(c.Overflow)
				un += int64(c.Underflow)
			}
			parts = append(parts, fmt.Sprintf("%d constants converted (%d overflow, %d underflow)", n, ov, un))
		}
		add(count32(len(p.States)), "states promoted")
		add(count32(len(p.PlainStates)), "states made plain I/O")
		add(count32(len(p.Externalized)), "constants made inputs")
		add(count32(len(p.Replaced)), "ops replaced")
		if c := p.Compression; c != nil {
			parts = append(parts, compressionHeadline(c))
		}
		if len(parts) == 0 {
			parts = []string{"no change"}
		}
		status := ""
		if p.Name == rep.FailedPass {
			status = "FAILED: "
		}
		timing := ""
		if timings {
			timing = fmt.Sprintf(" (%s)", time.Duration(p.DurationNs).Round(time.Microsecond))
		}
		fmt.Fprintf(w, "%-18s %s%s%s\n", p.Name, status, strings.Join(parts, ", "), timing)
		for _, io := range p.IoChanges {
			dir := "input"
			if io.IsOutput {
				dir = "output"
			}
			if io.Kind == pb.IOChange_ADDED {
				fmt.Fprintf(w, "  @%s new %s %s: %s: %s\n", io.Graph, dir, io.After.GetName(), io.After.GetType(), io.Reason)
				continue
			}
			if io.Before.GetType() == io.After.GetType() {
				fmt.Fprintf(w, "  @%s %s %s: %s\n", io.Graph, dir, io.Before.GetName(), io.Reason)
				continue
			}
			fmt.Fprintf(w, "  @%s %s %s: %s → %s\n", io.Graph, dir, io.Before.GetName(), io.Before.GetType(), io.After.GetType())
		}
		// p.States is not listed: each promotion's two I/O lines above say
		// it, and "state conv_state → new_conv_state" read as the reverse
		// of the rename that happened.
		if len(p.Compressed) > 0 {
			name, form := lowest(p)
			op := p.Compression.MinSnrOp
			where := []string{op.GetOpName()}
			if id := op.GetOpId(); id != "" && id != name {
				where = append(where, id)
			}
			if src := op.GetSource(); src != "" {
				where = append(where, "at "+src)
			}
			fmt.Fprintf(w, "  lowest SNR: %s (%s, %s) %s; every weight is in --report\n", name, strings.Join(where, " "), dB(p.Compression.MinSnrDb), form)
		}
		writeRules(w, p, rep.DryRun)
		if len(p.Rules) == 0 {
			writeLeft(w, "  ", p.Left, -1)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	if rep.Error != "" && len(rep.CensusAfter) == 0 && len(rep.CensusBefore) > 0 {
		// A failed pipeline has no census after: "f16 4→0" would read as
		// if every value had gone.
		var parts []string
		for _, c := range rep.CensusBefore {
			parts = append(parts, fmt.Sprintf("%s %d", c.Type, c.Count))
		}
		fmt.Fprintf(w, "values by element type in the input (the pipeline stopped): %s\n", strings.Join(parts, ", "))
	} else if len(rep.CensusBefore)+len(rep.CensusAfter) > 0 {
		before, after := map[string]int32{}, map[string]int32{}
		var keys []string
		for _, c := range rep.CensusBefore {
			before[c.Type] = c.Count
			keys = append(keys, c.Type)
		}
		for _, c := range rep.CensusAfter {
			after[c.Type] = c.Count
			if _, ok := before[c.Type]; !ok {
				keys = append(keys, c.Type)
			}
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d→%d", k, before[k], after[k]))
		}
		fmt.Fprintf(w, "values by element type: %s\n", strings.Join(parts, ", "))
	}
	if v := rep.Check; v != nil {
		verdict := "LEGAL"
		if !v.Legal {
			verdict = "NOT LEGAL"
		}
		regions := "no region prediction"
		if v.PredictedRegions != nil {
			regions = fmt.Sprintf("%d ANE region(s) predicted over %d function(s)", v.GetPredictedRegions(), v.Functions)
		}
		fmt.Fprintf(w, "check: %s for the Neural Engine: %s (%s)", verdict, regions, v.Architecture)
		suspects := len(v.Suspects)
		blockers := lo.Filter(v.Groups, func(g *pb.FindingGroup, _ int) bool { return g.Severity == "blocker" })
		seq := slices.Values(blockers)
		if gs != nil {
			suspects = gs.suspects.n
			seq = gs.groups.where(func(_, severity string) bool { return severity == "blocker" })
		}
		if suspects > 0 {
			fmt.Fprintf(w, "; %d unconfirmed suspect(s), listed by anefix check", suspects)
		}
		fmt.Fprintln(w)
		b := &textChunks{w: w, indent: "  "}
		writeGroupSeq(b, "blockers that remain (fix with the pass after ->):\n", seq, "")
		_ = b.Flush() // the summary's other lines ignore write errors too
	}
	switch {
	case rep.Written && rep.Output != "-":
		fmt.Fprintf(w, "wrote %s (%s, %d bytes)\n", rep.Output, rep.OutputKind, rep.OutputSize)
	case rep.DryRun && rep.Error == "":
		fmt.Fprintf(w, "dry run: nothing written\n")
	}
}
