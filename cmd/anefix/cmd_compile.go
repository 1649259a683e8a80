package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph/aimodelc"
	"github.com/anefix/anefix/passes/ane"
	"github.com/anefix/anefix/passes/ane/compiler"
	"github.com/anefix/anefix/passes/ane/compilerlog"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

func init() {
	register(&command{
		Name:    "compile",
		Usage:   "compile IN [--require-ane | --min-regions N] [--keep DIR] [--compiler PATH] [--json]",
		Summary: "run coreai-build for the Neural Engine and count the ANE regions it really wrote (Mac)",
		Help: `Runs
  xcrun coreai-build compile <IN>.aimodel --platform iOS \
    --preferred-compute neural-engine --architecture h18p --output <dir>
(IN that is not an .aimodel is written into a temporary one first; <dir>
is a fresh directory, <IN>.coreai-build under --keep, into which the
compiler writes the .aimodelc), times it, reads the .aimodelc the way
'anefix inspect' does (each ANE region counted once: the specialized
graph's region_type<ANE> entries, checked against the
<fn>_ANE_region_<i>_<j>.bc directories; a count the package cannot settle
is an error, never a guess), and parses its stderr: the
"warning:" lines with ane_validation_message, the "ANE I/O op" failures, the
"ANECCompileOffline() failed ... aneCompileStatus=N" blocks with their
ErrorList and region file, and the maxReorderingDistance notes. Each
diagnostic is mapped back to the op it names (op id, else source line) and
grouped like 'anefix check'; the measured regions are printed next to the
check prediction.

coreai-build exits 0 even when every ANE compile failed and the .aimodelc
runs on the GPU only. --require-ane (at least one region per function and
no ANECCompileOffline failure) or --min-regions N turn that into exit 3.

Without xcrun (any machine but a Mac with Xcode) and without --compiler it
says so in one line and exits 4: use 'anefix check' there. $ANEFIX_COMPILER
sets the default for --compiler (also for 'anefix rewrite --compile').

Exit codes: 0 ok, 3 requirement not met, 4 no compiler, 1 bad input or the
compiler failed (crashed or exited non-zero).

Examples:
  anefix compile armA.aimodel --require-ane
  anefix compile model.aimodel --min-regions 19 --keep build/ --json > compile.json
  anefix compile armA.aimodel --compiler testdata/compiler/fake-coreai-build.sh   # stand-in, for tests`,
		Setup: runWith((*compileFlags).declare, runCompile),
	})
}

// compileFlags are compile's flags: the compiler's options and the gate.
type compileFlags struct {
	o          compiler.Options
	requireANE bool
	minRegions int
	asJSON     bool
	ignoreHash bool
}

func (f *compileFlags) declare(fs *pflag.FlagSet) {
	f.o = compiler.DefaultOptions()
	o := &f.o
	fs.StringVar(&o.Platform, "platform", o.Platform, "coreai-build --platform")
	fs.StringVar(&o.PreferredCompute, "preferred-compute", o.PreferredCompute, "coreai-build --preferred-compute")
	declareArchitecture(fs, &o.Architecture)
	fs.StringVar(&o.Compiler, "compiler", "", "run this binary instead of 'xcrun coreai-build' (default $"+compiler.EnvCompiler+")")
	fs.StringVar(&o.Keep, "keep", "", "keep the .aimodelc and the compiler's log in DIR")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "kill the compiler (its whole process group) after this long")
	fs.BoolVar(&f.requireANE, "require-ane", false, "exit 3 unless every function got an ANE region and no ANE compile failed")
	fs.IntVar(&f.minRegions, "min-regions", 0, "exit 3 unless at least N ANE regions were written")
	declareJSON(fs, &f.asJSON)
	declareIgnoreHash(fs, &f.ignoreHash)
}

