package ane

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/anefacts"
)

// Check runs the rule model over every graph of m. It does not modify m.
func Check(m *graph.Module) (*Report, error) { return CheckWith(m, Options{}) }

// Options choose what Check runs beyond the legality rules; neither changes
// a verdict (tests compare the reports with and without the hazard rules).
type Options struct {
	// NoHazards turns the fp16 hazard rules off (compile, which does not
	// report them).
	NoHazards bool
	// NoHazardBlobs keeps the hazard rules off dense_resource blobs, which
	// they otherwise read in full (1.5 GB for full-scale weights); inline
	// dense constants are still read.
	NoHazardBlobs bool
	// Architecture names the target of the region prediction (calib.go;
	// "" is DefaultArchitecture). It changes no verdict.
	Architecture string
	// States pairs state inputs with their outputs (graph/states.go); the
	// zero value is the default pairing, the one rewrite's default
	// pipeline uses.
	States graph.StateOptions
	// Placement fills Report.Ops (placement.go): every op's predicted
	// device, a record per op, so only when asked.
	Placement bool
}

// CheckWith is Check with options: the rules of Rules over each graph
// (pass.go), then what crosses graphs (a blocked composite blocks its
// callers), the region predictions, and the fixing passes' previews
// (fixes.go).
func CheckWith(m *graph.Module, o Options) (*Report, error) {
	facts, err := anefacts.Module(m, o.States)
	if err != nil {
		return nil, err
	}
	arch, err := ParseArchitecture(o.Architecture)
	if err != nil {
		return nil, err
	}
	rep := &Report{RuleSet: RuleSetVersion, Compiler: compilerVersion, Architecture: arch}
	var scan *anefacts.Scan
	if !o.NoHazards {
		scan = anefacts.NewScan(m)
		scan.NoBlobs = o.NoHazardBlobs
	}
	mod := newModuleRun(facts, arch)
	for _, f := range facts {
		rep.Graphs = append(rep.Graphs, runRules(f, scan, mod).result())
	}
	cg := newCallGraph(rep, facts)
	cg.blockCallers()
	offOf := func(i int) func(*graph.Operation) bool {
		f, gr := facts[i], &rep.Graphs[i]
		return func(o *graph.Operation) bool {
			i, ok := f.Index[o]
			return ok && gr.offANE != nil && gr.offANE[i]
		}
	}
	for i, f := range facts {
		if gr := &rep.Graphs[i]; gr.Entry {
			predictRegions(arch, f.G, gr, offOf(i), cg.findRule, cg.offANE)
		}
	}
	if o.Placement {
		rep.Ops = cg.placement(arch, offOf)
	}
	if scan != nil {
		rep.HazardNotes = scan.Notes()
	}
	resolveFixes(m, rep)
	return rep, nil
}

// callGraph answers questions that follow coreai.invoke / func.call from a
// graph into the composites it calls (the compiler inlines composites into
// the function it compiles).
type callGraph struct {
	rep     *Report
	facts   []*anefacts.Graph
	byName  map[string]int
	callees map[string][]string
	reach   map[string]bool // reachBlocked, once blocked asks
}

func newCallGraph(rep *Report, facts []*anefacts.Graph) *callGraph {
	cg := &callGraph{rep: rep, facts: facts, byName: map[string]int{}, callees: map[string][]string{}}
	for i, f := range facts {
		cg.byName[f.G.Name()] = i
		cg.callees[f.G.Name()] = f.G.Composites()
	}
	return cg
}

// blocked reports whether graph name, or a graph it calls (directly or
// not), has a blocker.
func (cg *callGraph) blocked(name string) bool {
	if cg.reach == nil {
		cg.reach = cg.reachBlocked()
	}
	return cg.reach[name]
}

// reachBlocked is the set of graphs that have a blocker or call, directly
// or not, one that has: one search backwards from the blocked graphs along
// the calls, where a search per graph was quadratic in a chain of calls
// (TestWorkLinearInGraphs).
func (cg *callGraph) reachBlocked() map[string]bool {
	callers := map[string][]string{}
	for caller, cs := range cg.callees {
		for _, c := range cs {
			callers[c] = append(callers[c], caller)
		}
	}
	reach := map[string]bool{}
	var work []string
	for name, i := range cg.byName {
		if cg.rep.Graphs[i].Blocked {
			reach[name] = true
			work = append(work, name)
		}
	}
	for len(work) > 0 {
		c := work[len(work)-1]
		work = work[:len(work)-1]
		for _, caller := range callers[c] {
			if _, ok := cg.byName[caller]; ok && !reach[caller] {
				reach[caller] = true
				work = append(work, caller)
			}
		}
	}
	return reach
}

