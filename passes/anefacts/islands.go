package anefacts

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
)

// Island is one connected set of values of a non-ANE element type in one
// graph and the ops that touch them: the unit the element-type rule and the
// fp32-chain suspect report (passes/ane rule_element_type.go, suspect_fp32_chain.go).
type Island struct {
	// Why says why the compiler is modelled to cite the island ("holds graph
	// input …", "is a round trip through input …"); "" for an inline chain
	// the compiler never cited (a suspect).
	Why string
	// Roots are the ops a finding is placed on: the casts into fp32 and the
	// ops reading an fp32 input, or the constants when nothing else opens it.
	Roots []*graph.Operation
	// All are the island's ops, in op order.
	All []*graph.Operation
	// Vals are its non-ANE values, each once, for the fixing pass's preview.
	Vals   []*graph.Value
	Detail string // "opens a f32 chain of N ops"
}

// Islands groups the graph's non-ANE values into islands (an op joins its
// non-ANE operands and results: graph.FloatIslands, whose doc says where
// these islands differ from strip-fp32-casts' and inspect's), in the order
// their first op appears.
//
// The seed's compiler cited the casts that open the gated-delta
// recurrence's fp32 island (six per layer: q, k, v, β, g and the state;
// arm C: 5 layers, 30 warnings) and never the builder's fp32 norms or
// RoPE, which are fp32 islands too; with the recurrence gone (arm D) the
// warnings vanished. What sets the recurrence apart is that it is a round
// trip through the graph's interface: it reads a buffer the graph is given
// (the recurrent state, plain input or state) and writes its fp32 result
// back into the same buffer. So an island has a Why when it holds a graph
// input or output itself, or when a buffer it reads (through data-movement
// ops) is a buffer it writes.
func (f *Graph) Islands() []*Island {
	if !f.HasBody() {
		return nil
	}
	// Parameter and storage slots are not data (graph.IslandOptions says
	// how these islands differ from strip-fp32-casts').
	notData := func(op *graph.Operation, i int) bool { return IsParamSlot(op, i) || IsStorageSlot(op, i) }
	fi := graph.FloatIslands([]*graph.Graph{f.G}, graph.IslandOptions{Member: f.BadElem, SkipOperand: notData, CastsJoin: true, Ties: coreaiop.Ties})
	// Each op joins its island as it is met (islands come out in the order
	// of their first op); its non-ANE values go through one reused list: a
	// map from op to its list cost about 140 bytes an op at once on issue
	// 28's 500k-op chain, where every op is in an island.
	b := &islandBuilder{f: f, byRoot: map[*graph.Value]*building{}, early: map[*graph.Value]bool{}}
	// Two walks: the first counts each island's ops and the values it may
	// meet first, so that All and Vals are made once at their size (grown
	// by append they cost about 37 bytes an op each on that chain, not 8).
	var bad []*graph.Value
	badOf := func(op *graph.Operation) []*graph.Value {
		bad = bad[:0]
		if op == f.Term {
			return bad
		}
		for i, v := range op.Operands() {
			if !notData(op, i) && f.BadElem(v) {
				bad = append(bad, v)
			}
		}
		for _, r := range op.Results() {
			if f.BadElem(r) {
				bad = append(bad, r)
			}
		}
		return bad
	}
	for _, op := range f.Ops {
		if bad := badOf(op); len(bad) > 0 {
			is := b.get(fi.Root(bad[0]))
			is.nOps++
			for _, v := range bad {
				if !b.definedBefore(op, v) {
					is.nVals++
				}
			}
		}
	}
	for _, op := range f.Ops {
		if bad := badOf(op); len(bad) > 0 {
			b.add(b.get(fi.Root(bad[0])), op, bad)
		}
	}
	if len(b.order) == 0 {
		return nil
	}
	var out []*Island
	for _, r := range b.order {
		out = append(out, b.byRoot[r].finish(f))
	}
	return out
}

type islandBuilder struct {
	f      *Graph
	byRoot map[*graph.Value]*building
	order  []*graph.Value
	// early holds the values met before their defining op in f.Ops (block
	// arguments, values from outside the graph): any other value is met
	// first as a result of its defining op, so no set of every value met
	// is needed (a set of the 500k values of issue 28's chain cost about
	// 40 bytes an op). An op's non-ANE values all join one island
	// (graph.FloatIslands unions them), so met once is met in that island.
	early map[*graph.Value]bool
}

type building struct {
	Island
	ops    int
	nOps   int                // the island's ops, counted before they are added
	nVals  int                // at least its values: All and Vals are made this size
	roots  []*graph.Operation // casts in, ops reading an fp32 input
	consts []*graph.Operation
	types  map[string]bool
	reads  map[int]bool // inputs whose data enters the island
	writes map[int]bool // inputs whose buffer the island's results are written into
}

