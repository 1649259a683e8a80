// Package ane is anefix's model of what Apple's Neural Engine compiler
// (coreai-build) accepts. It gives every op of every graph a verdict from
// one versioned rule table (Rules), groups the findings so a person can act
// on them, predicts how many Neural Engine regions the compiler will write,
// lists the seed's unconfirmed suspects for the arm-D blocker, and maps the
// real compiler's diagnostics (package compilerlog) back to ops.
//
// Like every pass it never opens a file and never prints; cmd/anefix does.
//
// Everything here is a prediction. The real answer is `anefix compile` on a
// Mac; the rule table records, for each rule, what it rests on.
//
// A new rule: (1) <kind>_<name>.go holds var RuleX = &Rule{ID, Title,
// Message, Evidence, Fix, Severity, Requires, Run: runX} and func runX(p
// *Pass), which reads the graph's facts from p and shared results only
// through p.Islands() / p.Scan() (declared in Requires) and reports with
// p.Report, p.ReportVals, p.ReportPort or p.MarkIllegal; (2) its test,
// testRule(t, RuleX, []ruleCase{…}), fails when the rule reads a result its
// Requires omits; (3) one row in Rules below, where the rule should appear
// in reports. TestRulesListed fails when a declared rule is not listed or
// has no test. Only when needed: an analysis the passes also use goes in
// passes/anefacts, a blocker with known region placement in calib.go, a fix
// confirmed by a pass's preview in fixes.go, a rule mirroring a compiler
// diagnostic in group.go's RuleFor.
package ane

import (
	"strings"
)

// RuleSetVersion names this rule table. Bump it whenever a rule's condition
// changes, so reports say which model produced them.
const RuleSetVersion = "ane-rules-6 (calibrated to coreai-build 3600.83.1, per architecture)"

// compilerVersion is the coreai-build whose observed behaviour the region
// prediction follows.
const compilerVersion = "3600.83.1"

// severity says what a finding means for the prediction.
type severity int

const (
	// blocker: the op makes the graph's Neural Engine compile fail (under
	// the observed behaviour) or splits it (under a partitioning compiler).
	blocker severity = iota
	// suspect: unconfirmed; never changes a verdict or the exit code.
	suspect
	// info: worth knowing, no effect on the prediction.
	info
	// hazard: the fp16 numbers may go wrong (hazard_*.go); advisory, kept
	// apart from the legality findings, never changes a verdict or the
	// exit code.
	hazard
	// advice: performance guidance (advice_*.go); kept apart like hazards,
	// never changes a verdict, a region prediction or the exit code.
	advice
)

func (s severity) String() string {
	switch s {
	case blocker:
		return "blocker"
	case suspect:
		return "suspect"
	case hazard:
		return "hazard"
	case advice:
		return "advice"
	}
	return "info"
}

// Rule is one rule of the model, the unit a reader adds or changes (as
// golang.org/x/tools/go/analysis's Analyzer is): what it is called and
// says (ID, Title, Message), what it rests on (Evidence), what fixes it,
// the shared results it reads (Requires) and the function that finds it
// (Run). Each rule is declared in a file of its own (rule_*.go,
// suspect_*.go, hazard_*.go, apple_*.go, advice_*.go) with its table test
// beside it, and listed once in Rules, which drives both running (pass.go)
// and `anefix check --rules`; TestRulesListed fails on a rule declared but
// not listed.
type Rule struct {
	ID    string // stable code: "element-type"; reports use "ane."+ID
	Title string // short human title
	// Message is what the finding says. When CompilersWords is set it is the
	// compiler's own wording (so a user can search their log for it);
	// otherwise it is anefix's wording because no compiler message is on
	// record.
	Message        string
	CompilersWords bool
	// Evidence says which public record or measurement the rule rests on.
	Evidence string
	// Fix is the anefix pass that removes the finding ("" when none).
	Fix      string
	Severity severity
	// Experiment (suspects) is what to run on a Mac to settle the question.
	Experiment string
	// ExperimentRewrite, when set, makes the experiment one rewrite: the
	// arguments after `anefix rewrite IN -o OUT` (before --compile). check
	// prints the whole command with the input's path (RewriteCommand).
	ExperimentRewrite []string
	// FromCompiler marks rows that classify compiler diagnostics only (the
	// rule model itself never emits them; they have no Run).
	FromCompiler bool
	// Requires names the shared results Run reads beyond the graph's facts
	// (pass.go: Fact), each computed once however many rules ask.
	Requires []*fact
	// Run finds the rule's findings in one graph and records them with
	// p.Report; the runner calls it once per graph that has a body.
	Run func(p *Pass)
}

// Rules is the table, in report order (findings on one op, groups and
// `check --rules` follow it) and in the order the rules run.
var Rules = []*Rule{
	RuleElementType, ruleIOOp, ruleRank, ruleStatic, ruleNoLowering, ruleLinearInt4,
	suspectTiedHead, SuspectFp32Chain, suspectStateWrite,
	suspectOpCount, suspectConvKernelWidth, suspectStateLastAxis, suspectLUTGroup, suspectLUTChannelScale,
	ruleUnverifiedOp, ruleReorder, ruleCompilerOther,
	HazardRange, hazardFlush, hazardExp, hazardUnbounded, hazardSoftplus,
	RuleLUT4SmallGroup, RuleMetalKernel, RuleFp32GatherTable, AppleSilu, AppleGatherRoPE,
	AdviceAlignment, AdviceSingletonLast, AdviceSoftmaxAxis, AdviceLinear, adviceAxisExtent, advicePrograms,
}

// RewriteCommand is the experiment as one shell command: anefix rewrite on
// in, writing out, with ExperimentRewrite and --compile; quote makes a
// path one shell word. "" when the rule has no rewrite experiment.
func (r *Rule) RewriteCommand(in, out string, quote func(string) string) string {
	if len(r.ExperimentRewrite) == 0 {
		return ""
	}
	parts := []string{"anefix", "rewrite", quote(in), "-o", quote(out)}
	for _, a := range r.ExperimentRewrite {
		parts = append(parts, quote(a))
	}
	return strings.Join(append(parts, "--compile"), " ")
}

// ExperimentText is the experiment as the rule table states it: the
// command with IN and OUT standing for the paths, then Experiment.
func (r *Rule) ExperimentText() string {
	cmd := r.RewriteCommand("IN", "OUT", func(s string) string { return s })
	switch {
	case cmd == "":
		return r.Experiment
	case r.Experiment == "":
		return "on a Mac: `" + cmd + "`"
	}
	return "on a Mac: `" + cmd + "`: " + r.Experiment
}

// RuleByID finds a rule.
func RuleByID(id string) *Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func ruleOrder(r *Rule) int {
	for i, x := range Rules {
		if x == r {
			return i
		}
	}
	return len(Rules)
}
