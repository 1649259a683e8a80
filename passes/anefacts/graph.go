// Package anefacts holds the analyses of the Neural Engine rule model that
// the rewrite passes need too: the per-graph facts the rules read (ops in
// order, ports, values that are only settings or compressed storage, state
// pairs, the round trips a composite's call sites make), the element-type
// islands (Islands, ElementTypeBlockers: what strip-fp32-casts'
// islands=blockers retypes) and the fp16 constant scan (Scan,
// RangeHazardConstants: what finite-masks rewrites). Package passes and
// package passes/ane both import it, so a program that links passes alone
// has them (no wiring at run time); it imports only graph and its helpers.
package anefacts

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
)

// Graph is what the rules know about one graph before any rule runs.
type Graph struct {
	G     *graph.Graph
	Entry bool // public and compiled as a function (graph.EntryGraphs)
	Ops   []*graph.Operation
	Index map[*graph.Operation]int // pre-order position in Ops
	// ParamOnly are values the element-type and rank rules skip (settings
	// and the integer arithmetic that only builds them, casts included);
	// IndexOnly the same without the casts (markParams).
	ParamOnly map[*graph.Value]bool
	IndexOnly map[*graph.Value]bool
	// Storage are compressed weights in their storage type (markStorage).
	Storage  map[*graph.Value]bool
	IsInput  map[*graph.Value]int   // block arg → input index
	IsOutput map[*graph.Value][]int // terminator operand → output indices
	Inputs   []graph.Port
	Outputs  []graph.Port
	States   *graph.StateAnalysis // which output carries each state's new value
	// RoundTrips, for a composite, maps each result to the arguments some
	// call site feeds from the state that result is written back into
	// (calleeRoundTrips).
	RoundTrips map[int][]int
	Term       *graph.Operation
}

// errEmpty is the error for a module without a body.
var errEmpty = fmt.Errorf("ane check: empty module")

// Module returns the facts of every graph of m, in m.Graphs() order, with
// states paired under so; an empty module is errEmpty.
func Module(m *graph.Module, so graph.StateOptions) ([]*Graph, error) {
	// One scope for all graphs: callees are summarized once.
	return moduleWith(m, graph.NewStateScope(so).States)
}

// moduleWith is Module with each graph's states from states (a pipeline
// passes the state analysis it has already: passes/analyses.go).
func moduleWith(m *graph.Module, states func(*graph.Graph) *graph.StateAnalysis) ([]*Graph, error) {
	if m == nil || len(m.Op.Regions) == 0 || len(m.Op.Regions[0].Blocks) == 0 {
		return nil, errEmpty
	}
	entries := map[*graph.Operation]bool{}
	for _, g := range graph.EntryGraphs(m, graph.EntryPublic) {
		entries[g.Op] = true
	}
	graphs := m.Graphs()
	out := make([]*Graph, len(graphs))
	for i, g := range graphs {
		out[i] = newGraph(g, states, entries[g.Op])
	}
	rt := calleeRoundTrips(out)
	for _, f := range out {
		f.RoundTrips = rt[f.G.Name()]
	}
	return out, nil
}

func newGraph(g *graph.Graph, states func(*graph.Graph) *graph.StateAnalysis, entry bool) *Graph {
	f := &Graph{G: g, Entry: entry, Index: map[*graph.Operation]int{}, ParamOnly: map[*graph.Value]bool{}, IndexOnly: map[*graph.Value]bool{},
		Storage: map[*graph.Value]bool{}, IsInput: map[*graph.Value]int{}, IsOutput: map[*graph.Value][]int{}}
	if g.Body() == nil {
		return f
	}
	g.Op.Walk(func(o *graph.Operation) bool {
		if o == g.Op {
			return true
		}
		f.Index[o] = len(f.Ops)
		f.Ops = append(f.Ops, o)
		return true
	})
	f.Inputs = g.Inputs()
	f.Outputs = g.Outputs()
	f.States = states(g)
	for i, a := range g.Body().Args() {
		f.IsInput[a] = i
	}
	f.Term = g.Terminator()
	if f.Term != nil {
		for i, v := range f.Term.Operands() {
			f.IsOutput[v] = append(f.IsOutput[v], i)
		}
	}
	f.markParams(f.IndexOnly, false)
	f.markParams(f.ParamOnly, true)
	f.markStorage()
	return f
}

// HasBody reports whether the graph has a body the rules can walk.
func (f *Graph) HasBody() bool { return f.G.Body() != nil }

// IsParamSlot reports whether operand i of op carries a setting rather than
// tensor data: axes, shapes, permutations, begin/end/stride, indices,
// conditions, scalar settings (coreaiop.Role.Setting; the roles and their
// sources are in graph/coreaiop). The element-type and rank rules skip such
// operands.
func IsParamSlot(op *graph.Operation, i int) bool {
	return coreaiop.OperandRole(op, i).Setting()
}

