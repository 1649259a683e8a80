package ane

import (
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
)

func init() { passes.SetElementTypeBlockers(ElementTypeBlockers) }

// ElementTypeBlockers returns the ops whose verdict names RuleElementType:
// the ops that open a reported island and, through alsoIllegal, every op
// inside it. strip-fp32-casts.islands=blockers retypes the islands holding
// them and nothing else.
func ElementTypeBlockers(m *graph.Module) (map[*graph.Operation]bool, error) {
	rep, err := Check(m)
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
