package ane

// Per-op placement (check --ops): every op's predicted device under the
// report's architecture, from the same plans the region counts come from
// (calib.go planRegions, check.go segmentOff), so the per-op picture and
// the counts cannot disagree.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// The devices an op is placed on (OpPlacement.Device).
const (
	// DeviceANE: in ANE region OpPlacement.Region of its function.
	DeviceANE = "ane"
	// DeviceGPU: off the Neural Engine (its function is blocked under
	// all-or-nothing, or the op is on a GPU island under partitioning).
	DeviceGPU = "gpu"
	// DeviceNone: occupies no device (constants, the terminator, the ops of
	// a graph nothing compiles).
	DeviceNone = "none"
	// DeviceUnknown: the architecture's behaviour for the function is not
	// on record (Report.Architecture, graphResult.RegionModel say why).
	DeviceUnknown = "unknown"
)

// OpPlacement is one op's predicted placement.
type OpPlacement struct {
	// OpID is unique within the report: the op's FX name (graph.OpID); ops
	// sharing an FX name get "NAME#2", "NAME#3", … after the first that is
	// not a constant (report order, constants last); an op without one
	// "GRAPH#INDEX".
	OpID   string
	Device string
	Graph  string
	// Index is the op's pre-order position in its graph (Finding.Index).
	Index  int
	OpName string
	Source string
	// Region is the 1-based ANE region within the function (0: none);
	// Segment the 1-based legal segment a partitioning compiler could
	// place it in (0: none). A composite's ops have neither: they are
	// placed with the ops that invoke them.
	Region, Segment int
	// Reason is "legal", "exempt" (an index computation), "constant",
	// "terminator", the ids of the rules that block the op (comma
	// separated), or why a legal op is off the Neural Engine.
	Reason string
	// Blocked: the op itself breaks a blocker rule (Reason lists them).
	Blocked bool
	// ElementTypes are the distinct element types of the op's operands and
	// results, sorted.
	ElementTypes []string
	// Inputs are the indices of the ops of the same graph whose results
	// the op reads, sorted, without repeats.
	Inputs []int
	// Layer groups ops for a view: "file:line" of the outermost frame of
	// the op's location (the top-level statement that led to it), "" when
	// it has none. The layers one loop builds share it: no location in the
	// exports on record carries a layer index.
	Layer string
	// Frames are the file frames of the op's location, "file:line",
	// outermost first (the call chain a view can group by, level by level).
	Frames []string
	// FXName is the op's FX name as its location carries it (graph.OpID),
	// "" when none: what a compiled package's regions name it by.
	FXName string
}

// graphPlacement is what placing one graph's ops needs.
type graphPlacement struct {
	f         *anefacts.Graph
	gr        *graphResult
	plan      regionPlan
	segOff    func(*graph.Operation) bool
	blockedBy string // why the function is off (all-or-nothing, whole-function rule)
	calleeOff func(string) bool
}

// place returns the placement of every op of an entry graph, in
// pre-order (OpID and the composites' devices are filled by the caller).
func (gp *graphPlacement) place(types map[graph.Type]string) []OpPlacement {
	f, gr := gp.f, gp.gr
	out := make([]OpPlacement, len(f.Ops))
	region := make([]int, len(f.Ops))
	segment := make([]int, len(f.Ops))
	spread := func(into []int) func(op *graph.Operation, run int) {
		return func(op *graph.Operation, run int) {
			op.Walk(func(o *graph.Operation) bool {
				if i, ok := f.Index[o]; ok {
					into[i] = run
				}
				return true
			})
		}
	}
	if f.HasBody() {
		if gp.plan.known && !gp.plan.whole {
			label(f.G, gp.plan.off, spread(region))
		}
		if gp.segOff != nil {
			label(f.G, gp.segOff, spread(segment))
		}
	}
	for i, op := range f.Ops {
		p := opBasics(f, i, types)
		p.Region, p.Segment = region[i], segment[i]
		p.Device, p.Reason = gp.device(op, i, p.Region)
		p.Blocked = gr.Verdicts[i].Verdict == Illegal
		out[i] = p
	}
	return out
}