// runCompile is `anefix compile`.
func runCompile(env *Env, f *compileFlags, args []string) error {
	if len(args) != 1 {
		return usagef("compile takes exactly one input, got %d", len(args))
	}
	if f.minRegions < 0 {
		return usagef("--min-regions %d: want N >= 0", f.minRegions)
	}
	rep, res, err := compileAndReport(env, args[0], f.o, f.ignoreHash)
	if err != nil {
		return err
	}
	applyRequirement(rep, f.requireANE, f.minRegions)
	if f.asJSON {
		b, err := protoJSON(rep)
		if err != nil {
			return err
		}
		if _, err := env.Stdout.Write(b); err != nil {
			return err
		}
	} else if err := writeCompileText(env.Stdout, rep); err != nil {
		return err
	}
	if res.ExitCode != 0 {
		said := "its log is shown above"
		if res.Log.Lines == 0 {
			said = "it printed nothing on stderr"
		}
		return fmt.Errorf("%s exited with status %d; %s", res.Command[0], res.ExitCode, said)
	}
	if err := res.Settled(); err != nil {
		return err
	}
	if rep.Requirement != "" && !rep.RequirementMet {
		return withCode(exitGate, fmt.Errorf("requirement not met: %s (measured %d ANE region(s))", rep.Requirement, rep.Regions))
	}
	return nil
}

// compileAndReport loads path, predicts with the rule model, runs the
// compiler and builds the report. A missing compiler is exit 4 before any
// work is done.
func compileAndReport(env *Env, path string, o compiler.Options, ignoreHash bool) (*pb.CompileReport, *compiler.Result, error) {
	if _, err := compiler.Command(o); err != nil {
		if errors.Is(err, compiler.ErrNoCompiler) {
			return nil, nil, withCode(exitNoCompiler, err)
		}
		return nil, nil, err
	}
	ld, err := loadInput(env, path, ignoreHash)
	if err != nil {
		return nil, nil, err
	}
	ci, err := compiler.PrepareInput(ld, path)
	if err != nil {
		return nil, nil, err
	}
	defer ci.Close()
	// compile reports no hazards; its prediction is for the architecture
	// the compiler is run for.
	pred, err := ane.CheckWith(ci.Loaded.Module, ane.Options{NoHazards: true, Architecture: o.Architecture})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := ci.Loaded.Input.CheckHash(); err != nil {
		return nil, nil, err
	}
	if o.Keep != "" && ci.Loaded.Input.Kind.IsDir() && pathWithin(ci.Loaded.Input.Root, o.Keep) {
		return nil, nil, fmt.Errorf("--keep %s lies inside the input %s; anefix never modifies its input, choose a directory outside it", o.Keep, path)
	}
	res, err := compiler.Run(context.Background(), o, ci.AIModel)
	if err != nil {
		if errors.Is(err, compiler.ErrNoCompiler) {
			return nil, nil, withCode(exitNoCompiler, err)
		}
		return nil, nil, err
	}
	_, fns := pred.Regions()
	reg, known := pred.PredictedRegions()
	mapped := ane.MapLog(ci.Loaded.Module, res.Log)
	rep := &pb.CompileReport{SchemaVersion: pbprint.SchemaVersion,
		Input: reportInput(path, ci.Loaded), Command: res.Command, ExitCode: int32(res.ExitCode),
		Seconds: res.Duration.Seconds(), Kept: res.Kept, Regions: int32(res.Regions), RegionFiles: res.RegionFiles, RegionsKnown: res.RegionsKnown,
		RegionsPredicted: int32(reg), Functions: int32(fns), PredictedLegal: pred.Legal(), Architecture: pred.Architecture.Name,
		Groups:              pbGroups(ane.GroupFindings(mapped)),
		ElementTypeWarnings: int32(res.Log.Count(compilerlog.KindElementType)),
		IoOpFailures:        int32(res.Log.Count(compilerlog.KindIOOp)),
		ReorderNotes:        int32(res.Log.Count(compilerlog.KindReorder)),
		LogLines:            count32(res.Log.Lines), UnclassifiedLines: count32(res.Log.Unclassified),
		DiagnosticsNotKept: count32(res.Log.DroppedDiagnostics), FailuresNotKept: count32(res.Log.DroppedFailures),
	}
	for _, o := range res.Log.Other {
		rep.Unclassified = append(rep.Unclassified, &pb.LogLine{Line: count32(o.Line), Text: o.Text, Count: count32(o.Count)})
	}
	rep.UnclassifiedNotKept = count32(res.Log.OtherNotKept)
	if known {
		rep.PredictedRegions = int32Ptr(reg)
	} else {
		rep.RegionsPredicted = 0
	}
	if res.Package != nil {
		rep.Compiled = compiledReport(res.Package)
	}
	rep.PerFunction = perFunctionRegions(pred, res.Package)
	citedOnly, predictedOnly := ane.Calibrate(pred.AllFindings(), mapped)
	rep.CitedNotPredicted, rep.PredictedNotCited = int32(citedOnly), int32(predictedOnly)
	for _, f := range res.Log.Failures {
		cf := &pb.CompileFailure{LogLine: int32(f.Line), OsStatus: f.OSStatus, AneCompileStatus: f.Status,
			SourceFile: f.SourceFile, ErrorList: f.ErrorList, Truncated: f.Truncated}
		if f.Region.Valid {
			cf.RegionFunction, cf.RegionI, cf.RegionJ = f.Region.Function, int32(f.Region.I), int32(f.Region.J)
		}
		for _, kv := range f.Fields {
			cf.Fields = append(cf.Fields, kv.Key+" = "+kv.Value)
		}
		rep.Failures = append(rep.Failures, cf)
	}
	return rep, res, nil
}

