package passes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// Analysis is a result about the whole module that several passes read:
// a pass declares the ones it reads (Pass.Requires) and the ones it leaves
// unchanged (Pass.Preserves). A pipeline computes each once, when a pass
// first asks, and computes it again only after a pass that does not
// declare it preserves it. check's rules share their facts the same way
// (passes/ane pass.go, Fact); MLIR's preserved analyses are the model.
type Analysis struct {
	Name string
	Doc  string
	// from lists the analyses this one is computed from: it is dropped
	// with them.
	from []*Analysis
}

var (
	// analysisStates is the state analysis (graph/states.go) of every
	// graph of the module under the pipeline's states settings.
	analysisStates = &Analysis{Name: "states", Doc: "which input of each graph is a state and which output carries its new value (graph/states.go), under the pipeline's states settings"}
	// analysisIslands is the element-type islands check cites
	// (anefacts.ElementTypeBlockers), with states paired by analysisStates:
	// what strip-fp32-casts' islands=blockers retypes.
	analysisIslands = &Analysis{Name: "islands", Doc: "the ops of the non-ANE islands ane check's element-type rule cites (passes/anefacts), states paired as the states analysis pairs them",
		from: []*Analysis{analysisStates}}
)

// analyses are every analysis a pass may declare, in the order they are
// listed in docs.
var analyses = []*Analysis{analysisStates, analysisIslands}

// Analyses lists the analyses passes may declare, for `anefix passes` and
// PASSES.md.
func Analyses() []*Analysis { return slices.Clone(analyses) }

// AnalysisNames lists the names of as.
func AnalysisNames(as []*Analysis) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

// analysisCache holds the analyses of one module during one pipeline run
// (or one run of a pass alone: Context.withCache).
type analysisCache struct {
	m        *graph.Module
	so       graph.StateOptions
	states   map[*graph.Operation]*graph.StateAnalysis // nil: not computed
	blockers map[*graph.Operation]bool                 // nil: not computed
	// runs counts the computations of each analysis (Result.AnalysisRuns).
	runs map[string]int
	// asked records the analyses the running pass asked for
	// (RunOptions.CheckPreserved compares them with its Requires).
	asked map[*Analysis]bool
}

func newAnalysisCache(m *graph.Module, so graph.StateOptions) *analysisCache {
	return &analysisCache{m: m, so: so, runs: map[string]int{}, asked: map[*Analysis]bool{}}
}

// allStates returns analysisStates from the cache, computing every graph's
// the first time (graph.StatesOf: one scope for the module, so each callee
// is summarized once). Every graph at once, not each when asked: the
// scope's summaries describe the graphs as they were when it was made.
func (c *analysisCache) allStates() map[*graph.Operation]*graph.StateAnalysis {
	if c.states == nil {
		c.states = graph.StatesOf(c.m, c.so)
		c.runs[analysisStates.Name]++
	}
	return c.states
}

// stateOf returns g's analysis from the cache; a graph the cache does not
// hold (one a pass made after the cache was filled) is analyzed on its own.
func (c *analysisCache) stateOf(g *graph.Graph) *graph.StateAnalysis {
	c.asked[analysisStates] = true
	return c.stateOfUnasked(g)
}

// stateOfUnasked is stateOf for the islands analysis, which is computed
// from the states: a pass that asks for the islands asks for no states.
func (c *analysisCache) stateOfUnasked(g *graph.Graph) *graph.StateAnalysis {
	if sa, ok := c.allStates()[g.Op]; ok {
		return sa
	}
	return graph.States(g, c.so)
}

// islandBlockers returns analysisIslands from the cache, computing it the
// first time.
func (c *analysisCache) islandBlockers() (map[*graph.Operation]bool, error) {
	c.asked[analysisIslands] = true
	if c.blockers == nil {
		b, err := anefacts.ElementTypeBlockers(c.m, c.stateOfUnasked)
		if err != nil {
			return nil, err
		}
		c.blockers = b
		c.runs[analysisIslands.Name]++
	}
	return c.blockers, nil
}

