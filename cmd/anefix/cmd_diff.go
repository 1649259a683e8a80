package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes/ane"
	"github.com/anefix/anefix/passes/plandiff"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
	"github.com/anefix/anefix/proto/pbview"
)

func init() {
	register(&command{
		Name:    "diff",
		Usage:   "diff A B [--json] [--html FILE] [--dot FILE] [--architecture h18p|h16g|…]",
		Summary: "compare two modules' predicted placement: regions, ops moved, retyped, added, removed, I/O and states",
		Help: `Checks A and B (each an .aimodel, an LLM bundle, a .mlirb bytecode file, .mlir
text, or "-" for one of them) under one architecture and prints what changed
from A to B: the predicted ANE regions per function, the ops whose predicted
device changed, the ops whose element types changed (retyped), the ops added
and removed, the entry graphs' inputs and outputs added, removed, renamed,
retyped, reshaped or made states, and the state pairs promoted or demoted.
A summary comes first; the text groups ops by op name, source line and
change (--json lists every op with its placement on each side).

Ops pair by graph name, then by op name and op id (the FX node name in the
location), else source line, else program order; an op a pass replaced by
one of another name shows as removed and added (passes/plandiff says more).

--html FILE draws B as 'check B --html' does (one self-contained page, ops
coloured by predicted device) with the changed ops highlighted by kind
(moved, retyped, added); its header holds the summary and the count and
first ids of the removed ops, which B does not have to draw; --dot FILE
the same graph for Graphviz. "-" writes either to stdout instead
of the text.

It is a comparison of two predictions, not a compile. Differences are not a
failure: exit code 0 whatever changed, 1 bad input, 2 usage.

Examples:
  anefix rewrite model.aimodel -o model.fixed.aimodel
  anefix diff model.aimodel model.fixed.aimodel
  anefix diff model.aimodel model.fixed.aimodel --architecture h16g
  anefix diff model.aimodel model.fixed.aimodel --html diff.html
  anefix diff model.aimodel model.fixed.aimodel --json | jq '.ports[] | {nameA, nameB, kinds}'`,
		Setup: runWith((*diffFlags).declare, runDiff),
	})
}

type diffFlags struct {
	asJSON, ignoreHash bool
	arch               string
	view               viewFlags
}

func (f *diffFlags) declare(fs *pflag.FlagSet) {
	declareJSON(fs, &f.asJSON)
	declareIgnoreHash(fs, &f.ignoreHash)
	declareArchitecture(fs, &f.arch)
	f.view.declare(fs)
}

// runDiff loads and checks both inputs, hands them to plandiff and prints
// the result.
func runDiff(env *Env, f *diffFlags, args []string) error {
	if len(args) != 2 {
		return usagef("diff takes exactly two inputs, A and B, got %d", len(args))
	}
	if args[0] == "-" && args[1] == "-" {
		return usagef("only one of A and B can be read from stdin (-)")
	}
	if _, err := ane.ParseArchitecture(f.arch); err != nil {
		return usagef("--architecture: %v", err)
	}
	for _, in := range args {
		if err := f.view.vet(in, f.asJSON); err != nil {
			return err
		}
	}
	var sides [2]plandiff.Side
	var inputs [2]*pb.Input
	for i, path := range args {
		ld, err := loadInput(env, path, f.ignoreHash)
		if err != nil {
			return err
		}
		defer ld.Close()
		ld.ReadOnly()
		defer loadedGC(ld)()
		s, err := diffSide(env, ld, path, f.arch)
		if err != nil {
			return err
		}
		sides[i], inputs[i] = s, reportInput(path, ld)
	}
	d, err := plandiff.Compute(sides[0], sides[1])
	if err != nil {
		return err
	}
	msg := planDiffReport(d)
	msg.A, msg.B = inputs[0], inputs[1]
	if f.view.any() {
		view := checkReport(sides[1].Report, true)
		view.Input, view.Ops = inputs[1], pbOps(sides[1].Report.Ops, nil)
		if err := f.view.writeWith(env, view, diffView(msg)); err != nil {
			return err
		}
	}
	switch {
	case f.view.stdout():
		return nil
	case f.asJSON:
		b, err := protoJSON(msg)
		if err != nil {
			return err
		}
		_, err = env.Stdout.Write(b)
		return err
	}
	return writeDiffText(env.Stdout, msg, d.Empty())
}

