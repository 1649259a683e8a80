package plandiff

import (
	"github.com/anefix/anefix/graph"
)

// The entry graphs' interfaces: ports and state pairs.

// entries are m's entry graphs by name, and their names in module order.
func entries(m *graph.Module) (map[string]*graph.Graph, []string) {
	by := map[string]*graph.Graph{}
	var names []string
	for _, g := range graph.EntryGraphs(m, graph.EntryPublic) {
		by[g.Name()] = g
		names = append(names, g.Name())
	}
	return by, names
}

// diffPorts compares the entry graphs' ports and state pairs (graph
// states.go's analysis, default options, as check and rewrite use it).
// Inputs pair by name. Outputs pair by name, then an output of B that
// carries the new value of a state with an output of A that carried the
// same state's (promote-states renames it after the state), then the
// outputs left at the same position when both graphs have as many.
func diffPorts(a, b *graph.Module) ([]PortChange, []StateChange) {
	ea, na := entries(a)
	eb, nb := entries(b)
	sa, sb := graph.StatesOf(a, graph.StateOptions{}), graph.StatesOf(b, graph.StateOptions{})
	var ports []PortChange
	var states []StateChange
	names := append([]string(nil), na...)
	for _, n := range nb {
		if ea[n] == nil {
			names = append(names, n)
		}
	}
	for _, n := range names {
		ga, gb := ea[n], eb[n]
		var ia, ib *graph.StateAnalysis
		var ina, inb, outa, outb []graph.Port
		if ga != nil {
			ia, ina, outa = sa[ga.Op], ga.Inputs(), ga.Outputs()
		}
		if gb != nil {
			ib, inb, outb = sb[gb.Op], gb.Inputs(), gb.Outputs()
		}
		ports = append(ports, portChanges(n, false, ina, inb, pairInputs(ina, inb))...)
		ports = append(ports, portChanges(n, true, outa, outb, pairOutputs(outa, outb, ia, ib))...)
		states = append(states, stateChanges(n, ia, ib)...)
	}
	return ports, states
}

// pairByName pairs ports of one name that is unique on both sides.
func pairByName(a, b []graph.Port) (ma, mb []int) {
	ma, mb = filled(len(a)), filled(len(b))
	count := func(ps []graph.Port) map[string]int {
		c := map[string]int{}
		for _, p := range ps {
			c[p.Name]++
		}
		return c
	}
	ca, cb := count(a), count(b)
	at := map[string]int{}
	for j, p := range b {
		at[p.Name] = j
	}
	for i, p := range a {
		if p.Name != "" && ca[p.Name] == 1 && cb[p.Name] == 1 {
			j := at[p.Name]
			ma[i], mb[j] = j, i
		}
	}
	return ma, mb
}

// pairInputs pairs by name, then unnamed inputs by position.
func pairInputs(a, b []graph.Port) []int {
	ma, mb := pairByName(a, b)
	byPosition(ma, mb)
	return ma
}

// byPosition pairs what is left at the same index when both sides have as
// many ports.
func byPosition(ma, mb []int) {
	if len(ma) != len(mb) {
		return
	}
	for i := range ma {
		if ma[i] < 0 && mb[i] < 0 {
			ma[i], mb[i] = i, i
		}
	}
}

// pairOutputs pairs by name, then by the state whose new value both carry,
// then by position.
func pairOutputs(a, b []graph.Port, sa, sb *graph.StateAnalysis) []int {
	ma, mb := pairByName(a, b)
	if sa != nil && sb != nil {
		cb := map[string]int{}
		for _, p := range sb.Pairs {
			if p.Out >= 0 && p.Out < len(b) {
				cb[p.Name] = p.Out
			}
		}
		for _, p := range sa.Pairs {
			i := p.Out
			if j, ok := cb[p.Name]; ok && i >= 0 && i < len(a) && ma[i] < 0 && mb[j] < 0 {
				ma[i], mb[j] = j, i
			}
		}
	}
	byPosition(ma, mb)
	return ma
}

// portChanges lists what changed of paired ports, then the ports of A
// removed and of B added.
func portChanges(g string, output bool, a, b []graph.Port, ma []int) []PortChange {
	var out []PortChange
	paired := make([]bool, len(b))
	for i, p := range a {
		c := PortChange{Graph: g, Output: output, IndexA: i, IndexB: -1, NameA: p.Label(), TypeA: typeString(p.Type), StateA: p.IsState}
		j := ma[i]
		if j < 0 {
			c.Kinds = []string{"removed"}
			out = append(out, c)
			continue
		}
		paired[j] = true
		q := b[j]
		c.IndexB, c.NameB, c.TypeB, c.StateB = j, q.Label(), typeString(q.Type), q.IsState
		if c.NameA != c.NameB {
			c.Kinds = append(c.Kinds, "renamed")
		}
		if elemString(p.Type) != elemString(q.Type) {
			c.Kinds = append(c.Kinds, "retyped")
		}
		if shapeString(p.Type) != shapeString(q.Type) {
			c.Kinds = append(c.Kinds, "reshaped")
		}
		switch {
		case !p.IsState && q.IsState:
			c.Kinds = append(c.Kinds, "became state")
		case p.IsState && !q.IsState:
			c.Kinds = append(c.Kinds, "no longer state")
		}
		if len(c.Kinds) > 0 {
			out = append(out, c)
		}
	}
	for j, q := range b {
		if !paired[j] {
			out = append(out, PortChange{Graph: g, Output: output, IndexA: -1, IndexB: j, NameB: q.Label(), TypeB: typeString(q.Type), StateB: q.IsState, Kinds: []string{"added"}})
		}
	}
	return out
}

func typeString(t graph.Type) string {
	if t == nil {
		return ""
	}
	return t.String()
}

func elemString(t graph.Type) string {
	if t == nil {
		return ""
	}
	return graph.ElementType(t).String()
}

// shapeString is the type with its element type left out.
func shapeString(t graph.Type) string {
	if x, ok := graph.AsTensor(t); ok {
		return x.WithElem(graph.None).String()
	}
	return typeString(t)
}

// stateChanges compares the state pairs of one graph, keyed by input name.
func stateChanges(g string, a, b *graph.StateAnalysis) []StateChange {
	type side struct{ form, out string }
	collect := func(s *graph.StateAnalysis) (map[string]side, []string) {
		m := map[string]side{}
		var order []string
		if s == nil {
			return m, nil
		}
		for _, p := range s.Pairs {
			out := p.OutName
			if p.Out < 0 {
				out = ""
			}
			if _, dup := m[p.Name]; !dup {
				order = append(order, p.Name)
			}
			m[p.Name] = side{p.Form.String(), out}
		}
		return m, order
	}
	ma, oa := collect(a)
	mb, ob := collect(b)
	for _, n := range ob {
		if _, ok := ma[n]; !ok {
			oa = append(oa, n)
		}
	}
	var out []StateChange
	for _, n := range oa {
		x, y := ma[n], mb[n]
		c := StateChange{Graph: g, Name: n, FormA: x.form, FormB: y.form, OutA: x.out, OutB: y.out}
		plain := graph.StatePlain.String()
		switch {
		case x == y:
			continue
		case x.form == "":
			c.Kind = "added"
		case y.form == "":
			c.Kind = "removed"
		case x.form == plain && y.form != plain:
			c.Kind = "promoted"
		case x.form != plain && y.form == plain:
			c.Kind = "demoted"
		case x.form != y.form:
			c.Kind = "form changed"
		default:
			c.Kind = "output changed"
		}
		out = append(out, c)
	}
	return out
}