// fill computes every analysis not in the cache (the check of Preserves
// compares them after the pass).
func (c *analysisCache) fill() error {
	c.allStates()
	_, err := c.islandBlockers()
	clear(c.asked)
	return err
}

// checkRequired refuses a pass that asked for an analysis it does not
// declare in Requires.
func (c *analysisCache) checkRequired(p *Pass) error {
	for _, a := range analyses {
		if c.asked[a] && !slices.Contains(p.Requires, a) {
			return fmt.Errorf("pass %s asks for analysis %s but does not declare it in Requires (table.go)", p.Name, a.Name)
		}
	}
	clear(c.asked)
	return nil
}

// keep drops every analysis p does not preserve, and those computed from
// a dropped one.
func (c *analysisCache) keep(p *Pass) {
	dropped := map[*Analysis]bool{}
	for _, a := range analyses { // analyses lists an analysis after those it is computed from
		drop := !slices.Contains(p.Preserves, a)
		for _, f := range a.from {
			drop = drop || dropped[f]
		}
		if !drop {
			continue
		}
		dropped[a] = true
		switch a {
		case analysisStates:
			c.states = nil
		case analysisIslands:
			c.blockers = nil
		}
	}
}

// checkPreserved compares every analysis p declares it preserves, as the
// cache holds it from before p ran, with the analysis made afresh now: a
// difference is a false declaration, a bug in the table.
func (c *analysisCache) checkPreserved(p *Pass) error {
	for _, a := range p.Preserves {
		var diff string
		switch a {
		case analysisStates:
			if c.states == nil {
				continue
			}
			diff = diffStates(c.states, graph.StatesOf(c.m, c.so))
		case analysisIslands:
			if c.blockers == nil {
				continue
			}
			fresh, err := anefacts.ElementTypeBlockers(c.m, graph.NewStateScope(c.so).States)
			if err != nil {
				return err
			}
			diff = diffOps(c.blockers, fresh)
		}
		if diff != "" {
			return fmt.Errorf("pass %s declares it preserves analysis %s, but the analysis made after it differs: %s", p.Name, a.Name, diff)
		}
	}
	return nil
}

// diffStates says how two state analyses of a module differ, graph by
// graph ("" when they agree).
func diffStates(was, now map[*graph.Operation]*graph.StateAnalysis) string {
	var out []string
	for op, a := range now {
		b, ok := was[op]
		name := a.Graph.Name()
		switch {
		case !ok:
			out = append(out, "graph @"+name+" is new")
		case !slices.Equal(a.Pairs, b.Pairs):
			out = append(out, fmt.Sprintf("graph @%s: pairs %v, were %v", name, describePairs(a.Pairs), describePairs(b.Pairs)))
		case !slices.Equal(a.Named, b.Named) || !slices.Equal(a.Notes, b.Notes):
			out = append(out, fmt.Sprintf("graph @%s: notes %q, were %q", name, a.Notes, b.Notes))
		}
	}
	for op, b := range was {
		if _, ok := now[op]; !ok {
			out = append(out, "graph @"+b.Graph.Name()+" is gone")
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

func describePairs(ps []graph.StatePair) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%d→%d %s", p.In, p.Out, p.Describe())
	}
	return out
}

// diffOps says how two sets of ops differ ("" when they agree).
func diffOps(was, now map[*graph.Operation]bool) string {
	var added, gone []string
	for op := range now {
		if !was[op] {
			added = append(added, op.OpID())
		}
	}
	for op := range was {
		if !now[op] {
			gone = append(gone, op.OpID())
		}
	}
	if len(added)+len(gone) == 0 {
		return ""
	}
	slices.Sort(added)
	slices.Sort(gone)
	return fmt.Sprintf("ops added %v, ops gone %v", added, gone)
}
