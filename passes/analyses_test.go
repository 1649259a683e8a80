package passes

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
)

// TestAnalysisRunsDefaultRewrite counts the analyses the default pipeline
// computes on arm A: each once. Before the passes declared them, the state
// analysis ran four times (strip-fp32-casts' islands and its element-type
// check, fold-io-unsqueeze, promote-states) and the islands' state pairs
// were a fifth; now strip-fp32-casts computes the states, its islands read
// them, and fold-io-unsqueeze and promote-states reuse them because
// strip-fp32-casts and fold-io-unsqueeze declare they preserve them.
func TestAnalysisRunsDefaultRewrite(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(Spec{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(m, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"states": 1, "islands": 1}
	if !maps.Equal(res.AnalysisRuns, want) {
		t.Errorf("analysis runs %v, want %v", res.AnalysisRuns, want)
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
		{"promote-states", func(p *Pass) { p.Preserves = []*Analysis{AnalysisStates} }, "declares it preserves analysis states"},
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
		{[]*Analysis{AnalysisStates}, true, false},
		{[]*Analysis{AnalysisIslands}, false, false},
		{[]*Analysis{AnalysisStates, AnalysisIslands}, true, true},
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