func (b *islandBuilder) get(r *graph.Value) *building {
	is := b.byRoot[r]
	if is == nil {
		is = &building{types: map[string]bool{}, reads: map[int]bool{}, writes: map[int]bool{}}
		b.byRoot[r] = is
		b.order = append(b.order, r)
	}
	return is
}

// add records op, whose non-ANE values are bad, in island is.
func (b *islandBuilder) add(is *building, op *graph.Operation, bad []*graph.Value) {
	f := b.f
	if is.All == nil {
		is.All = make([]*graph.Operation, 0, is.nOps)
		is.Vals = make([]*graph.Value, 0, is.nVals)
	}
	is.ops++
	is.All = append(is.All, op)
	opens, readsInput := true, false
	for i, v := range op.Operands() {
		if IsParamSlot(op, i) || !f.BadElem(v) {
			continue
		}
		opens = false
		if _, ok := f.IsInput[v]; ok {
			readsInput = true
		}
	}
	for i, v := range op.Operands() {
		if !IsParamSlot(op, i) && !f.BadElem(v) {
			if in := f.SourceInput(v); in >= 0 {
				is.reads[in] = true
			}
		}
	}
	for _, v := range bad {
		if b.met(op, v) {
			// What follows depends on v alone: once per value (a value
			// read by every layer is met once per reader).
			continue
		}
		is.Vals = append(is.Vals, v)
		is.types[graph.ElementType(DataTensorOrType(v.Type())).String()] = true
		if why := f.portWhy(v); why != "" && is.Why == "" {
			is.Why = why
		}
		for _, u := range v.Uses() {
			if u.Op.Name == "coreai.cast" && u.Op.NumResults() == 1 && !f.BadElem(u.Op.Result(0)) {
				f.WrittenInputs(u.Op.Result(0), is.writes)
			}
		}
	}
	switch {
	case op.Name == "coreai.constant":
		is.consts = append(is.consts, op)
	case opens || readsInput:
		is.roots = append(is.roots, op)
	}
}

// met reports whether v, a non-ANE value of op, was met at an earlier op
// (or earlier in op's list) and notes it as met.
func (b *islandBuilder) met(op *graph.Operation, v *graph.Value) bool {
	if b.definedBefore(op, v) {
		return true // met as a result of its defining op, an earlier op
	}
	if v.DefiningOp() == op && !slices.Contains(op.Operands(), v) {
		// A result: new unless it was met before op (then it is in early).
		return b.early[v]
	}
	if b.early[v] {
		return true
	}
	b.early[v] = true
	return false
}

// definedBefore reports whether v is a result of an op of the graph before op.
func (b *islandBuilder) definedBefore(op *graph.Operation, v *graph.Value) bool {
	d := v.DefiningOp()
	if d == nil || d == op {
		return false
	}
	i, ok := b.f.Index[d]
	return ok && i < b.f.Index[op]
}

func (is *building) finish(f *Graph) *Island {
	is.Roots = is.roots
	if len(is.Roots) == 0 {
		is.Roots = is.consts
	}
	if is.Why == "" {
		for _, in := range slices.Sorted(maps.Keys(is.reads)) {
			if is.writes[in] {
				is.Why = "is a round trip through input " + PortName(f.Inputs, in) + " (read, updated in fp32, written back)"
				break
			}
		}
	}
	is.Detail = fmt.Sprintf("opens a %s chain of %d ops", joinKeys(is.types), is.ops)
	// The Island returned keeps its building alive: drop what only the
	// building needed.
	is.types, is.reads, is.writes = nil, nil, nil
	return &is.Island
}

// portWhy describes v when it is itself an entry graph's input or output.
func (f *Graph) portWhy(v *graph.Value) string {
	if !f.Entry {
		return ""
	}
	if i, ok := f.IsInput[v]; ok {
		return "holds graph input " + PortName(f.Inputs, i)
	}
	if outs, ok := f.IsOutput[v]; ok {
		return "holds graph output " + PortName(f.Outputs, outs[0])
	}
	return ""
}

func joinKeys(m map[string]bool) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// ElementTypeBlockers returns the ops the element-type rule makes illegal:
// every op of an island with a Why (the ops that open it carry the
// finding, the others are illegal with it). strip-fp32-casts'
// islands=blockers retypes the islands holding them and nothing else.
// States pair as states says (the pipeline's state analysis, under its
// settings), so that a plain pair promote-states will make a state is the
// round trip through the interface it becomes.
func ElementTypeBlockers(m *graph.Module, states func(*graph.Graph) *graph.StateAnalysis) (map[*graph.Operation]bool, error) {
	fs, err := moduleWith(m, states)
	if err != nil {
		return nil, err
	}
	out := map[*graph.Operation]bool{}
	for _, f := range fs {
		for _, is := range f.Islands() {
			if is.Why == "" {
				continue
			}
			for _, op := range is.All {
				out[op] = true
			}
		}
	}
	return out, nil
}
