package passes

// Which graphs are the model's entry graphs, finding a port by name, and
// how ports are named in messages: shared by fold-io-unsqueeze,
// promote-states, states-as-outputs, scale-state, externalize-constant and
// arm-d. The IR-building helpers they share live in passes/internal/ops.

import (
	"fmt"
	"strconv"
	"strings"

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

// ioFindPort returns the port of ports named name and how many have that
// name.
func ioFindPort(ports []graph.Port, name string) (graph.Port, int) {
	var p graph.Port
	n := 0
	for _, x := range ports {
		if x.Name == name {
			p = x
			n++
		}
	}
	return p, n
}

// ioPortNames lists ports by name for messages.
func ioPortNames(ports []graph.Port) string {
	var ns []string
	for _, p := range ports {
		ns = append(ns, ioPortName(p))
	}
	return strings.Join(ns, ", ")
}

// ioPortList lists each graph's ports for messages.
func ioPortList(gs []*graph.Graph) string {
	var parts []string
	for _, g := range gs {
		parts = append(parts, fmt.Sprintf("@%s(%s) -> (%s)", g.Name(), ioPortNames(g.Inputs()), ioPortNames(g.Outputs())))
	}
	return strings.Join(parts, "; ")
}
