package passes

// Which graphs are the model's entry graphs, finding a port by name, and
// how ports are named in messages: shared by fold-io-unsqueeze,
// promote-states, states-as-outputs, scale-state, externalize-constant and
// arm-d. The IR-building helpers they share live in passes/internal/ops.

import (
	"fmt"
	"strings"

	"github.com/anefix/anefix/graph"
)

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
		ns = append(ns, p.Label())
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