// diffView is what the drawing of B adds: the summary, the changed ops of
// B by kind (an op both moved and retyped shows as retyped), and one
// header line naming the first removed ops (a line per removed op would
// fill the sticky header of a large diff).
func diffView(r *pb.PlanDiff) pbview.Options {
	o := pbview.Options{Title: "anefix diff " + r.GetA().GetPath() + " " + r.GetB().GetPath(),
		Summary: []string{
			fmt.Sprintf("Architecture %s: %s → %s ANE region(s) predicted over %d → %d function(s)", r.Architecture,
				regionsText(r.RegionsA), regionsText(r.RegionsB), r.FunctionsA, r.FunctionsB),
			fmt.Sprintf("ops: %d moved to another device, %d retyped, %d removed, %d added; I/O: %d port(s) changed; states: %d pair(s) changed",
				r.OpsPlacementChanged, r.OpsRetyped, r.OpsRemoved, r.OpsAdded, len(r.Ports), len(r.States)),
		}}
	var removed []string
	for _, c := range r.Ops {
		switch {
		case c.B == nil:
			removed = append(removed, c.A.OpId)
		case c.A == nil:
			o.Changes = append(o.Changes, pbview.Change{OpID: c.B.OpId, Kind: pbview.Added})
		case c.Retyped:
			o.Changes = append(o.Changes, pbview.Change{OpID: c.B.OpId, Kind: pbview.Retyped})
		case c.PlacementChanged:
			o.Changes = append(o.Changes, pbview.Change{OpID: c.B.OpId, Kind: pbview.Moved})
		}
	}
	if n := len(removed); n > 0 {
		more := ""
		if n > 8 {
			removed, more = removed[:8], ", …"
		}
		o.Summary = append(o.Summary, fmt.Sprintf("removed (ops of A, not drawn): %d: %s%s", n, strings.Join(removed, ", "), more))
	}
	return o
}

// diffSide checks one loaded input with placements (no hazard rules: they
// change no placement).
func diffSide(env *Env, ld *modelio.Loaded, path, arch string) (plandiff.Side, error) {
	rep, note, err := ane.CheckInput(ld.Module, path, ane.Options{NoHazards: true, Architecture: arch, Placement: true})
	if note != "" {
		fmt.Fprintf(env.Stderr, "anefix diff: note: %s\n", note)
	}
	if err != nil {
		return plandiff.Side{}, err
	}
	// main.hash was verified in the background while decoding.
	if err := ld.Input.CheckHash(); err != nil {
		return plandiff.Side{}, err
	}
	return plandiff.Side{Module: ld.Module, Report: rep, Path: ld.TextName()}, nil
}

