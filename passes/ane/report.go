package ane

// What check returns: a verdict per op, findings per graph, the region
// predictions (check.go fills them).

import (
	"slices"

	"github.com/anefix/anefix/graph"
)

// verdict is one op's outcome.
type verdict int

const (
	// legal: no blocker applies.
	legal verdict = iota
	// Illegal: at least one blocker applies.
	Illegal
	// Exempt: an index computation (integer values that only feed axes,
	// shapes and indices), which the element-type and rank rules skip.
	Exempt
)

func (v verdict) String() string {
	switch v {
	case Illegal:
		return "illegal"
	case Exempt:
		return "exempt"
	}
	return "legal"
}

// Finding is one rule applying to one op.
type Finding struct {
	Rule   *Rule
	Graph  string
	Op     *graph.Operation // nil for findings without an op
	Index  int              // op's pre-order position in its graph
	OpID   string
	OpName string
	Source string // "file:line" of the op's first file location
	Detail string // what exactly: the type, the port, the dimension
	// rare holds what most findings leave empty (Via, Fix, Log), so a
	// finding per op of a large graph does not carry three empty strings:
	// 56 bytes an op less on issue 28's 500k-op chain.
	rare *findingRare
	// NoFix: the rule's fixing pass would not remove this finding (its
	// preview leaves the values behind it); Detail then says what would.
	NoFix bool
	// vals are the values whose element type the finding is about (the
	// island's or the port's), for fixes.go.
	vals []*graph.Value
}

// FixPass is the pass that removes the finding ("" when none): check names
// one only where the pass, with the options the rule prints, removes it
// (fixes.go asks the pass's own preview).
func (f *Finding) FixPass() string {
	switch {
	case f.NoFix:
		return ""
	case f.Fix() != "":
		return f.Fix()
	}
	return f.Rule.Fix
}

type findingRare struct{ via, fix, log string }

// Via is the first caller frame in another file ("file:line"), e.g. the
// builder line that called into the model code; "" when none.
func (f *Finding) Via() string { return f.rareOr().via }

// Fix overrides Rule.Fix when the fixing pass depends on the case.
func (f *Finding) Fix() string { return f.rareOr().fix }

// Log names where a compiler diagnostic came from ("stderr:12"); empty for
// predictions.
func (f *Finding) Log() string { return f.rareOr().log }

var noRare findingRare

func (f *Finding) rareOr() *findingRare {
	if f.rare == nil {
		return &noRare
	}
	return f.rare
}

// setRare sets Via, Fix and Log, allocating only when one is not empty.
func (f *Finding) setRare(via, fix, log string) {
	if via == "" && fix == "" && log == "" {
		f.rare = nil
		return
	}
	f.rare = &findingRare{via: via, fix: fix, log: log}
}

// opVerdict is one op's verdict with the IDs of the rules behind it.
type opVerdict struct {
	Op      *graph.Operation
	Index   int
	Verdict verdict
	Rules   []string
}

// graphResult is what the model says about one graph.
type graphResult struct {
	Name string
	// Entry marks a graph the compiler compiles as a function (public, not
	// called by another graph); composites are checked but not counted.
	Entry    bool
	Verdicts []opVerdict
	Findings []Finding // blockers and infos, op order
	Suspects []Finding // op order
	// Hazards are the advisory fp16 findings (hazard_*.go), op order; they
	// never set Blocked.
	Hazards []Finding
	// Blocked is true when a blocker applies to this graph or a graph it
	// invokes.
	Blocked bool
	// RegionsObserved is the prediction under coreai-build 3600.83.1's
	// observed behaviour: 1 when the graph is fully legal, else 0 (the ANE
	// compile of the function fails and it runs on the GPU).
	RegionsObserved int
	// Segments is the number of maximal runs of legal ops in program order:
	// what a compiler that partitions around illegal ops could place.
	Segments int
	// Ops counts the ops examined (constants and the terminator included).
	Ops int
	// Advice are the performance findings (advice_*.go), op order; they never
	// change a verdict, a prediction or the exit code.
	Advice []Finding
	// PredictedRegions is the region count for Report.Architecture's
	// behaviour (calib.go), meaningful only when RegionsKnown; RegionModel
	// says what the prediction assumed, or why there is none.
	PredictedRegions int
	RegionsKnown     bool
	RegionModel      string
	// OpsOff counts the ops (nested ones too, constants not) the
	// architecture's plan keeps off the Neural Engine, when RegionsKnown.
	OpsOff int
	offANE []bool // by op index (offANEOps); nil when no op is off
}