// device is an entry graph's op's device and the reason for it.
func (gp *graphPlacement) device(op *graph.Operation, i, region int) (string, string) {
	own := ownReason(gp.f, gp.gr, op, i)
	switch {
	case own == "constant" || own == "terminator":
		return DeviceNone, own
	case !gp.plan.known:
		return DeviceUnknown, own
	case region > 0:
		return DeviceANE, own
	case own != "legal" && own != "exempt":
		return DeviceGPU, own
	case gp.plan.whole:
		return DeviceGPU, gp.blockedBy
	case gp.plan.off(op):
		return DeviceGPU, offReason(op, gp.calleeOff)
	}
	return DeviceGPU, "inside an op that holds a GPU op"
}

// offReason says why a legal op splits the partitioning plan.
func offReason(op *graph.Operation, calleeOff func(string) bool) string {
	if c, ok := graph.Callee(op); ok && calleeOff(c) {
		return "calls @" + c + ", which holds GPU ops"
	}
	return "non-ANE element type (a GPU island under partitioning)"
}

// ownReason is what the op itself is: its blockers, or legal.
func ownReason(f *anefacts.Graph, gr *graphResult, op *graph.Operation, i int) string {
	switch {
	case op == f.Term:
		return "terminator"
	case op.Name == "coreai.constant":
		return "constant"
	case i < len(gr.Verdicts) && gr.Verdicts[i].Verdict == Illegal:
		return strings.Join(gr.Verdicts[i].Rules, ",")
	case i < len(gr.Verdicts) && gr.Verdicts[i].Verdict == Exempt:
		return "exempt"
	}
	return "legal"
}

// opBasics fills what does not depend on the architecture.
func opBasics(f *anefacts.Graph, i int, types map[graph.Type]string) OpPlacement {
	op := f.Ops[i]
	p := OpPlacement{Graph: f.G.Name(), Index: i, OpName: op.Name, Source: op.Source()}
	var elems []string
	add := func(t graph.Type) {
		s, ok := types[t]
		if !ok {
			s = "<none>"
			if t != nil {
				s = graph.ElementType(t).String()
			}
			types[t] = s
		}
		if !slices.Contains(elems, s) {
			elems = append(elems, s)
		}
	}
	for _, v := range op.Operands() {
		add(v.Type())
		if d := v.DefiningOp(); d != nil {
			if j, ok := f.Index[d]; ok && !slices.Contains(p.Inputs, j) {
				p.Inputs = append(p.Inputs, j)
			}
		}
	}
	for _, r := range op.Results() {
		add(r.Type())
	}
	slices.Sort(elems)
	slices.Sort(p.Inputs)
	p.ElementTypes = elems
	fl := graph.FileLocs(op.Loc)
	for i := len(fl) - 1; i >= 0; i-- {
		p.Frames = append(p.Frames, fl[i].File+":"+strconv.Itoa(fl[i].Line))
	}
	if len(p.Frames) > 0 {
		p.Layer = p.Frames[0]
	}
	return p
}

// firstBlocker names the first op of graph name, or of a graph it calls,
// with a blocker: "RULE at OPID" ("" when none).
func (cg *callGraph) firstBlocker(name string, seen map[string]bool) string {
	i, ok := cg.byName[name]
	if !ok || seen[name] {
		return ""
	}
	seen[name] = true
	for _, v := range cg.rep.Graphs[i].Verdicts {
		if v.Verdict == Illegal {
			return v.Rules[0] + " at " + opLabel(cg.facts[i].G.Name(), v.Op, v.Index)
		}
	}
	for _, c := range cg.callees[name] {
		if b := cg.firstBlocker(c, seen); b != "" {
			return b + " (in @" + c + ")"
		}
	}
	return ""
}

// opLabel is the op's FX name, or GRAPH#INDEX.
func opLabel(g string, op *graph.Operation, i int) string {
	if id := op.OpID(); id != "" {
		return id
	}
	return g + "#" + strconv.Itoa(i)
}

