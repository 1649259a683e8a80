package ane

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// suspectStateWrite: a slice_update that updates a buffer the graph is
// given and whose result is stored back into it: through write_handle on
// the state's handle (the handle form) or as the output holding the
// state's new value (a state, or a plain input returned under a matching
// output, paired by the state analysis, graph/states.go), except the form
// Apple's dense control compiles with 19/19 regions: a rank-5 KV-cache
// state ([layers, B, H·D, 1, S]; ruleRank's evidence cites it).
var suspectStateWrite = &Rule{
	ID:    "suspect.state-write",
	Title: "slice_update writes into a state",
	Message: "UNCONFIRMED: a slice_update (`slice_update %x with %u at (…)`) updates a buffer the graph is given and " +
		"the result is stored back (write_handle on the state's handle, or returned as the state's new value), " +
		"other than the rank-5 KV-cache states Apple's dense control writes and compiles",
	Evidence: "seed arm D: untested candidate for the second blocker (the seed's note calls these " +
		"mutable_slice_update state writes; no such op is in the IR, where a state write is slice_update " +
		"then write_handle, or slice_update returned as a state output, coreai-facts §0); " +
		"arm E's KV-cache writes compile 19/19, so those are not listed",
	Severity: suspect,
	Experiment: "the conv/recurrent states become a plain input and output, so the update is returned instead " +
		"of written (handle states too); compare the regions with the default rewrite's",
	ExperimentRewrite: []string{"--enable", "states-as-outputs"},
	Run:               runStateWrite,
}

func runStateWrite(p *Pass) {
	if !p.Entry {
		return
	}
	for _, op := range p.Ops {
		if anefacts.BaseOpName(op.Name) != "coreai.slice_update" || op.NumOperands() == 0 || op.NumResults() == 0 {
			continue
		}
		in := p.SourceInput(op.Operand(0))
		if in < 0 || in >= len(p.Inputs) {
			continue
		}
		how := storedBack(p, op.Result(0), in)
		if how == "" {
			continue
		}
		port := p.Inputs[in]
		t := anefacts.DataTensor(port.Type)
		if port.IsState && t != nil && t.Rank() == 5 && t.Shape[3] == 1 {
			continue
		}
		kind := "plain input"
		if port.IsState {
			kind = "state"
		}
		p.Report(op, "", fmt.Sprintf("slice_update writes %s %s %s, then %s", kind, anefacts.PortName(p.Inputs, in), op.Operand(0).Type(), how))
	}
}

// storedBack follows v forwards through data-movement ops and says how it
// is stored into input in's buffer: "coreai.write_handle stores it" or
// "the graph returns it as output …"; "" when it is not.
func storedBack(p *Pass, v *graph.Value, in int) string {
	how := ""
	anefacts.WalkForward(v, func(u graph.Use) (follow, stop bool) {
		base := anefacts.BaseOpName(u.Op.Name)
		switch {
		case base == "coreai.write_handle" && u.Index == 1:
			if p.SourceInput(u.Op.Operand(0)) == in {
				how = "coreai.write_handle stores it"
				return false, true
			}
		case u.Op == p.Term:
			if u.Index < len(p.Outputs) && outputFor(p, in, u.Index) {
				how = "the graph returns it as output " + anefacts.PortName(p.Outputs, u.Index)
				return false, true
			}
		case (anefacts.MoveOps[base] || base == "coreai.slice_update") && u.Index == 0 && base != "coreai.slice":
			return true, false
		}
		return false, false
	})
	return how
}

// outputFor reports whether output k carries input in's new value (the
// state analysis, graph/states.go).
func outputFor(p *Pass, in, k int) bool {
	pair, ok := p.States.ForInput(in)
	return ok && pair.Out == k
}
