// Package plandiff compares two modules of one model (an export and its
// rewrite, say) as check places them: the predicted Neural Engine regions
// before and after, the ops whose predicted device or element types
// changed, the ops added and removed, the graph I/O and the states that
// changed (`anefix diff A B`, `rewrite --report`).
//
// Op matching. Each graph of A is paired with B's graph of the same name.
// Within a pair, an op is keyed by its name and its FX node name (the op id
// in its location, graph.OpID) or, without one, its source line ("file:line";
// not a position in either input's own text, Side.Path), or nothing more
// when it has neither (a module without locations). Ops of
// one key are paired in program order when A and B hold as many of them;
// otherwise by the longest common subsequence of their shapes (result
// shapes and operand count, element types left out so a retyped op still
// pairs), the rest being removed (A) or added (B). A pass that replaces an
// op by one of the same name at the same location (strip-fp32-casts'
// retyped constants) shows as that op retyped; a replacement by another op
// name shows as the old op removed and the new one added.
package plandiff

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/ane"
)

// Side is one module of the comparison with check's report of it (ane
// Options.Placement set, so Report.Ops holds every op's placement).
type Side struct {
	Module *graph.Module
	Report *ane.Report
	// Path is the name the module was read under: a location in that file
	// is where the text reader found an op without one (MLIR's rule), not
	// a source line, and is left out of the op's key on both sides.
	Path string
}

// Regions is one entry graph's predicted region count on both sides.
type Regions struct {
	Graph string
	// InA, InB: the graph is an entry graph on that side.
	InA, InB bool
	// A, B are the predicted regions under the architecture; KnownA,
	// KnownB false when the architecture's behaviour for the function is
	// not on record.
	A, B           int
	KnownA, KnownB bool
	// SegmentsA, SegmentsB: the legal segments (what a partitioning
	// compiler could place).
	SegmentsA, SegmentsB int
}

// OpChange is one op that changed: matched with placement or element
// types changed, or present on one side only.
type OpChange struct {
	Graph string
	// A and B are the op on each side; nil for an op added (A nil) or
	// removed (B nil).
	A, B *ane.OpPlacement
	// Placement: the predicted device changed. Retyped: the distinct
	// element types of its operands and results changed.
	Placement, Retyped bool
}

// Added reports whether the op is only in B.
func (c OpChange) Added() bool { return c.A == nil }

// Removed reports whether the op is only in A.
func (c OpChange) Removed() bool { return c.B == nil }

// PortChange is one graph input or output that changed.
type PortChange struct {
	Graph string
	// Output: an output port; else an input.
	Output bool
	// IndexA, IndexB are its position on each side (-1: absent).
	IndexA, IndexB int
	NameA, NameB   string
	TypeA, TypeB   string
	// StateA, StateB: a runtime state port (graph.Port.IsState).
	StateA, StateB bool
	// What changed, in this order: "added", "removed", "renamed",
	// "retyped" (element type), "reshaped" (shape or rank), "became
	// state", "no longer state".
	Kinds []string
}

// StateChange is one state pair (graph/states.go) that changed, keyed by
// its input's name.
type StateChange struct {
	Graph string
	Name  string
	// FormA, FormB: "attribute", "handle" or "plain" (graph.StateForm); ""
	// when the side has no such pair.
	FormA, FormB string
	// OutA, OutB: the output carrying the new value ("" when none).
	OutA, OutB string
	// Kind: "promoted" (plain → state), "demoted" (state → plain), "added",
	// "removed", "form changed" or "output changed".
	Kind string
}

// Diff is the comparison of A with B.
type Diff struct {
	Architecture string
	// Regions per entry graph, A's order first, then B's new ones.
	Regions []Regions
	// GraphsAdded, GraphsRemoved name graphs on one side only; their ops
	// are listed as added or removed.
	GraphsAdded, GraphsRemoved []string
	// Ops in A's graph order then B's new graphs; within a graph in
	// program order, an op removed before the matched op that follows it.
	Ops   []OpChange
	Ports []PortChange
	// States in graph order, then input order of A, then B's new ones.
	States []StateChange
}

// Empty reports whether nothing changed.
func (d *Diff) Empty() bool {
	for _, r := range d.Regions {
		if r.InA != r.InB || r.A != r.B || r.KnownA != r.KnownB {
			return false
		}
	}
	return len(d.GraphsAdded)+len(d.GraphsRemoved)+len(d.Ops)+len(d.Ports)+len(d.States) == 0
}

// Total sums the predicted regions of one side's entry graphs; ok is false
// when any is unknown.
func (d *Diff) Total(b bool) (regions int, ok bool) {
	ok = true
	for _, r := range d.Regions {
		in, n, known := r.InA, r.A, r.KnownA
		if b {
			in, n, known = r.InB, r.B, r.KnownB
		}
		if in {
			regions += n
			ok = ok && known
		}
	}
	return regions, ok
}

// Compute compares a with b. Both reports must carry placements and be
// made for the same architecture.
func Compute(a, b Side) (*Diff, error) {
	if a.Report.Architecture.Name != b.Report.Architecture.Name {
		return nil, fmt.Errorf("the two reports are for different architectures (%s, %s): a plan diff compares one architecture", a.Report.Architecture.Name, b.Report.Architecture.Name)
	}
	d := &Diff{Architecture: a.Report.Architecture.Name}
	pa, pb := placements(a.Report), placements(b.Report)
	own := []string{a.Path, b.Path}
	ga, gb := a.Module.Graphs(), b.Module.Graphs()
	byName := map[string]*graph.Graph{}
	for _, g := range gb {
		byName[g.Name()] = g
	}
	inA := map[string]bool{}
	for _, g := range ga {
		inA[g.Name()] = true
		other := byName[g.Name()]
		if other == nil {
			d.GraphsRemoved = append(d.GraphsRemoved, g.Name())
		}
		d.Ops = append(d.Ops, diffOps(g, other, pa, pb, own)...)
	}
	for _, g := range gb {
		if !inA[g.Name()] {
			d.GraphsAdded = append(d.GraphsAdded, g.Name())
			d.Ops = append(d.Ops, diffOps(nil, g, pa, pb, own)...)
		}
	}
	d.Regions = regions(a.Report, b.Report)
	d.Ports, d.States = diffPorts(a.Module, b.Module)
	return d, nil
}

// placements indexes a report's placements by graph and op index.
func placements(r *ane.Report) map[string][]*ane.OpPlacement {
	out := map[string][]*ane.OpPlacement{}
	for i := range r.Ops {
		p := &r.Ops[i]
		ps := out[p.Graph]
		for len(ps) <= p.Index {
			ps = append(ps, nil)
		}
		ps[p.Index] = p
		out[p.Graph] = ps
	}
	return out
}

// regions pairs the entry graphs' predictions by name.
func regions(a, b *ane.Report) []Regions {
	var out []Regions
	at := map[string]int{}
	for i := range a.Graphs {
		if g := &a.Graphs[i]; g.Entry {
			at[g.Name] = len(out)
			out = append(out, Regions{Graph: g.Name, InA: true, A: g.PredictedRegions, KnownA: g.RegionsKnown, SegmentsA: g.Segments})
		}
	}
	for i := range b.Graphs {
		g := &b.Graphs[i]
		if !g.Entry {
			continue
		}
		k, ok := at[g.Name]
		if !ok {
			k = len(out)
			out = append(out, Regions{Graph: g.Name})
		}
		r := &out[k]
		r.InB, r.B, r.KnownB, r.SegmentsB = true, g.PredictedRegions, g.RegionsKnown, g.Segments
	}
	return out
}