// IsStorageSlot reports whether operand i of op holds compressed weights in
// their storage type (palette indices such as ui4, quantized si8/si4 data,
// their scales and offsets: coreaiop.Storage): the op turns them into a
// compute type, so the element-type rule looks at its result, not at them.
// Linear INT4 is its own rule (passes/ane rule_linear_int4.go). Guess,
// unconfirmed: that the compiler checks these operands' types only through
// that rule (palettized and si8 programs compile; passes/ane's
// rule_linear_int4.go and calib.go cite the reports).
func IsStorageSlot(op *graph.Operation, i int) bool {
	return coreaiop.OperandRole(op, i) == coreaiop.Storage
}

// BaseOpName is the op's name without the decomposable prefix.
func BaseOpName(name string) string { return coreaiop.Base(name) }

func isIntegerType(t graph.Type) bool {
	_, ok := graph.ElementType(t).(*graph.IntegerType)
	return ok
}

// markParams marks values the element-type and rank rules skip: values
// whose every use is a parameter operand, and integer values that only
// feed casts (the int→float conversion of an input such as position_ids;
// castsToo) or ops whose results are all skipped (index arithmetic such as
// the concat that builds slice_update's begin from in_step). Calibrated on
// the seed: arm D kept the si32 in_step input and the compiler reported no
// element-type warning; no integer input was ever cited. Walks ops
// backwards so users are decided before definitions.
func (f *Graph) markParams(into map[*graph.Value]bool, castsToo bool) {
	decide := func(v *graph.Value) {
		uses := v.Uses()
		if len(uses) == 0 {
			return
		}
		for _, u := range uses {
			if IsParamSlot(u.Op, u.Index) {
				continue
			}
			if !isIntegerType(v.Type()) || u.Op == f.Term || u.Op.NumResults() == 0 || isStructural(u.Op) {
				return
			}
			if castsToo && u.Op.Name == "coreai.cast" {
				continue
			}
			for _, r := range u.Op.Results() {
				if !into[r] {
					return
				}
			}
		}
		into[v] = true
	}
	for i := len(f.Ops) - 1; i >= 0; i-- {
		for _, r := range f.Ops[i].Results() {
			decide(r)
		}
	}
	for _, a := range f.G.Body().Args() {
		decide(a)
	}
}

// markStorage marks the values that only reach storage slots, directly or
// through data-movement ops (coreai-torch reshapes a scalar scale to the
// input's rank before blockwise_shift_scale).
func (f *Graph) markStorage() {
	for i := len(f.Ops) - 1; i >= 0; i-- {
		for _, r := range f.Ops[i].Results() {
			uses := r.Uses()
			ok := len(uses) > 0
			for _, u := range uses {
				if IsStorageSlot(u.Op, u.Index) {
					continue
				}
				if !MoveOps[BaseOpName(u.Op.Name)] || u.Index != 0 || u.Op.NumResults() == 0 {
					ok = false
					break
				}
				for _, x := range u.Op.Results() {
					ok = ok && f.Storage[x]
				}
			}
			if ok {
				f.Storage[r] = true
			}
		}
	}
}

func isStructural(op *graph.Operation) bool {
	switch op.Name {
	case "coreai.invoke", "func.call", "coreai.output", "func.return":
		return true
	}
	return false
}

// IsIndexOp reports whether op only computes parameter values.
func (f *Graph) IsIndexOp(op *graph.Operation) bool {
	if op.NumResults() == 0 || op == f.Term {
		return false
	}
	for _, r := range op.Results() {
		if !f.ParamOnly[r] {
			return false
		}
	}
	return true
}

// AneElem reports whether an element type is one the compiler lists.
func AneElem(t graph.Type) bool {
	switch e := t.(type) {
	case *graph.FloatType:
		return e.Name == "f16" || e.Name == "f8E4M3" || e.Name == "f8E4M3FN"
	case *graph.IntegerType:
		if e.Signedness == graph.Signless {
			return false
		}
		return e.Width == 8 || e.Width == 16
	}
	return false
}

// DataTensor returns the tensor type carried by a value of type t (through
// a state handle), or nil for tokens and non-tensor values.
func DataTensor(t graph.Type) *graph.TensorType {
	if o, ok := t.(*graph.OpaqueType); ok {
		return graph.HandleInner(o)
	}
	tt, _ := graph.AsTensor(t)
	return tt
}

// DataTensorOrType is DataTensor(t), or t when that is nil.
func DataTensorOrType(t graph.Type) graph.Type {
	if d := DataTensor(t); d != nil {
		return d
	}
	return t
}