// planDiffReport converts the diff to the schema.
func planDiffReport(d *plandiff.Diff) *pb.PlanDiff {
	msg := &pb.PlanDiff{SchemaVersion: pbprint.SchemaVersion, Architecture: d.Architecture, GraphsAdded: d.GraphsAdded, GraphsRemoved: d.GraphsRemoved}
	if n, ok := d.Total(false); ok {
		msg.RegionsA = int32Ptr(n)
	}
	if n, ok := d.Total(true); ok {
		msg.RegionsB = int32Ptr(n)
	}
	for _, r := range d.Regions {
		g := &pb.GraphRegions{Graph: r.Graph, InA: r.InA, InB: r.InB, SegmentsA: count32(r.SegmentsA), SegmentsB: count32(r.SegmentsB)}
		if r.InA {
			msg.FunctionsA++
			if r.KnownA {
				g.RegionsA = int32Ptr(r.A)
			}
		}
		if r.InB {
			msg.FunctionsB++
			if r.KnownB {
				g.RegionsB = int32Ptr(r.B)
			}
		}
		msg.Regions = append(msg.Regions, g)
	}
	one := func(p *ane.OpPlacement) *pb.OpPlacement {
		if p == nil {
			return nil
		}
		return pbOps([]ane.OpPlacement{*p}, nil)[0]
	}
	for _, c := range d.Ops {
		msg.Ops = append(msg.Ops, &pb.OpChange{Graph: c.Graph, A: one(c.A), B: one(c.B), PlacementChanged: c.Placement, Retyped: c.Retyped})
		switch {
		case c.Added():
			msg.OpsAdded++
		case c.Removed():
			msg.OpsRemoved++
		}
		if c.Placement {
			msg.OpsPlacementChanged++
		}
		if c.Retyped {
			msg.OpsRetyped++
		}
	}
	for _, p := range d.Ports {
		msg.Ports = append(msg.Ports, &pb.PortChange{Graph: p.Graph, Direction: direction(p.Output), IndexA: int32(p.IndexA), IndexB: int32(p.IndexB),
			NameA: p.NameA, NameB: p.NameB, TypeA: p.TypeA, TypeB: p.TypeB, StateA: p.StateA, StateB: p.StateB, Kinds: p.Kinds})
	}
	for _, s := range d.States {
		msg.States = append(msg.States, &pb.StateChange{Graph: s.Graph, Name: s.Name, FormA: s.FormA, FormB: s.FormB, OutA: s.OutA, OutB: s.OutB, Kind: s.Kind})
	}
	return msg
}

func direction(output bool) string {
	if output {
		return "output"
	}
	return "input"
}

// writeDiffText prints the summary, then the regions, the op groups, the
// I/O and the states.
func writeDiffText(w io.Writer, r *pb.PlanDiff, empty bool) error {
	b := &textChunks{w: w}
	fmt.Fprintf(b, "anefix diff %s %s\n", r.GetA().GetPath(), r.GetB().GetPath())
	fmt.Fprintf(b, "Architecture %s: %s → %s ANE region(s) predicted over %d → %d function(s)\n",
		r.Architecture, regionsText(r.RegionsA), regionsText(r.RegionsB), r.FunctionsA, r.FunctionsB)
	fmt.Fprintf(b, "  ops: %d moved to another device, %d retyped, %d removed, %d added\n", r.OpsPlacementChanged, r.OpsRetyped, r.OpsRemoved, r.OpsAdded)
	fmt.Fprintf(b, "  I/O: %d port(s) changed; states: %d pair(s) changed\n", len(r.Ports), len(r.States))
	for _, g := range r.GraphsRemoved {
		fmt.Fprintf(b, "  graph @%s removed\n", g)
	}
	for _, g := range r.GraphsAdded {
		fmt.Fprintf(b, "  graph @%s added\n", g)
	}
	if empty {
		fmt.Fprintf(b, "No change: the same predicted placement, element types, ops, I/O and states.\n")
		return b.Flush()
	}
	fmt.Fprintf(b, "\nRegions per function (A → B; seg: legal segments):\n")
	for _, g := range r.Regions {
		side := func(in bool, n *int32, seg int32) string {
			if !in {
				return "absent"
			}
			return fmt.Sprintf("%s (seg %d)", regionsText(n), seg)
		}
		fmt.Fprintf(b, "  @%s  %s → %s\n", g.Graph, side(g.InA, g.RegionsA, g.SegmentsA), side(g.InB, g.RegionsB, g.SegmentsB))
	}
	writeOpGroups(b, "Ops moved to another device", false, r.Ops, func(c *pb.OpChange) string {
		if !c.PlacementChanged {
			return ""
		}
		return c.A.Device + " → " + c.B.Device
	})
	writeOpGroups(b, "Ops retyped", true, r.Ops, func(c *pb.OpChange) string {
		if !c.Retyped {
			return ""
		}
		return typesText(c.A.ElementTypes) + " → " + typesText(c.B.ElementTypes)
	})
	writeOpGroups(b, "Ops removed", true, r.Ops, func(c *pb.OpChange) string {
		if c.B != nil {
			return ""
		}
		return "was " + c.A.Device
	})
	writeOpGroups(b, "Ops added", true, r.Ops, func(c *pb.OpChange) string {
		if c.A != nil {
			return ""
		}
		return "on " + c.B.Device
	})
	if len(r.Ports) > 0 {
		fmt.Fprintf(b, "\nI/O changed:\n")
		for _, p := range r.Ports {
			name, types := p.NameA, p.TypeA+" → "+p.TypeB
			switch {
			case p.IndexA < 0:
				name, types = p.NameB, p.TypeB
			case p.IndexB < 0:
				types = p.TypeA
			case p.NameA != p.NameB:
				name = p.NameA + " → " + p.NameB
			}
			if p.TypeA == p.TypeB {
				types = p.TypeA
			}
			fmt.Fprintf(b, "  @%s %s %s: %s  %s\n", p.Graph, p.Direction, name, strings.Join(p.Kinds, ", "), types)
			b.lineEnd()
		}
	}
	if len(r.States) > 0 {
		fmt.Fprintf(b, "\nStates changed:\n")
		for _, s := range r.States {
			fmt.Fprintf(b, "  @%s %s: %s (%s → %s; new value in %s → %s)\n", s.Graph, s.Name, s.Kind, orNone(s.FormA), orNone(s.FormB), orNone(s.OutA), orNone(s.OutB))
			b.lineEnd()
		}
	}
	return b.Flush()
}

