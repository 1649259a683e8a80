package main

import (
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/samber/lo"
	"github.com/spf13/pflag"
	"google.golang.org/protobuf/proto"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/aimodelc"
	"github.com/anefix/anefix/graph/inspect"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

func init() {
	register(&command{
		Name:    "check",
		Usage:   "check IN [--json] [--architecture h18p|h16g|…] [--ops [--only …] [--at FILE[:LINE]] [--op ID]] [--compiled PKG.aimodelc]",
		Summary: "predict where the Neural Engine compiler will refuse (rule model, any machine)",
		Help: `Loads IN (an .aimodel, an LLM bundle, a .mlirb bytecode file, .mlir text or
"-") and checks every op against anefix's model of the Neural Engine's rules
(element types, graph I/O ops, rank <= 5, static shapes, ops without a
lowering, linear INT4). It prints the findings grouped by rule, op and
source line with the pass that fixes each, the predicted ANE regions per
function, and the seed's unconfirmed suspects for the blocker the compiler
does not name, each with the experiment that would settle it. A separate
"fp16 hazards (advisory)" section lists constants that are not safe in fp16
(-inf or magnitudes past 65504, such as masks written as -inf or -1e9;
nonzero values that round to 0) and exp ops whose input is proven (from
constants and clamps) able to exceed ln(65504) ~ 11.09; dense_resource
weights are read from the file in bounded pieces (--hazard-weights=false
skips them), absent ones skipped with a note.

--architecture (default h18p, the seed's target) picks the region model:
h18p is all-or-nothing (a function with any blocker gets 0 regions, as
every published h18p compile shows); h16g partitions around fp32 islands
(one region per run of Neural Engine ops, as Granite-Embedding-97M's
compiles on macOS h16g show); any other architecture has no published
compile, so no count is predicted (predictedRegions is absent). It never
changes the exit code (3 whenever a function holds a blocker), but every
line of the report speaks for that one architecture: the headline says what
the blockers mean there (arm A on h16g: "PARTIAL: 19 ANE region(s) ..., 241 op(s) off
the Neural Engine"), the Functions lines and the footer name it. A
"Performance advice" section lists
Apple's layout guidance (64-byte last axis on I/O, singleton last axes,
softmax axis, linear vs 1x1 conv) and published limits the Core AI compiler
works around (axes past the per-axis cap, which it tiles; more entry
functions than about 128 loaded programs); it never changes the verdict
either. --architecture also sets the limits that differ by architecture
(the axis cap, the conv kernel width).

--ops lists every op, one line each, grouped per graph: its op id (the FX
name; NAME#2, … for further ops sharing it, constants last; GRAPH#INDEX
without one), predicted device (ane with its region, gpu, none for
constants and terminators, unknown where the architecture has no model),
legal segment, op name, element types, source and reason (legal, the rules
that block it, or why its function is off the Neural Engine). --only
blocked|ane|gpu|none|unknown (comma: any of them), --at FILE[:LINE] (a
path suffix at a '/') and --op ID select ops and imply --ops; they apply to
--json's ops list alike, which is present only with --ops. An --op id that
is not in the report fails (exit 1) naming the nearest ids.

--compiled PKG reads a compiled package of IN (built for the report's
architecture) and prints its measured ANE and GPU regions beside each
function's prediction; with --ops each op whose FX name the package's
regions carry gets its measured device too. It also compares PKG's
recorded source (metadata.json's sourceHash) with IN's main bytecode file,
as 'anefix inspect PKG --source IN' does, and warns when they differ: PKG
was then most likely compiled from another model or another version of
IN, and its measurements may not be IN's (--json: compiledSource).

This is a prediction, not a compile: on a Mac, 'anefix compile IN' runs the
real compiler and counts the regions it wrote.

--html FILE writes the graph view: one self-contained page (no network, no
server; open it in any browser) drawing every op coloured by its predicted
device, fp32 ops pale, state ops marked, blockers, suspects and hazards
outlined with their rule, message, fix pass and source (click an op); ops
are grouped by their location's frames (a layer loop's layers apart),
collapsed until opened; the search box (or FILE#search=TEXT) finds an op by
op id or by source "file:line". --dot FILE writes the same graph for
Graphviz. "-" writes either to stdout in place of the text report; an
existing FILE is replaced only with --force.

Exit codes: 0 every function predicted legal, 3 not (CI can gate on it),
1 bad input. Suspects and fp16 hazards never change the exit code.

Examples:
  anefix check testdata/synth/armA.aimodel
  anefix check --rules
  anefix check model.aimodel --architecture h16g
  anefix check model.aimodel --only blocked --at qwen3_5.py:199
  anefix check model.aimodel --op _to_copy_4 --json | jq '.ops[0].device'
  anefix check model.aimodel --json | jq '.groups[] | {rule, count, fixPass}'
  anefix check testdata/synth/armA.aimodel --html armA.html --dot armA.dot`,
		Setup: runWith((*checkFlags).declare, runCheck),
	})
}

type checkFlags struct {
	asJSON, ignoreHash, rules, hazardWeights bool
	arch                                     string
	view                                     viewFlags
	opsFlags
}

func (f *checkFlags) declare(fs *pflag.FlagSet) {
	declareJSON(fs, &f.asJSON)
	declareIgnoreHash(fs, &f.ignoreHash)
	fs.BoolVar(&f.rules, "rules", false, "print the rule table with each rule's evidence and the region models, and exit (no input; with --json as a RuleTable)")
	declareArchitecture(fs, &f.arch)
	fs.BoolVar(&f.hazardWeights, "hazard-weights", true, "let the fp16 hazard rules read dense_resource weights (all of them; false skips them with a note)")
	f.opsFlags.declare(fs)
	f.view.declare(fs)
}

// runCheck reads the input, hands it to the rule model (ane.CheckInput
// does the rest: absent weights, verification, the rules), converts the
// report once and prints it.
func runCheck(env *Env, f *checkFlags, args []string) error {
	if f.rules {
		if len(args) != 0 {
			return usagef("--rules takes no input")
		}
		if f.asJSON {
			b, err := protoJSON(ruleTable())
			if err != nil {
				return err
			}
			_, err = env.Stdout.Write(b)
			return err
		}
		return writeRuleTable(env.Stdout, ruleTable())
	}
	if len(args) != 1 {
		return usagef("check takes exactly one input, got %d", len(args))
	}
	if _, err := ane.ParseArchitecture(f.arch); err != nil {
		return usagef("--architecture: %v", err)
	}
	if err := f.opsFlags.validate(); err != nil {
		return err
	}
	if err := f.view.vet(args[0], f.asJSON); err != nil {
		return err
	}
	var pkg *aimodelc.Package
	if f.compiled != "" {
		var err error
		if pkg, err = openCompiled(f.compiled, f.arch, f.ignoreHash); err != nil {
			return err
		}
	}
	ld, err := loadInput(env, args[0], f.ignoreHash)
	if err != nil {
		return err
	}
	defer ld.Close()
	ld.ReadOnly()
	defer loadedGC(ld)()
	rep, note, err := ane.CheckInput(ld.Module, args[0], ane.Options{NoHazardBlobs: !f.hazardWeights, Architecture: f.arch,
		Placement: f.opsFlags.wanted() || f.view.any()})
	if note != "" {
		fmt.Fprintf(env.Stderr, "anefix check: note: %s\n", note)
	}
	if err != nil {
		return err
	}
	// main.hash was verified in the background while decoding.
	if err := ld.Input.CheckHash(); err != nil {
		return err
	}
	ops, err := f.opsFlags.filter(rep.Ops)
	if err != nil {
		return err
	}
	var m *measured
	if pkg != nil {
		if m, err = newMeasured(f.compiled, pkg, rep, ld); err != nil {
			return err
		}
	}
	var msg *pb.CheckReport
	if f.asJSON || f.view.any() {
		msg = checkReport(rep, true)
		if m != nil {
			m.fill(msg)
		}
		msg.Input = reportInput(args[0], ld)
	}
	if f.view.any() {
		// The view draws every op; --only, --at and --op filter the listing.
		msg.Ops = pbOps(rep.Ops, m)
		if err := f.view.write(env, msg); err != nil {
			return err
		}
	}
	switch {
	case f.view.stdout():
	case f.asJSON:
		msg.Ops = nil
		if f.opsFlags.wanted() {
			msg.Ops = pbOps(ops, m)
		}
		b, err := protoJSON(msg)
		if err != nil {
			return err
		}
		if _, err := env.Stdout.Write(b); err != nil {
			return err
		}
	default:
		msg = checkSummary(rep, false)
		msg.Input = reportInput(args[0], ld)
		var ot *opsText
		if f.opsFlags.wanted() {
			msg.Ops, ot = pbOps(ops, m), &opsText{total: len(rep.Ops)}
		}
		if m != nil {
			m.fill(msg)
		}
		if err := writeCheckText(env.Stdout, msg, textGroups(rep), ot); err != nil {
			return err
		}
	}
	if !msg.Legal {
		return withCode(exitGate, nil)
	}
	return nil
}

// checkReport converts the rule model's report to the schema. perGraph
// adds each graph's findings one by one, which only the JSON report
// carries (the text prints the groups): a finding per op of a large graph
// cost a message each.
func checkReport(r *ane.Report, perGraph bool) *pb.CheckReport {
	// Grouped first and converted last, once r is no longer read: a caller
	// that drops the report lets its findings go while the groups become
	// messages (with a finding per op, each list is hundreds of bytes an op).
	groups := [][]ane.Group{ane.GroupFindings(r.AllFindings()), ane.GroupFindings(r.AllSuspects()),
		ane.GroupFindings(r.AllHazards()), ane.GroupFindings(r.AllAdvice())}
	msg := checkSummary(r, perGraph)
	for i, dst := range []*[]*pb.FindingGroup{&msg.Groups, &msg.Suspects, &msg.Hazards, &msg.Advice} {
		*dst = pbGroups(groups[i])
		groups[i] = nil
	}
	return msg
}

// checkSummary is the report without its groups (Groups, Suspects,
// Hazards, Advice): the text report prints them from textGroups.
func checkSummary(r *ane.Report, perGraph bool) *pb.CheckReport {
	_, fns := r.Regions()
	msg := &pb.CheckReport{SchemaVersion: pbprint.SchemaVersion,
		RuleSet: r.RuleSet, CompilerVersion: r.Compiler, Legal: r.Legal(),
		Functions: int32(fns), HazardNotes: r.HazardNotes,
		Architecture: r.Architecture.Name, RegionModel: r.Architecture.Describe(),
	}
	if n, ok := r.PredictedRegions(); ok {
		msg.PredictedRegions = proto.Int32(int32(n))
	}
	if n, ok := r.OpsOff(); ok {
		msg.OpsOff = proto.Int32(count32(n))
	}
	for i := range r.Graphs {
		g := &r.Graphs[i]
		gc := &pb.GraphCheck{Name: g.Name, Entry: g.Entry, Ops: count32(g.Ops), Legal: !g.Blocked,
			Segments: int32(g.Segments), RegionModel: g.RegionModel}
		if g.Entry && g.RegionsKnown {
			gc.PredictedRegions = proto.Int32(int32(g.PredictedRegions))
			gc.OpsOff = proto.Int32(count32(g.OpsOff))
		}
		for _, v := range g.Verdicts {
			switch v.Verdict {
			case ane.Illegal:
				gc.OpsIllegal++
			case ane.Exempt:
				gc.OpsExempt++
			}
		}
		if perGraph {
			gc.Advice = pbFindings(g.Advice)
			gc.Findings = pbFindings(g.Findings)
			gc.Suspects = pbFindings(g.Suspects)
			gc.Hazards = pbFindings(g.Hazards)
		}
		if g.Entry {
			msg.Segments += int32(g.Segments)
		}
		msg.Graphs = append(msg.Graphs, gc)
	}
	msg.Rules = rulesPB()
	return msg
}

// rulesPB is the rule table as reports carry it, in table order.
func rulesPB() []*pb.Rule {
	return lo.Map(ane.Rules, func(rule *ane.Rule, _ int) *pb.Rule {
		return &pb.Rule{Id: rule.ID, Title: rule.Title, Message: rule.Message,
			CompilersWords: rule.CompilersWords, Evidence: rule.Evidence, FixPass: rule.Fix,
			Severity: rule.Severity.String(), Experiment: rule.ExperimentText(), FromCompiler: rule.FromCompiler}
	})
}

// groupSeq is one list of a report's groups as the text report reads it:
// how many, and in turn each group whose rule id and severity keep accepts
// (nil: every group). The text walks the blockers' list once for each kind
// of rule: the filter comes before a group is converted.
type groupSeq struct {
	n     int
	where func(keep func(rule, severity string) bool) iter.Seq[*pb.FindingGroup]
}

func (s groupSeq) all() iter.Seq[*pb.FindingGroup] { return s.where(nil) }

// checkGroups are a check report's four lists of groups.
type checkGroups struct{ groups, suspects, hazards, advice groupSeq }

// textGroups are r's groups made and converted one at a time while the
// text report prints them, from the findings r holds (ane.grouping): with a
// finding per op, every group at once as a message was about 220 bytes an
// op on top of the findings or of the groups (issue 28's 500k-op chain:
// 112 MB), where the grouping holds 12 bytes a finding.
func textGroups(r *ane.Report) checkGroups {
	seq := func(fs []ane.Finding) groupSeq {
		gr := ane.NewGrouping(fs)
		return groupSeq{n: gr.Len(), where: func(keep func(rule, severity string) bool) iter.Seq[*pb.FindingGroup] {
			return func(yield func(*pb.FindingGroup) bool) {
				for g := range gr.All() {
					if keep != nil && !keep(g.Rule.ID, g.Rule.Severity.String()) {
						continue
					}
					if !yield(pbprint.ForText(pbGroup(g))) {
						return
					}
				}
			}
		}}
	}
	return checkGroups{seq(r.AllFindings()), seq(r.AllSuspects()), seq(r.AllHazards()), seq(r.AllAdvice())}
}

func pbFinding(f ane.Finding) *pb.Finding {
	return &pb.Finding{Rule: f.Rule.ID, FixPass: f.FixPass(), Detail: f.Detail, Log: f.Log(),
		Op: &pb.OpRef{OpId: f.OpID, OpName: f.OpName, Source: f.Source, Graph: f.Graph, Index: count32(f.Index), OpNumber: inspect.OpNumber(f.Op)}}
}

// pbFindings converts fs (nil when empty, as the schema's unset list).
func pbFindings(fs []ane.Finding) []*pb.Finding {
	if len(fs) == 0 {
		return nil
	}
	out := make([]*pb.Finding, len(fs))
	for i, f := range fs {
		out[i] = pbFinding(f)
	}
	return out
}

func pbGroups(gs []ane.Group) []*pb.FindingGroup {
	if len(gs) == 0 {
		return nil
	}
	out := make([]*pb.FindingGroup, 0, len(gs))
	for _, g := range gs {
		out = append(out, pbGroup(g))
	}
	return out
}

func pbGroup(g ane.Group) *pb.FindingGroup {
	return &pb.FindingGroup{Rule: g.Rule.ID, Severity: g.Rule.Severity.String(), OpName: g.OpName,
		Source: g.Source, FixPass: g.Fix, Count: count32(g.Count), Graphs: g.Graphs, OpIds: g.OpIDs,
		Detail: g.Detail, Message: g.Rule.Message, Via: g.Via}
}

// writeCheckText prints the report to fit one screen: verdict first, then
// grouped blockers with their fixes, suspects with their experiments, infos
// and a per-function line (folded when there are many functions); with
// ops (check --ops), the per-op listing in place of the groups. Every line
// that depends on the architecture speaks for r.Architecture only.
func writeCheckText(w io.Writer, r *pb.CheckReport, gs checkGroups, ops *opsText) error {
	r = pbprint.ForText(r) // names from the model stay on their line (gs: each group as read)
	b := &textChunks{w: w}
	fmt.Fprintf(b, "anefix check %s\n", r.Input.GetPath())
	writeCheckHeadline(b, r)
	if r.Legal && gs.suspects.n > 0 {
		fmt.Fprintf(b, "  Legal by the known rules only: the seed's arm D was legal by them too and its compile still got 0 regions;\n")
		fmt.Fprintf(b, "  the unconfirmed suspects below are the candidates for that unnamed blocker.\n")
	}
	if ops != nil {
		writeOpsText(b, r, ops.total)
	} else {
		writeCheckGroups(b, r, gs)
	}
	writeCheckFunctions(b, r)
	compile := "anefix compile " + r.Input.GetPath()
	if r.Architecture != ane.DefaultArchitecture {
		compile += " --architecture " + r.Architecture
	}
	fmt.Fprintf(b, "\nRules: %s. This is a prediction for %s; on a Mac run '%s' to measure.\n",
		r.RuleSet, r.Architecture, compile)
	return b.Flush()
}

// writeCheckHeadline prints the verdict for r.Architecture: the exit code
// follows the blockers whatever the architecture; what they mean there
// (no region, a partial placement, or nothing on record) is said here.
func writeCheckHeadline(b *textChunks, r *pb.CheckReport) {
	model := behaviourName(r.RegionModel)
	if r.PredictedRegions == nil {
		verdict := "LEGAL by the rules"
		if !r.Legal {
			verdict = fmt.Sprintf("NOT LEGAL by the rules: %d of %d function(s) hold a blocker", blockedFunctions(r), r.Functions)
		}
		fmt.Fprintf(b, "Prediction: %s; %s: no region count (%s)\n", verdict, r.Architecture, r.RegionModel)
		if !r.Legal {
			fmt.Fprintf(b, "  A compiler that partitions around the blockers could place %d legal segment(s).\n", r.Segments)
		}
		return
	}
	regions, off := r.GetPredictedRegions(), r.GetOpsOff()
	if model == "all-or-nothing" {
		verdict := "LEGAL for the Neural Engine"
		if !r.Legal {
			verdict = "NOT LEGAL for the Neural Engine"
		}
		fmt.Fprintf(b, "Prediction: %s: %d of %d function(s) get an ANE region on %s (%s, coreai-build %s)\n",
			verdict, regions, r.Functions, r.Architecture, model, r.CompilerVersion)
		if !r.Legal {
			fmt.Fprintf(b, "  (a function with any blocker fails its ANE compile; coreai-build still exits 0 and runs it on the GPU: %d op(s) off the Neural Engine).\n", off)
			fmt.Fprintf(b, "  A compiler that partitions around the blockers could place %d legal segment(s); %s's does not.\n", r.Segments, r.Architecture)
		}
		return
	}
	verdict := "LEGAL for the Neural Engine"
	switch {
	case !r.Legal && regions == 0:
		verdict = "NOT LEGAL for the Neural Engine"
	case !r.Legal || off > 0:
		verdict = "PARTIAL"
	}
	fmt.Fprintf(b, "Prediction: %s: %d ANE region(s) over %d function(s) on %s (%s), %d op(s) off the Neural Engine\n",
		verdict, regions, r.Functions, r.Architecture, model, off)
}

// blockedFunctions counts the entry graphs with a blocker.
func blockedFunctions(r *pb.CheckReport) int {
	n := 0
	for _, g := range r.Graphs {
		if g.Entry && !g.Legal {
			n++
		}
	}
	return n
}

// writeCheckGroups prints the findings, suspects, hazards and advice.
func writeCheckGroups(b *textChunks, r *pb.CheckReport, gs checkGroups) {
	// The groups are walked once for each kind, each printed under its
	// heading once the first one comes.
	blockers := gs.groups.where(func(_, severity string) bool { return severity == "blocker" })
	apple := gs.groups.where(func(rule, severity string) bool {
		return severity != "blocker" && strings.HasPrefix(rule, "apple.")
	})
	infos := gs.groups.where(func(rule, severity string) bool {
		return severity != "blocker" && !strings.HasPrefix(rule, "apple.")
	})
	writeGroupSeq(b, "\nBlockers (fix with the pass after ->):\n", blockers, "")
	writeGroupSeq(b, "\nSuspects (UNCONFIRMED; never change the verdict or the exit code):\n", gs.suspects.all(), r.Input.GetPath())
	writeGroupSeq(b, "\nInfo:\n", infos, "")
	if gs.hazards.n > 0 || len(r.HazardNotes) > 0 {
		fmt.Fprintf(b, "\nfp16 hazards (advisory; never change the verdict or the exit code):\n")
		writeGroupSeq(b, "", gs.hazards.all(), "")
		for _, n := range r.HazardNotes {
			fmt.Fprintf(b, "  note: %s\n", n)
		}
	}
	writeAdvice(b, "\nApple's stated rules that measurements contradict (info; 'anefix check --rules' has both sides):\n", apple)
	writeAdvice(b, "\nPerformance advice (Apple's guidance and published limits, each row's source in 'anefix check --rules'; never changes the verdict or the exit code; --json lists all):\n", gs.advice.all())
}

// writeCheckFunctions prints one line per entry function (the legal ones
// folded when there are more than six), each placement under
// r.Architecture.
func writeCheckFunctions(b *textChunks, r *pb.CheckReport) {
	fmt.Fprintf(b, "\nFunctions:\n")
	if r.Compiled != "" {
		fmt.Fprintf(b, "  (measured: read from the compiled package %s)\n", quotePath(r.Compiled))
		b.WriteString(compiledSourceText(r))
	}
	var entries []*pb.GraphCheck
	for _, g := range r.Graphs {
		if g.Entry {
			entries = append(entries, g)
		}
	}
	if len(entries) > 6 {
		legal := 0
		for _, g := range entries {
			if g.Legal {
				legal++
			}
		}
		fmt.Fprintf(b, "  %d functions: %d legal, %d blocked; %s: %s\n", len(entries), legal, len(entries)-legal,
			r.Architecture, placedText(r.PredictedRegions, r.OpsOff))
	}
	for _, g := range entries {
		if len(entries) > 6 && g.Legal {
			continue
		}
		state := "legal"
		if !g.Legal {
			state = "blocked"
		}
		fmt.Fprintf(b, "  @%s: %s; %d ops (%d illegal, %d index ops exempt), %d legal segment(s); %s: %s\n",
			g.Name, state, g.Ops, g.OpsIllegal, g.OpsExempt, g.Segments, r.Architecture, placedText(g.PredictedRegions, g.OpsOff))
		if g.PredictedRegions == nil || g.RegionModel != r.RegionModel {
			fmt.Fprintf(b, "      (%s)\n", g.RegionModel)
		}
		if r.Compiled != "" {
			fmt.Fprintf(b, "      %s\n", measuredText(g))
		}
	}
}

// placedText says where a prediction puts a function's (or the model's)
// ops: its ANE regions and the ops off the Neural Engine.
func placedText(regions, off *int32) string {
	if regions == nil {
		return "no region count"
	}
	return fmt.Sprintf("%d ANE region(s), %d op(s) off the Neural Engine", *regions, *off)
}

const maxIDsShown = 5

// writeGroups prints gs as writeGroupSeq does, with no heading.
func writeGroups(b *textChunks, gs []*pb.FindingGroup, settleIn string) {
	writeGroupSeq(b, "", slices.Values(gs), settleIn)
}

// writeGroupSeq prints heading, if there is any group, then the groups under
// one heading per rule: the rule's message (the compiler's words where it
// has them) once, then one line per group. With settleIn (the checked
// input's path) each rule's experiment follows its message, as a command
// for that input (suspectExperiment).
func writeGroupSeq(b *textChunks, heading string, gs iter.Seq[*pb.FindingGroup], settleIn string) {
	last := ""
	for g := range gs {
		if heading != "" {
			b.WriteString(heading)
			heading = ""
		}
		if g.Rule != last {
			last = g.Rule
			fmt.Fprintf(b, "  %s: %s\n", g.Rule, g.Message)
			if rule := ane.RuleByID(g.Rule); settleIn != "" && rule != nil {
				b.WriteString(suspectExperiment(rule, settleIn))
			}
		}
		where := ""
		if g.Source != "" {
			where = " at " + graph.ShortFile(sourceFile(g.Source)) + sourceLine(g.Source)
			if g.Via != "" {
				where += " (via " + graph.ShortFile(sourceFile(g.Via)) + sourceLine(g.Via) + ")"
			}
		}
		fix := ""
		if g.FixPass != "" {
			fix = "  -> " + g.FixPass
			if p, ok := passes.Lookup(g.FixPass); ok && !p.DefaultOn {
				fix += " (off by default: --enable " + g.FixPass + ")"
			}
		}
		fmt.Fprintf(b, "    x%-4d %s%s%s\n", g.Count, g.OpName, where, fix)
		ids := g.OpIds
		more := ""
		if len(ids) > maxIDsShown {
			more = fmt.Sprintf(" (+%d)", len(ids)-maxIDsShown)
			ids = ids[:maxIDsShown]
		}
		line := strings.Join(ids, " ") + more
		if g.Detail != "" {
			if line != "" {
				line += ": "
			}
			line += g.Detail
		}
		if line != "" {
			fmt.Fprintf(b, "          %s\n", line)
		}
		b.lineEnd()
	}
}

// behaviourName is the part of a region model before its evidence.
func behaviourName(model string) string {
	if i := strings.IndexByte(model, ':'); i > 0 {
		return model[:i]
	}
	return model
}

// writeAdvice prints heading, if there is any group, then one line per
// advice rule: the count and the first places it applies.
func writeAdvice(b *textChunks, heading string, gs iter.Seq[*pb.FindingGroup]) {
	var order []string
	where := map[string][]string{}
	count := map[string]int32{}
	for g := range gs {
		if _, ok := where[g.Rule]; !ok {
			order = append(order, g.Rule)
		}
		w := g.OpName
		if g.Source != "" {
			w += " at " + graph.ShortFile(sourceFile(g.Source)) + sourceLine(g.Source)
		}
		where[g.Rule] = append(where[g.Rule], w)
		count[g.Rule] += g.Count
	}
	if len(order) > 0 {
		b.WriteString(heading)
	}
	for _, id := range order {
		ws, more := where[id], ""
		if len(ws) > 3 {
			ws, more = ws[:3], fmt.Sprintf(" (+%d)", len(ws)-3)
		}
		title := id
		if r := ane.RuleByID(id); r != nil {
			title = r.Title
		}
		fmt.Fprintf(b, "  %s x%d: %s: %s%s\n", id, count[id], title, strings.Join(ws, ", "), more)
	}
}

// sourceFile / sourceLine split "file:line".
func sourceFile(s string) string {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		return s[:i]
	}
	return s
}

