package graph

import (
	"regexp"
	"strconv"
	"strings"
)

// Callee returns the symbol a coreai.invoke or func.call op calls (the root
// of its callee reference), or false for any other op.
func Callee(op *Operation) (string, bool) {
	if op.Name != "coreai.invoke" && op.Name != "func.call" {
		return "", false
	}
	ref, ok := op.Inherent("callee").(*SymbolRefAttr)
	if !ok {
		return "", false
	}
	return ref.Root, true
}

// Callees is the set of symbols some coreai.invoke / func.call anywhere
// below root calls (root included).
func Callees(root *Operation) map[string]bool {
	out := map[string]bool{}
	root.Walk(func(op *Operation) bool {
		if c, ok := Callee(op); ok {
			out[c] = true
		}
		return true
	})
	return out
}

// entryRule says which graphs count as entry graphs, the ones whose I/O is
// the model's I/O. Every rule needs a body: a declaration has no I/O values.
// The rules differ on purpose only where a graph is neither plainly an entry
// (public, uncalled) nor plainly a composite (private, called).
type entryRule int

const (
	// EntryNotPrivate: not private ("", "public" or "nested") and called by
	// no op. The I/O passes' rule (fold-io-unsqueeze, promote-states,
	// states-as-outputs, scale-state, externalize-constant): they rewrite
	// signatures, and a called graph's signature belongs to its callers.
	EntryNotPrivate entryRule = iota
	// EntryPublic: as EntryNotPrivate, but "nested" is no entry either.
	// ane check's rule, which applies the entry-only rules (I/O ops, I/O
	// types) to what the compiler sees as the model's functions.
	EntryPublic
	// EntryUnlessPrivateCallee: every graph but a private one that some op
	// calls, so a public graph that is also called still counts.
	// strip-fp32-casts' rule for reporting I/O changes: retyping such a
	// graph's ports changes what a caller outside the module sees, so the
	// change is reported rather than hidden as internal.
	EntryUnlessPrivateCallee
)

// EntryGraphs lists m's entry graphs under rule, in module order.
func EntryGraphs(m *Module, rule entryRule) []*Graph {
	called := Callees(m.Op)
	var out []*Graph
	for _, g := range m.Graphs() {
		if g.Body() == nil {
			continue
		}
		vis := g.Visibility()
		var entry bool
		switch rule {
		case EntryNotPrivate:
			entry = vis != "private" && !called[g.Name()]
		case EntryPublic:
			entry = (vis == "" || vis == "public") && !called[g.Name()]
		case EntryUnlessPrivateCallee:
			entry = vis != "private" || !called[g.Name()]
		}
		if entry {
			out = append(out, g)
		}
	}
	return out
}

// Label is the port's coreai.name or, without one, "#<index>".
func (p Port) Label() string {
	if p.Name != "" {
		return p.Name
	}
	return "#" + strconv.Itoa(p.Index)
}

// FindPort returns the port of ports named name and how many have that
// name (a caller decides what 0 or 2 means).
func FindPort(ports []Port, name string) (Port, int) {
	countWork(workPorts, len(ports))
	var p Port
	n := 0
	for _, x := range ports {
		if x.Name == name {
			p = x
			n++
		}
	}
	return p, n
}

// PortLabels lists ports by Label, comma-separated, for messages.
func PortLabels(ports []Port) string {
	ns := make([]string, len(ports))
	for i, p := range ports {
		ns[i] = p.Label()
	}
	return strings.Join(ns, ", ")
}

// Signatures lists each graph's ports as @name(inputs) -> (outputs), for
// messages that say what a graph offers.
func Signatures(gs []*Graph) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = "@" + g.Name() + "(" + PortLabels(g.Inputs()) + ") -> (" + PortLabels(g.Outputs()) + ")"
	}
	return strings.Join(parts, "; ")
}

var compositeNameRE = regexp.MustCompile(`^#coreai\.composite_declaration<\s*"((?:[^"\\]|\\.)*)"`)

// CompositeName is the name inside the graph's composite_decl
// (`#coreai.composite_declaration<"rms_norm" = {…}>` gives rms_norm, still
// MLIR-escaped), and false when there is no decl or it has another shape.
func (g *Graph) CompositeName() (string, bool) {
	a := g.CompositeDecl()
	if a == nil {
		return "", false
	}
	if m := compositeNameRE.FindStringSubmatch(a.String()); m != nil {
		return m[1], true
	}
	return "", false
}