func regionsText(n *int32) string {
	if n == nil {
		return "unknown"
	}
	return fmt.Sprint(*n)
}

func typesText(ts []string) string {
	if len(ts) == 0 {
		return "-"
	}
	return strings.Join(ts, ",")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// writeOpGroups prints the ops change selects (a non-empty label), grouped
// by label, op name and (bySource) source line in first-seen order, each
// with its count, graphs and first op ids. Moves group without the source:
// a function that stops being blocked moves every op it has.
func writeOpGroups(b *textChunks, heading string, bySource bool, ops []*pb.OpChange, change func(*pb.OpChange) string) {
	type group struct {
		label, opName, source string
		graphs, ids           []string
		n                     int
	}
	var gs []*group
	at := map[string]*group{}
	for _, c := range ops {
		l := change(c)
		if l == "" {
			continue
		}
		p := c.A
		if p == nil {
			p = c.B
		}
		src := ""
		if bySource {
			src = p.Source
		}
		k := l + "\x00" + p.OpName + "\x00" + src
		g := at[k]
		if g == nil {
			g = &group{label: l, opName: p.OpName, source: src}
			at[k] = g
			gs = append(gs, g)
		}
		g.n++
		if !slices.Contains(g.graphs, c.Graph) {
			g.graphs = append(g.graphs, c.Graph)
		}
		if len(g.ids) < 3 {
			g.ids = append(g.ids, p.OpId)
		}
	}
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s (%d group(s); --json lists every op):\n", heading, len(gs))
	for _, g := range gs {
		src := ""
		switch {
		case g.source != "":
			src = graph.ShortFile(sourceFile(g.source)) + sourceLine(g.source) + "  "
		case bySource:
			src = "-  "
		}
		more := ""
		if g.n > len(g.ids) {
			more = ", …"
		}
		fmt.Fprintf(b, "  x%-4d %-22s %-40s %s@%s  %s%s\n", g.n, g.label, g.opName, src, strings.Join(g.graphs, " @"), strings.Join(g.ids, ", "), more)
		b.lineEnd()
	}
}
