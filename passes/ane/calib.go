package ane

// Region models calibrated on published compiles (the cases in
// testdata/calibration): per-architecture region prediction. The rules
// those records support are in their own files (rule_lut4_small_group.go,
// rule_metal4_kernel.go, rule_fp32_gather_table.go, apple_*.go,
// advice_*.go).

import (
	"github.com/anefix/anefix/graph/nearest"

	"fmt"
	"regexp"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// behaviour is how a compiler for one architecture is modelled to place a
// function that holds ops the Neural Engine cannot run.
type behaviour int

const (
	// allOrNothing: any blocker fails the function's Neural Engine compile;
	// a fully legal function gets one region.
	allOrNothing behaviour = iota
	// partitionFp32: ops on non-ANE element types (fp32 islands) run on the
	// GPU and split the function; each maximal run of the other ops gets
	// one region. Whole-function rules (RuleLUT4SmallGroup, RuleMetalKernel)
	// still give 0; other blockers leave the count unknown.
	partitionFp32
	// unknownBehaviour: no published compile for the architecture.
	unknownBehaviour
)

// Architecture is a target the region prediction is made for.
type Architecture struct {
	Name      string
	Behaviour behaviour
	// Evidence names the compiles the behaviour rests on ("" when unknown).
	Evidence string
}

// DefaultArchitecture is the seed's target.
const DefaultArchitecture = "h18p"

// archs are the architectures with published compiles. Names follow
// coreai-build --architecture (h18p: iPhone 17 Pro; h16g: the M4 Mac of
// 4rg0naut/silicon-ledger-public EXP-005).
var archs = map[string]Architecture{
	"h18p": {Name: "h18p", Behaviour: allOrNothing, Evidence: "all-or-nothing: the seed note's arms A–E " +
		"(coreai-build 3600.83.1, iOS h18p: 0 regions with a blocker, 19/19 without) and MiniCPM5-2B / Qwen3-1.7B " +
		"(4rg0naut/coreai-model-zoo knowledge/ane-vs-gpu-iphone-2026-09.md: 0 or 31/31, never a partial count)"},
	"h16g": {Name: "h16g", Behaviour: partitionFp32, Evidence: "partitioning around fp32 islands: Granite-Embedding-97M " +
		"(4rg0naut/silicon-ledger-public results/EXP-005-ane-residency/README.md, coreai-build 3600.83.1, macOS h16g): " +
		"fp16 with 12 inline fp32 softmax chains 13 regions, without them 1, fp32 throughout 0"},
}

var archName = regexp.MustCompile(`^h[0-9]{2}[a-z]{1,2}$`)

// ParseArchitecture resolves a --architecture value ("" is the default).
// A well-formed name without published compiles is accepted with
// unknownBehaviour: no region count is predicted for it.
func ParseArchitecture(s string) (Architecture, error) {
	if s == "" {
		s = DefaultArchitecture
	}
	if a, ok := archs[s]; ok {
		return a, nil
	}
	if !archName.MatchString(s) {
		return Architecture{}, fmt.Errorf("architecture %q is not a coreai-build architecture name (such as h18p or h16g)%s", s, nearest.Hint(s, KnownArchitectures(), ""))
	}
	return Architecture{Name: s, Behaviour: unknownBehaviour}, nil
}

// KnownArchitectures lists the architectures with a region model, sorted.
func KnownArchitectures() []string { return []string{"h16g", "h18p"} }

// Describe says, in one line, what the prediction for a assumes.
func (a Architecture) Describe() string {
	if a.Behaviour == unknownBehaviour {
		// The known names stay out: a report speaks for one architecture
		// (check --rules lists them).
		return "unknown: no published compile for " + a.Name + ", so no region count is predicted ('anefix check --rules' lists the architectures with one)"
	}
	return a.Evidence
}

// wholeFunction are the blockers that keep a whole function off the
// Neural Engine under every known behaviour.
var wholeFunction = map[*Rule]bool{RuleLUT4SmallGroup: true, RuleMetalKernel: true}

// splitting are the blockers partitionFp32 treats as GPU islands.
var splitting = map[*Rule]bool{RuleElementType: true, ruleIOOp: true, RuleFp32GatherTable: true}

// regionPlan is how an architecture places one entry function: the
// region count follows from it (predictRegions) and so does each op's
// device (placement.go), so the two cannot disagree.
type regionPlan struct {
	// known: the architecture's behaviour says how the function is placed.
	known bool
	model string
	// whole: the function is off the Neural Engine as a whole (all-or-
	// nothing with a blocker, or a whole-function rule: wholeRule).
	whole     bool
	wholeRule *Rule
	// off tells the top-level ops (and what they nest) that split the
	// function's runs; each remaining run is one region (runs).
	off func(*graph.Operation) bool
}

// planRegions is a's plan for gr. offANE reports the ops of g on non-ANE
// element types; hasRule reports whether g or a graph it invokes has a
// blocker finding of one of the given rules.
func planRegions(a Architecture, gr *graphResult, offANE func(*graph.Operation) bool,
	hasRule func(graph string, rules map[*Rule]bool) *Rule, calleeOff func(string) bool) regionPlan {
	p := regionPlan{model: a.Describe(), off: func(*graph.Operation) bool { return false }}
	switch a.Behaviour {
	case unknownBehaviour:
		return p
	case allOrNothing:
		p.known, p.whole = true, gr.Blocked
		return p
	}
	if r := hasRule(gr.Name, wholeFunction); r != nil {
		p.known, p.whole, p.wholeRule = true, true, r
		p.model = a.Describe() + "; " + r.ID + " keeps the whole function off the Neural Engine"
		return p
	}
	other := map[*Rule]bool{}
	for _, r := range Rules {
		if r.Severity == blocker && !splitting[r] && !wholeFunction[r] {
			other[r] = true
		}
	}
	if r := hasRule(gr.Name, other); r != nil {
		p.model = "unknown: no " + a.Name + " compile on record shows how a function with " + r.ID + " is placed"
		return p
	}
	illegal := illegalOps(gr)
	p.known = true
	p.off = func(o *graph.Operation) bool {
		if illegal[o] || offANE(o) {
			return true
		}
		// Guess: an invoked composite with any GPU op counts as GPU as a
		// whole (the compiler inlines composites; no record says more).
		if c, ok := graph.Callee(o); ok && calleeOff(c) {
			return true
		}
		return false
	}
	return p
}

// illegalOps is the set of gr's ops with an Illegal verdict.
func illegalOps(gr *graphResult) map[*graph.Operation]bool {
	illegal := map[*graph.Operation]bool{}
	for _, v := range gr.Verdicts {
		if v.Verdict == Illegal {
			illegal[v.Op] = true
		}
	}
	return illegal
}

// predictRegions fills gr's architecture prediction from planRegions.
// Under all-or-nothing a legal function is one region (RegionsObserved).
func predictRegions(a Architecture, g *graph.Graph, gr *graphResult, offANE func(*graph.Operation) bool,
	hasRule func(graph string, rules map[*Rule]bool) *Rule, calleeOff func(string) bool) {
	p := planRegions(a, gr, offANE, hasRule, calleeOff)
	gr.RegionModel, gr.RegionsKnown = p.model, p.known
	if !p.known {
		return
	}
	n := label(g, p.off, func(op *graph.Operation, run int) {
		if run == 0 || p.whole {
			gr.OpsOff += placedOps(op)
		}
	})
	switch {
	case a.Behaviour == allOrNothing:
		gr.PredictedRegions = gr.RegionsObserved
	case p.whole:
		gr.PredictedRegions = 0
	default:
		gr.PredictedRegions = n
	}
}

// placedOps counts op and the ops nested in it, constants left out: the
// ops a placement puts on a device.
func placedOps(op *graph.Operation) int {
	n := 0
	op.Walk(func(o *graph.Operation) bool {
		if o.Name != "coreai.constant" {
			n++
		}
		return true
	})
	return n
}

// runs counts the maximal runs of top-level ops (constants and the
// terminator skipped) for which off, applied to the op and everything
// nested in it, is false. Guess: one region per run in program order, as
// Granite's 12 fp32 softmax chains gave 13 regions.
func runs(g *graph.Graph, off func(*graph.Operation) bool) int { return label(g, off, nil) }

// label is runs, calling each (when not nil) with every top-level op but
// constants and the terminator, and the 1-based number of its run (0: the
// op or something nested in it is off).
func label(g *graph.Graph, off func(*graph.Operation) bool, each func(op *graph.Operation, run int)) int {
	n, in := 0, false
	for _, op := range g.Body().Ops() {
		if op.Name == "coreai.constant" || op == g.Terminator() {
			continue
		}
		bad := false
		op.Walk(func(o *graph.Operation) bool {
			bad = bad || off(o)
			return true
		})
		if bad {
			in = false
			if each != nil {
				each(op, 0)
			}
			continue
		}
		if !in {
			n++
			in = true
		}
		if each != nil {
			each(op, n)
		}
	}
	return n
}

// offANEOps marks, by op index, the ops that read or write a data value
// of a non-ANE element type (the fp32 islands, reported or not): what
// partitionFp32 places on the GPU. nil when there is none. (A map from op
// cost about 37 bytes an op where every op is marked: issue 28's chain.)
func offANEOps(f *anefacts.Graph) []bool {
	if !f.HasBody() {
		return nil
	}
	var out []bool
	mark := func(i int) {
		if out == nil {
			out = make([]bool, len(f.Ops))
		}
		out[i] = true
	}
	for i, op := range f.Ops {
		if op == f.Term || op.Name == "coreai.constant" {
			continue
		}
		for j, v := range op.Operands() {
			if !anefacts.IsParamSlot(op, j) && !anefacts.IsStorageSlot(op, j) && f.BadElem(v) {
				mark(i)
			}
		}
		for _, r := range op.Results() {
			if f.BadElem(r) {
				mark(i)
			}
		}
	}
	return out
}