// perFunctionRegions puts the measured ANE regions of each entry graph
// beside check's prediction for it.
func perFunctionRegions(pred *ane.Report, pkg *aimodelc.Package) []*pb.FunctionRegions {
	var out []*pb.FunctionRegions
	var names []string
	for i := range pred.Graphs {
		if g := &pred.Graphs[i]; g.Entry {
			out = append(out, &pb.FunctionRegions{Name: g.Name, PredictedLegal: !g.Blocked})
			names = append(names, g.Name)
		}
	}
	regions := compiler.RegionsByGraph(pkg, names)
	for _, fr := range out {
		fr.Regions = int32(regions[fr.Name])
	}
	return out
}

// applyRequirement records --require-ane / --min-regions and whether the
// measurement meets them.
func applyRequirement(rep *pb.CompileReport, requireANE bool, minRegions int) {
	var parts []string
	met := true
	if requireANE {
		parts = append(parts, fmt.Sprintf("--require-ane (>= %d region(s), one per function, and no ANE compile failure)", rep.Functions))
		met = met && rep.Regions >= rep.Functions && rep.Regions > 0 && len(rep.Failures) == 0
	}
	if minRegions > 0 {
		parts = append(parts, fmt.Sprintf("--min-regions %d", minRegions))
		met = met && int(rep.Regions) >= minRegions
	}
	rep.Requirement = strings.Join(parts, " and ")
	rep.RequirementMet = met
}

