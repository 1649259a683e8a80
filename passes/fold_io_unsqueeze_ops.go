package passes

// Which graphs are the model's entry graphs, and how a port is named in
// messages: used by fold-io-unsqueeze, promote-states, arm-d and the other
// I/O passes. The IR-building helpers they share live in
// passes/internal/ops.

import (
	"strconv"

	"github.com/anefix/anefix/graph"
)

// ioCallees lists the symbols called by coreai.invoke / func.call anywhere
// in the module: those graphs' signatures belong to their callers and the
// I/O passes leave them alone.
func ioCallees(m *graph.Module) map[string]bool {
	out := map[string]bool{}
	m.Walk(func(op *graph.Operation) bool {
		if op.Name == "coreai.invoke" || op.Name == "func.call" {
			if ref, ok := op.Inherent("callee").(*graph.SymbolRefAttr); ok {
				out[ref.Root] = true
			}
		}
		return true
	})
	return out
}

// ioEntryGraphs are the graphs whose I/O is the model's I/O: public, with a
// body, and not called from another graph.
func ioEntryGraphs(m *graph.Module) []*graph.Graph {
	callees := ioCallees(m)
	var out []*graph.Graph
	for _, g := range m.Graphs() {
		if g.Visibility() == "private" || g.Body() == nil || callees[g.Name()] {
			continue
		}
		out = append(out, g)
	}
	return out
}

// ioPortName is a port's coreai.name or, without one, "#<index>".
func ioPortName(p graph.Port) string {
	if p.Name != "" {
		return p.Name
	}
	return "#" + strconv.Itoa(p.Index)
}
