package passes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
)

// TestAnalysisRuns counts the analyses pipelines compute. The default
// pipeline on arm A computes each once: strip-fp32-casts computes the
// states, its islands read them, and fold-io-unsqueeze and promote-states
// reuse them because strip-fp32-casts and fold-io-unsqueeze declare they
// preserve them. (Before the passes declared them, the state analysis
// ran four times: strip-fp32-casts' islands and its element-type check,
// fold-io-unsqueeze, promote-states.) promote-states changes the states,
// so a state pass after it (scale-state, states-as-outputs) computes them
// again: twice.
func TestAnalysisRuns(t *testing.T) {
	for _, c := range []struct {
		o      synth.Options
		enable []string
		want   map[string]int
	}{
		{synth.Options{Arm: synth.ArmA}, nil, map[string]int{"states": 1, "islands": 1}},
		{synth.Options{Arm: synth.ArmA, Recurrence: synth.RecurrenceComposite}, nil, map[string]int{"states": 1, "islands": 1}},
		{synth.Options{Arm: synth.ArmA}, []string{"scale-state"}, map[string]int{"states": 2, "islands": 1}},
		{synth.Options{Arm: synth.ArmB}, []string{"states-as-outputs"}, map[string]int{"states": 2, "islands": 1}},
		{synth.Options{Arm: synth.ArmA}, []string{"externalize-constant", "palettize", "scale-state"}, map[string]int{"states": 2, "islands": 1}},
	} {
		m, err := synth.Generate(c.o)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(Spec{Enable: c.enable})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(m, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(res.AnalysisRuns, c.want) {
			t.Errorf("arm %s %s +%v: analysis runs %v, want %v", c.o.Arm, c.o.Recurrence, c.enable, res.AnalysisRuns, c.want)
		}
	}
}

// TestAnalysesOnlyThroughContext: the passes reach the state analysis and
// the element-type islands only through their Context (settings.go), which
// serves them from the run's cache (analyses.go), so AnalysisRuns counts
// every run. A pass that called graph.States or anefacts.ElementTypeBlockers
// itself would compute it again, uncounted.
func TestAnalysesOnlyThroughContext(t *testing.T) {
	direct := map[string]bool{"graph.States": true, "graph.StatesOf": true, "graph.NewStateScope": true,
		"anefacts.ElementTypeBlockers": true, "anefacts.Module": true, "anefacts.ModuleWith": true}
	allowed := map[string]bool{"analyses.go": true, "settings.go": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && direct[x.Name+"."+sel.Sel.Name] {
				seen++
				if !allowed[f] {
					t.Errorf("%s: %s.%s: ask the Context (ctx.States, ctx.StateScope, ctx.IslandBlockers) and declare the analysis in the pass's Requires", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
	if seen == 0 {
		t.Fatal("no call to an analysis found at all: the scan sees nothing")
	}
}

// TestFalseDeclarationsFail: a false Preserves (promote-states changes the
// states' form) and a missing Requires (fold-io-unsqueeze reads the
// states) stop a run under CheckPreserved, so TestPreservedAnalyses would
// fail on them.
func TestFalseDeclarationsFail(t *testing.T) {
	for _, c := range []struct {
		pass string
		edit func(p *Pass)
		want string
	}{
		{"promote-states", func(p *Pass) { p.Preserves = []*Analysis{analysisStates} }, "declares it preserves analysis states"},
		{"fold-io-unsqueeze", func(p *Pass) { p.Requires = nil }, "asks for analysis states but does not declare it in Requires"},
	} {
		t.Run(c.pass, func(t *testing.T) {
			p := lookup(c.pass)
			was := *p
			defer func() { *p = was }()
			c.edit(p)
			m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
			if err != nil {
				t.Fatal(err)
			}
			pl, err := Build(Spec{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = pl.Run(m, RunOptions{CheckPreserved: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// A pipeline's analyses are dropped after a pass that does not preserve
// them, and the islands with the states they are computed from.
func TestAnalysisCacheKeep(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		preserves        []*Analysis
		states, blockers bool
	}{
		{nil, false, false},
		{[]*Analysis{analysisStates}, true, false},
		{[]*Analysis{analysisIslands}, false, false},
		{[]*Analysis{analysisStates, analysisIslands}, true, true},
	} {
		an := newAnalysisCache(m, graph.StateOptions{})
		if err := an.fill(); err != nil {
			t.Fatal(err)
		}
		an.keep(&Pass{Name: "x", Preserves: c.preserves})
		if got := [2]bool{an.states != nil, an.blockers != nil}; got != [2]bool{c.states, c.blockers} {
			t.Errorf("preserves %v: kept states, islands = %v, want %v", AnalysisNames(c.preserves), got, [2]bool{c.states, c.blockers})
		}
	}
	if !slices.Equal(AnalysisNames(Analyses()), []string{"states", "islands"}) {
		t.Errorf("analyses %v", AnalysisNames(Analyses()))
	}
}