// Report is the result of Check.
type Report struct {
	RuleSet  string
	Compiler string
	Graphs   []graphResult
	// HazardNotes says what the fp16 hazard rules could not read (a blob
	// whose bytes are absent, the scan budget), in first-seen order.
	HazardNotes []string
	// Architecture is the target of graphResult.PredictedRegions.
	Architecture Architecture
	// Ops is every op's placement under Architecture, graph by graph in
	// module order, each in pre-order; filled only with Options.Placement.
	Ops []OpPlacement
}

// AllAdvice returns every performance finding across graphs.
func (r *Report) AllAdvice() []Finding {
	return allOf(r, func(g *graphResult) []Finding { return g.Advice })
}

// PredictedRegions sums the architecture prediction over entry graphs; ok
// is false when any entry graph's count is unknown.
func (r *Report) PredictedRegions() (regions int, ok bool) {
	ok = true
	for i := range r.Graphs {
		if g := &r.Graphs[i]; g.Entry {
			regions += g.PredictedRegions
			ok = ok && g.RegionsKnown
		}
	}
	return regions, ok
}

// OpsOff sums the ops the architecture keeps off the Neural Engine over
// entry graphs; ok is false when any entry graph's count is unknown.
func (r *Report) OpsOff() (ops int, ok bool) {
	ok = true
	for i := range r.Graphs {
		if g := &r.Graphs[i]; g.Entry {
			ops += g.OpsOff
			ok = ok && g.RegionsKnown
		}
	}
	return ops, ok
}

// Legal reports whether every entry graph is predicted fully legal.
func (r *Report) Legal() bool {
	for i := range r.Graphs {
		if r.Graphs[i].Entry && r.Graphs[i].Blocked {
			return false
		}
	}
	return true
}

// Regions sums the observed-behaviour prediction over entry graphs and
// returns it with the number of entry graphs.
func (r *Report) Regions() (regions, functions int) {
	for i := range r.Graphs {
		if r.Graphs[i].Entry {
			functions++
			regions += r.Graphs[i].RegionsObserved
		}
	}
	return regions, functions
}

// allOf returns the list list gives of every graph, in graph order: the
// graph's own list (capacity clipped, so an append copies it) when only
// one graph has any, since a copy of a list of a finding per op doubled
// what check held; callers only read it.
func allOf(r *Report, list func(*graphResult) []Finding) []Finding {
	n, only := 0, -1
	for i := range r.Graphs {
		if l := len(list(&r.Graphs[i])); l > 0 {
			n += l
			only = i
		}
	}
	if only >= 0 && n == len(list(&r.Graphs[only])) {
		return slices.Clip(list(&r.Graphs[only]))
	}
	out := make([]Finding, 0, n)
	for i := range r.Graphs {
		out = append(out, list(&r.Graphs[i])...)
	}
	return out
}

// AllFindings returns every blocker/info finding across graphs.
func (r *Report) AllFindings() []Finding {
	return allOf(r, func(g *graphResult) []Finding { return g.Findings })
}

// AllSuspects returns every suspect finding across graphs.
func (r *Report) AllSuspects() []Finding {
	return allOf(r, func(g *graphResult) []Finding { return g.Suspects })
}

// AllHazards returns every fp16 hazard finding across graphs.
func (r *Report) AllHazards() []Finding {
	return allOf(r, func(g *graphResult) []Finding { return g.Hazards })
}