// placement fills rep.Ops: the entry graphs' ops from their plans, then
// each composite's ops with the device of the ops that invoke it (when
// they agree; "unknown" otherwise), then the op ids made unique.
func (cg *callGraph) placement(arch Architecture, offOf func(i int) func(*graph.Operation) bool) []OpPlacement {
	types := map[graph.Type]string{}
	byGraph := make([][]OpPlacement, len(cg.facts))
	for i, f := range cg.facts {
		gr := &cg.rep.Graphs[i]
		if !gr.Entry {
			continue
		}
		gp := &graphPlacement{f: f, gr: gr, calleeOff: cg.offANE,
			plan: planRegions(arch, gr, offOf(i), cg.findRule, cg.offANE)}
		if f.HasBody() {
			gp.segOff = segmentOff(f.G, gr, cg.blocked)
		}
		if gp.plan.whole {
			if gp.plan.wholeRule != nil {
				gp.blockedBy = "whole function: " + gp.plan.wholeRule.ID
			} else {
				gp.blockedBy = "function blocked: " + cg.firstBlocker(f.G.Name(), map[string]bool{})
			}
		}
		byGraph[i] = gp.place(types)
	}
	cg.placeComposites(byGraph, types)
	var out []OpPlacement
	for _, ps := range byGraph {
		out = append(out, ps...)
	}
	cg.uniqueIDs(out)
	return out
}

// placeComposites fills the non-entry graphs: a called graph's ops take
// the device its call sites have when they all agree.
func (cg *callGraph) placeComposites(byGraph [][]OpPlacement, types map[graph.Type]string) {
	type site struct {
		Graph string
		Index int
	}
	callSites := map[string][]site{}
	for _, f := range cg.facts {
		for j, op := range f.Ops {
			if c, ok := graph.Callee(op); ok {
				callSites[c] = append(callSites[c], site{f.G.Name(), j})
			}
		}
	}
	// Once per graph (a chain of composites is followed once, not once per
	// link); a graph met again while its callers are followed is a cycle.
	memo := map[string]string{}
	var deviceOf func(name string) string
	deviceOf = func(name string) string {
		if d, ok := memo[name]; ok {
			return d
		}
		memo[name] = DeviceUnknown
		dev := ""
		for _, s := range callSites[name] {
			i := cg.byName[s.Graph]
			d := DeviceUnknown
			if byGraph[i] != nil {
				d = byGraph[i][s.Index].Device
			} else if !cg.rep.Graphs[i].Entry {
				d = deviceOf(s.Graph)
			}
			if dev == "" {
				dev = d
			} else if dev != d {
				dev = DeviceUnknown
				break
			}
		}
		memo[name] = dev
		return dev
	}
	for i, f := range cg.facts {
		if cg.rep.Graphs[i].Entry {
			continue
		}
		dev := deviceOf(f.G.Name())
		reason := "placed with the ops that invoke it"
		if dev == "" {
			dev, reason = DeviceNone, "not compiled (neither an entry graph nor called)"
		}
		ps := make([]OpPlacement, len(f.Ops))
		for j, op := range f.Ops {
			p := opBasics(f, j, types)
			own := ownReason(f, &cg.rep.Graphs[i], op, j)
			p.Device, p.Reason = dev, own
			p.Blocked = cg.rep.Graphs[i].Verdicts[j].Verdict == Illegal
			switch {
			case own == "constant" || own == "terminator":
				p.Device = DeviceNone
			case own == "legal" || own == "exempt":
				p.Reason = own + "; " + reason
			}
			ps[j] = p
		}
		byGraph[i] = ps
	}
}

// uniqueIDs sets each placement's OpID (OpPlacement.OpID).
func (cg *callGraph) uniqueIDs(ps []OpPlacement) {
	raw := make([]string, len(ps))
	taken := map[string]bool{}
	for i := range ps {
		raw[i] = cg.facts[cg.byName[ps[i].Graph]].Ops[ps[i].Index].OpID()
		ps[i].FXName = raw[i]
		if raw[i] != "" {
			taken[raw[i]] = true
		}
	}
	used := map[string]bool{}
	next := map[string]int{}
	// Non-constants first: coreai-torch gives a constant the FX name of
	// the op it feeds (slice_7's index constant), and the name belongs to
	// the op.
	order := make([]int, 0, len(ps))
	for _, constants := range []bool{false, true} {
		for i := range ps {
			if (ps[i].OpName == "coreai.constant") == constants {
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		id := raw[i]
		if id == "" {
			id = ps[i].Graph + "#" + strconv.Itoa(ps[i].Index)
		}
		if used[id] || (raw[i] == "" && taken[id]) {
			base := id
			for k := max(next[base], 2); ; k++ {
				c := base + "#" + strconv.Itoa(k)
				if !used[c] && !taken[c] {
					id, next[base] = c, k+1
					break
				}
			}
		}
		used[id] = true
		ps[i].OpID = id
	}
}