func writeCompileText(w io.Writer, r *pb.CompileReport) error {
	r = pbprint.ForText(r) // names from the model stay on their line
	var b strings.Builder
	fmt.Fprintf(&b, "anefix compile %s\n", r.Input.GetPath())
	fmt.Fprintf(&b, "ran: %s\n", strings.Join(r.Command, " "))
	if len(r.Command) < 2 || r.Command[1] != "coreai-build" {
		fmt.Fprintf(&b, "  (a compiler given by --compiler or $%s, not xcrun coreai-build)\n", compiler.EnvCompiler)
	}
	fmt.Fprintf(&b, "exit status %d after %s\n", r.ExitCode, time.Duration(r.Seconds*float64(time.Second)).Round(10*time.Millisecond))
	measured := fmt.Sprintf("%d measured (read from the .aimodelc, each region once)", r.Regions)
	switch {
	case !r.RegionsKnown && r.Compiled == nil:
		measured = "UNKNOWN (no .aimodelc was read)"
	case !r.RegionsKnown:
		measured = "UNKNOWN (the .aimodelc does not settle them; see its problems below)"
	}
	predicted := fmt.Sprintf("anefix check predicted %d for %d function(s) on %s", r.RegionsPredicted, r.Functions, r.Architecture)
	if r.PredictedRegions == nil {
		predicted = fmt.Sprintf("anefix check has no region model for %s (no published compile), so no prediction", r.Architecture)
	}
	fmt.Fprintf(&b, "\nANE regions: %s; %s\n", measured, predicted)
	switch {
	case !r.RegionsKnown:
	case r.Regions == 0 && r.ExitCode == 0:
		fmt.Fprintf(&b, "  no ANE region: the .aimodelc runs on the GPU only, although the compiler exited 0\n")
	case r.Regions > 0 && int(r.Regions) < int(r.Functions):
		fmt.Fprintf(&b, "  fewer regions than functions: some functions run on the GPU\n")
	}
	if len(r.RegionFiles) > 0 && len(r.RegionFiles) <= 8 {
		for _, f := range r.RegionFiles {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	if c := r.Compiled; c != nil {
		for _, f := range c.GetFunctions() {
			req := f.GetRequestedDevice()
			if req == "" {
				req = "unknown"
			}
			fmt.Fprintf(&b, "  %s: requested %s, %s ANE / %s GPU region(s)\n", f.GetName(), req, optCount(f.AneRegions), optCount(f.GpuRegions))
			for _, d := range f.GetDisagreements() {
				fmt.Fprintf(&b, "    DISAGREE: %s\n", d)
			}
		}
		for _, p := range c.GetProblems() {
			fmt.Fprintf(&b, "  problem: %s\n", p)
		}
	}
	var differ []string
	for _, f := range r.PerFunction {
		if (f.Regions > 0) != f.PredictedLegal {
			pred := "blocked"
			if f.PredictedLegal {
				pred = "legal"
			}
			differ = append(differ, fmt.Sprintf("@%s: %d region(s), predicted %s", f.Name, f.Regions, pred))
		}
	}
	if len(differ) > 0 && r.Regions > 0 {
		// Only meaningful when region files carry function names at all.
		fmt.Fprintf(&b, "  measurement and prediction differ for %d function(s):\n", len(differ))
		for i, d := range differ {
			if i == 8 {
				fmt.Fprintf(&b, "    ... (+%d)\n", len(differ)-8)
				break
			}
			fmt.Fprintf(&b, "    %s\n", d)
		}
	}
	if len(r.Failures) > 0 {
		fmt.Fprintf(&b, "\nANECCompileOffline() failed x%d:\n", len(r.Failures))
		for _, f := range r.Failures {
			region := f.SourceFile
			if f.RegionFunction != "" {
				region = fmt.Sprintf("%s region %d_%d", f.RegionFunction, f.RegionI, f.RegionJ)
			}
			errs := "ErrorList empty (the compiler names no cause; see apple/coreai-models #205)"
			if len(f.ErrorList) > 0 {
				errs = "ErrorList: " + strings.Join(f.ErrorList, "; ")
			}
			trunc := ""
			if f.Truncated {
				trunc = " (log ended inside the block)"
			}
			fmt.Fprintf(&b, "  stderr:%d %s: aneCompileStatus=%d OSStatus=%d, %s%s\n", f.LogLine, region, f.AneCompileStatus, f.OsStatus, errs, trunc)
		}
	}
	if len(r.Groups) > 0 {
		fmt.Fprintf(&b, "\nCompiler diagnostics mapped to ops (%d element-type, %d I/O op, %d reordering notes):\n",
			r.ElementTypeWarnings, r.IoOpFailures, r.ReorderNotes)
		var g textChunks
		writeGroups(&g, r.Groups, "")
		b.WriteString(g.String())
	}
	writeUnclassified(&b, r)
	if r.DiagnosticsNotKept+r.FailuresNotKept > 0 {
		fmt.Fprintf(&b, "\n%d diagnostic(s) and %d failure block(s) of the log are counted in the totals but not listed, grouped or calibrated "+
			"(anefix keeps the first %d per kind, op and message, %d diagnostics and %d failure blocks in all, so memory stays bounded)\n",
			r.DiagnosticsNotKept, r.FailuresNotKept, compilerlog.MaxKeptPerGroup, compilerlog.MaxKept, compilerlog.MaxKeptFailures)
	}
	if r.CitedNotPredicted+r.PredictedNotCited > 0 {
		fmt.Fprintf(&b, "\nRule model vs this compile (element-type and I/O op): %d op(s) cited but not predicted, "+
			"%d predicted but not cited\n", r.CitedNotPredicted, r.PredictedNotCited)
	}
	if r.Kept != "" {
		fmt.Fprintf(&b, "\nkept: %s (and the compiler's log beside it)\n", r.Kept)
	}
	if r.Requirement != "" {
		verdict := "met"
		if !r.RequirementMet {
			verdict = "NOT MET"
		}
		fmt.Fprintf(&b, "\nrequirement %s: %s\n", r.Requirement, verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeUnclassified shows the log lines no rule classifies, as the
// compiler printed them, so a message anefix does not know (a bf16 module's
// element-type error) is never only a count.
func writeUnclassified(b *strings.Builder, r *pb.CompileReport) {
	if r.UnclassifiedLines == 0 {
		return
	}
	distinct := ""
	if n := int32(len(r.Unclassified)); n < r.UnclassifiedLines-r.UnclassifiedNotKept {
		distinct = fmt.Sprintf(", %d distinct", n)
	}
	fmt.Fprintf(b, "\nCompiler output no rule classifies (%d line(s)%s), as printed:\n", r.UnclassifiedLines, distinct)
	for _, l := range r.Unclassified {
		times := ""
		if l.Count > 1 {
			times = fmt.Sprintf(" (x%d)", l.Count)
		}
		fmt.Fprintf(b, "  stderr:%d%s: %s\n", l.Line, times, l.Text)
	}
	if r.UnclassifiedNotKept > 0 {
		fmt.Fprintf(b, "  ... %d more line(s) not shown: anefix keeps the first %d distinct texts (the whole log is kept with --keep DIR)\n",
			r.UnclassifiedNotKept, compilerlog.MaxKeptOther)
	}
}

// rewriteCompile is `anefix rewrite --compile`: it compiles the input and
// the written output with the default settings (and $ANEFIX_COMPILER) and
// prints the regions before → after next to the predictions.
func rewriteCompile(env *Env, report io.Writer, in, out string) error {
	o := compiler.DefaultOptions()
	before, resB, err := compileAndReport(env, in, o, false)
	if err != nil {
		return err
	}
	after, resA, err := compileAndReport(env, out, o, false)
	if err != nil {
		return err
	}
	measured := func(r *pb.CompileReport) string {
		if !r.RegionsKnown {
			return "unknown"
		}
		return fmt.Sprint(r.Regions)
	}
	fmt.Fprintf(report, "ANE regions before -> after: %s -> %s measured (predicted %d -> %d, %d function(s)); "+
		"ANE compile failures %d -> %d; element-type warnings %d -> %d\n",
		measured(before), measured(after), before.RegionsPredicted, after.RegionsPredicted, after.Functions,
		len(before.Failures), len(after.Failures), before.ElementTypeWarnings, after.ElementTypeWarnings)
	for i, r := range []*compiler.Result{resB, resA} {
		if r.ExitCode != 0 {
			// The one-line summary shows no message: show this compile's
			// report, where every line of its log is classified or shown.
			// A diagnostic of the error that follows: on stderr with it.
			if err := writeCompileText(env.Stderr, []*pb.CompileReport{before, after}[i]); err != nil {
				return err
			}
			return fmt.Errorf("%s exited with status %d on %s; its report is shown above", r.Command[0], r.ExitCode, []string{in, out}[i])
		}
		if err := r.Settled(); err != nil {
			return err
		}
	}
	return nil
}