func sourceLine(s string) string {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		return s[i:]
	}
	return ""
}

// ruleTable is check --rules: the rules and the region models.
func ruleTable() *pb.RuleTable {
	t := &pb.RuleTable{SchemaVersion: pbprint.SchemaVersion, RuleSet: ane.RuleSetVersion, Rules: rulesPB(), DefaultArchitecture: ane.DefaultArchitecture}
	for _, name := range ane.KnownArchitectures() {
		a, _ := ane.ParseArchitecture(name)
		t.RegionModels = append(t.RegionModels, &pb.RegionModel{Architecture: name, Description: a.Describe()})
	}
	return t
}

// writeRuleTable prints check --rules' table, for people.
func writeRuleTable(w io.Writer, t *pb.RuleTable) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Rule set %s\n", t.RuleSet)
	for _, r := range t.Rules {
		src := "anefix's wording, no compiler message on record"
		if r.CompilersWords {
			src = "the compiler's words"
		}
		if r.FromCompiler {
			src += "; classifies compiler diagnostics only"
		}
		fmt.Fprintf(&b, "\n%s [%s]: %s\n  message (%s): %s\n  evidence: %s\n", r.Id, r.Severity, r.Title, src, r.Message, r.Evidence)
		if r.FixPass != "" {
			fmt.Fprintf(&b, "  fix: %s\n", r.FixPass)
		}
		if r.Experiment != "" {
			fmt.Fprintf(&b, "  to settle: %s\n", r.Experiment)
		}
	}
	fmt.Fprintf(&b, "\nRegion models (check --architecture; default %s; other names: no count predicted):\n", t.DefaultArchitecture)
	for _, m := range t.RegionModels {
		fmt.Fprintf(&b, "  %s: %s\n", m.Architecture, m.Description)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