// BadElem reports whether v is a data value with a non-ANE element type.
func (f *Graph) BadElem(v *graph.Value) bool {
	if f.ParamOnly[v] || f.Storage[v] {
		return false
	}
	t := DataTensor(v.Type())
	if t == nil {
		// Scalars (f32, i32) as values are data too.
		switch v.Type().(type) {
		case *graph.FloatType, *graph.IntegerType:
			return !AneElem(v.Type())
		}
		return false
	}
	return !AneElem(t.Elem)
}

// MoveOps only move, cut or retype data (operand 0 is the data): the op
// table's Moves rows (graph/coreaiop).
var MoveOps = coreaiop.MoveOps()

// SourceInput follows v backwards through data-movement ops (operand 0) and
// returns the input index it comes from, or -1.
func (f *Graph) SourceInput(v *graph.Value) int {
	for hops := 0; v != nil && hops < 256; hops++ {
		if i, ok := f.IsInput[v]; ok {
			return i
		}
		d := v.DefiningOp()
		if d == nil || d.NumOperands() == 0 || !MoveOps[BaseOpName(d.Name)] {
			return -1
		}
		v = d.Operand(0)
	}
	return -1
}

// WrittenInputs follows v forwards through data-movement ops and records
// the inputs whose buffer it is stored into: a slice_update whose
// destination comes from that input, a state output (mapped to its input),
// or a write_handle on an input handle.
//
// In a composite the arguments stand for the inputs: result j is stored
// into argument i when a call site feeds i from a state and writes j back
// into it (RoundTrips), since the compiler inlines the composite into the
// function it compiles.
func (f *Graph) WrittenInputs(v *graph.Value, into map[int]bool) {
	if !f.Entry && len(f.RoundTrips) == 0 {
		return
	}
	WalkForward(v, func(u graph.Use) (follow, stop bool) {
		base := BaseOpName(u.Op.Name)
		switch {
		case u.Op == f.Term && !f.Entry:
			for _, i := range f.RoundTrips[u.Index] {
				into[i] = true
			}
		case u.Op == f.Term:
			if p, ok := f.States.ForOutput(u.Index); ok {
				into[p.In] = true
			}
		case base == "coreai.write_handle" && u.Index == 1:
			if in := f.SourceInput(u.Op.Operand(0)); in >= 0 {
				into[in] = true
			}
		case base == "coreai.slice_update" && u.Index == 1:
			if in := f.SourceInput(u.Op.Operand(0)); in >= 0 {
				into[in] = true
			}
			return true, false
		case (MoveOps[base] || base == "coreai.concat") && !IsParamSlot(u.Op, u.Index) && base != "coreai.slice":
			return true, false
		}
		return false, false
	})
}

// calleeRoundTrips finds, for each composite an entry graph calls, the
// (result, argument) pairs that are a round trip through one of the
// caller's states: the call's argument comes from the state input
// (through data-movement ops) and its result is stored back into that
// state. Guess, marked: one level of calls, the form coreai-torch's
// composites take (a composite calling another is not followed).
func calleeRoundTrips(fs []*Graph) map[string]map[int][]int {
	out := map[string]map[int][]int{}
	for _, c := range fs {
		if !c.Entry || c.Term == nil {
			continue
		}
		for _, op := range c.Ops {
			callee, ok := graph.Callee(op)
			if !ok {
				continue
			}
			for j, r := range op.Results() {
				writes := map[int]bool{}
				c.WrittenInputs(r, writes)
				for i, a := range op.Operands() {
					if in := c.SourceInput(a); in >= 0 && writes[in] {
						if out[callee] == nil {
							out[callee] = map[int][]int{}
						}
						if !slices.Contains(out[callee][j], i) {
							out[callee][j] = append(out[callee][j], i)
						}
					}
				}
			}
		}
	}
	return out
}

// WalkForward calls visit for every use of v and of each op result visit
// asks to follow, visiting each value once and at most 4096 values, and
// stops when visit says so.
func WalkForward(v *graph.Value, visit func(u graph.Use) (follow, stop bool)) {
	seen := map[*graph.Value]bool{}
	work := []*graph.Value{v}
	for len(work) > 0 && len(seen) < 4096 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		for _, u := range x.Uses() {
			follow, stop := visit(u)
			if stop {
				return
			}
			if follow {
				work = append(work, u.Op.Results()...)
			}
		}
	}
}

// PortName is port i's Label, a name quoted.
func PortName(ps []graph.Port, i int) string {
	if i < len(ps) && ps[i].Name != "" {
		return strconv.Quote(ps[i].Name)
	}
	return graph.Port{Index: i}.Label()
}