// blockCallers marks a graph blocked when a composite it calls is, and
// fills each entry graph's observed-behaviour prediction and segments.
func (cg *callGraph) blockCallers() {
	for i, f := range cg.facts {
		gr := &cg.rep.Graphs[i]
		if !gr.Blocked && cg.blocked(f.G.Name()) {
			gr.Blocked = true
		}
		if gr.Entry {
			gr.RegionsObserved = 0
			if !gr.Blocked {
				gr.RegionsObserved = 1
			}
			gr.Segments = segments(f.G, gr, cg.blocked)
		}
	}
}

// findRule returns a rule of rules with a finding in graph name or a graph
// it calls, or nil.
func (cg *callGraph) findRule(name string, rules map[*Rule]bool) *Rule {
	return cg.hasRule(name, rules, map[string]bool{})
}

func (cg *callGraph) hasRule(name string, rules map[*Rule]bool, seen map[string]bool) *Rule {
	i, ok := cg.byName[name]
	if !ok || seen[name] {
		return nil
	}
	seen[name] = true
	for _, f := range cg.rep.Graphs[i].Findings {
		if rules[f.Rule] {
			return f.Rule
		}
	}
	for _, c := range cg.callees[name] {
		if r := cg.hasRule(c, rules, seen); r != nil {
			return r
		}
	}
	return nil
}

// offANE reports whether graph name has an op off the Neural Engine or is
// blocked (a composite counted as GPU as a whole: predictRegions).
func (cg *callGraph) offANE(name string) bool {
	i, ok := cg.byName[name]
	return ok && (len(cg.rep.Graphs[i].offANE) > 0 || cg.blocked(name))
}

// segments counts maximal runs of legal ops in the entry block's program
// order. Constants are free (they never split a run); the terminator ends
// the last run. A contiguous run of a topological order is convex, so each
// run is a subgraph a partitioning compiler could place as one region.
func segments(g *graph.Graph, gr *graphResult, calleeBlocked func(string) bool) int {
	return runs(g, segmentOff(g, gr, calleeBlocked))
}

// segmentOff tells the ops that split segments: illegal ones, and a
// top-level call of a blocked graph.
func segmentOff(g *graph.Graph, gr *graphResult, calleeBlocked func(string) bool) func(*graph.Operation) bool {
	illegal := illegalOps(gr)
	top := map[*graph.Operation]bool{}
	for _, op := range g.Body().Ops() {
		top[op] = true
	}
	return func(o *graph.Operation) bool {
		if illegal[o] {
			return true
		}
		c, ok := graph.Callee(o)
		return top[o] && ok && calleeBlocked(c)
	}
}

// CheckInput is check as `anefix check` runs it on a module read from the
// input named name: weights left out of the file are marked absent
// (passes.MarkAbsentWeights; the note saying so is returned, also with an
// error, for the caller to print first), the module must verify, and it
// must hold a function the compiler compiles. Errors name the input.
func CheckInput(m *graph.Module, name string, o Options) (rep *Report, absentNote string, err error) {
	// Rewrite and convert refuse such input; a prediction for it would be
	// for a graph that is not what it declares. Weights left out of the
	// file do not change what the rules look at (types and structure).
	if absent := passes.MarkAbsentWeights(m); len(absent) > 0 {
		absentNote = passes.AbsentWeightsNote(absent)
	}
	if err := graph.Verify(m); err != nil {
		return nil, absentNote, fmt.Errorf("%s: the input does not verify, so no prediction is made: %w", name, err)
	}
	rep, err = CheckWith(m, o)
	if err != nil {
		return nil, absentNote, fmt.Errorf("%s: %w", name, err)
	}
	// "Legal, 0 of 0 functions" would pass a CI gate on an empty or wrong
	// file.
	if _, fns := rep.Regions(); fns == 0 {
		return nil, absentNote, fmt.Errorf("%s holds no function the compiler would compile (no public coreai.graph or func.func), so there is nothing to check; is it the exported model (not empty, not truncated)?", name)
	}
	return rep, absentNote, nil
}
