package ane

import (
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
)

func init() {
	passes.SetElementTypeBlockers(ElementTypeBlockers)
	passes.SetRangeHazardConstants(RangeHazardConstants)
}

// ElementTypeBlockers returns the ops whose verdict names RuleElementType:
// the ops that open a reported island and, through alsoIllegal, every op
// inside it. strip-fp32-casts.islands=blockers retypes the islands holding
// them and nothing else. States pair under states (the pipeline's
// settings), so that a plain pair promote-states will make a state is the
// round trip through the interface it becomes.
func ElementTypeBlockers(m *graph.Module, states graph.StateOptions) (map[*graph.Operation]bool, error) {
	// Hazards never change a verdict; fixes are what strip-fp32-casts'
	// preview answers, and it asks this.
	rep, err := CheckWith(m, Options{NoHazards: true, noFixes: true, States: states})
	if err != nil {
		return nil, err
	}
	out := map[*graph.Operation]bool{}
	for i := range rep.Graphs {
		for _, v := range rep.Graphs[i].Verdicts {
			for _, id := range v.Rules {
				if id == RuleElementType.ID {
					out[v.Op] = true
				}
			}
		}
	}
	return out, nil
}

// RangeHazardConstants returns the constants check's fp16.out-of-range rule
// (hazards.go) flags, in graph and op order, each once: the constants
// finite-masks rewrites.
func RangeHazardConstants(m *graph.Module) ([]*graph.Operation, error) {
	rep, err := CheckWith(m, Options{})
	if err != nil {
		return nil, err
	}
	seen := map[*graph.Operation]bool{}
	var out []*graph.Operation
	for _, f := range rep.AllHazards() {
		if f.Rule == HazardRange && f.Op != nil && !seen[f.Op] {
			seen[f.Op] = true
			out = append(out, f.Op)
		}
	}
	return out, nil
}
