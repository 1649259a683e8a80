// Package inspect builds the `anefix inspect` report for a module: per
// graph its signature (with states), op and element-type census, the fp32
// islands and the casts that create them, expand/shrink ops at graph I/O and
// the composites it invokes. It only reads the IR; printing is the CLI's job.
package inspect

import (
	"encoding/hex"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bytecode"
)

// Report inspects every coreai.graph / func.func directly in m, in module
// order. cmd/anefix converts the result to the report schema and adds the
// input.
func Report(m *graph.Module) *Inspection {
	rep := &Inspection{}
	moduleSummary(rep, m)
	composites := map[string]string{}
	for _, g := range m.Graphs() {
		composites[g.Name()] = compositeName(g)
	}
	states := graph.NewStateScope(graph.StateOptions{}) // one for all graphs: callees are summarized once
	for _, g := range m.Graphs() {
		rep.Graphs = append(rep.Graphs, inspectGraph(g, composites, states))
	}
	return rep
}

// compositeName is the name inside composite_decl
// (`#coreai.composite_declaration<"rms_norm" = {…}>`), or "".
func compositeName(g *graph.Graph) string {
	a := g.CompositeDecl()
	if a == nil {
		return ""
	}
	if n, ok := g.CompositeName(); ok {
		return n
	}
	return a.String()
}

// graphState is the per-graph bookkeeping: op order and SSA names as
// anefix's MLIR printer numbers them (results %N, arguments %argN).
type graphState struct {
	name  string
	index map[*graph.Operation]int
	names map[*graph.Value]string
}

func newGraphState(g *graph.Graph) *graphState {
	s := &graphState{name: g.Name(), index: map[*graph.Operation]int{}, names: map[*graph.Value]string{}}
	nextV, nextA, i := 0, 0, 0
	var walkRegions func(op *graph.Operation)
	walkRegions = func(op *graph.Operation) {
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, a := range b.Args() {
					s.names[a] = "%arg" + strconv.Itoa(nextA)
					nextA++
				}
				for o := b.First(); o != nil; o = o.Next() {
					s.index[o] = i
					i++
					if n := o.NumResults(); n > 0 {
						base := "%" + strconv.Itoa(nextV)
						nextV++
						for k, res := range o.Results() {
							if n == 1 {
								s.names[res] = base
							} else {
								s.names[res] = base + "#" + strconv.Itoa(k)
							}
						}
					}
					walkRegions(o)
				}
			}
		}
	}
	walkRegions(g.Op)
	return s
}

func (s *graphState) ref(op *graph.Operation) *OpRef {
	return &OpRef{
		OpID:     op.OpID(),
		OpName:   op.Name,
		Source:   op.Source(),
		Graph:    s.name,
		Index:    int32(s.index[op]),
		OpNumber: OpNumber(op),
	}
}

// OpNumber is op's numeric op id for OpRef.op_number (see graph.OpNumber),
// or nil when its location carries none or it does not fit the field.
func OpNumber(op *graph.Operation) *uint32 {
	if op == nil {
		return nil
	}
	n, ok := graph.OpNumber(op.Loc)
	if !ok || n > math.MaxUint32 {
		return nil
	}
	v := uint32(n)
	return &v
}

// portName is an output's Label, or an unnamed input's block argument
// (%argN) as anefix's printer names it.
func portName(p graph.Port, output bool) string {
	if p.Name != "" || output {
		return p.Label()
	}
	return "%arg" + strconv.Itoa(p.Index)
}

func portAttrs(d *graph.DictAttr) []string {
	var out []string
	if d == nil {
		return nil
	}
	for _, e := range d.Entries { // already sorted by name
		if _, unit := e.Value.(*graph.UnitAttr); unit {
			out = append(out, graph.QuoteIdent(e.Name))
			continue
		}
		out = append(out, graph.QuoteIdent(e.Name)+" = "+e.Value.String())
	}
	return out
}

func typeString(t graph.Type) string {
	if t == nil {
		return "<none>"
	}
	return t.String()
}

func statePairOf(sp graph.StatePair) *statePair {
	return &statePair{Form: sp.Form.String(), Kind: sp.Kind.String(), Evidence: sp.Evidence.String()}
}

func inspectGraph(g *graph.Graph, composites map[string]string, states *graph.StateScope) *GraphInspection {
	gi := &GraphInspection{
		Name:          g.Name(),
		Visibility:    g.Visibility(),
		CompositeDecl: compositeName(g),
	}
	if gi.Visibility == "" {
		gi.Visibility = "public"
	}
	if g.Op.Inherent("no_inline") != nil || g.Op.Inherent("noinline") != nil {
		gi.Noinline = true
	}
	ins, outs := g.Inputs(), g.Outputs()
	var sa *graph.StateAnalysis
	if g.Body() != nil {
		sa = states.States(g)
	}
	for _, p := range ins {
		port := &Port{Name: portName(p, false), Index: int32(p.Index), Type: typeString(p.Type),
			IsState: p.IsState, StatePartner: p.StateOutput, Attributes: portAttrs(p.Attrs)}
		if sp, ok := sa.ForInput(p.Index); ok {
			port.State = statePairOf(sp)
			if sp.Out >= 0 && port.StatePartner == "" {
				port.StatePartner = portName(outs[sp.Out], true)
			}
		}
		gi.Inputs = append(gi.Inputs, port)
	}
	for _, p := range outs {
		port := &Port{Name: portName(p, true), Index: int32(p.Index), Type: typeString(p.Type),
			IsState: p.IsState, Attributes: portAttrs(p.Attrs)}
		if sp, ok := sa.ForOutput(p.Index); ok {
			port.State = statePairOf(sp)
			port.StatePartner = portName(ins[sp.In], false)
		}
		gi.Outputs = append(gi.Outputs, port)
	}
	if sa != nil {
		gi.StateNotes = sa.Notes
	}
	body := g.Body()
	if body == nil {
		return gi // declaration
	}
	st := newGraphState(g)

	// Census over ops and values, pre-order.
	var ops []*graph.Operation
	g.Op.Walk(func(o *graph.Operation) bool {
		if o != g.Op {
			ops = append(ops, o)
		}
		return true
	})
	gi.OpTotal = int32(len(ops))
	opCount := map[string]int32{}
	for _, o := range ops {
		opCount[o.Name]++
	}
	typeCount := graph.ElementTypeCounts(g.Op)
	for _, k := range slices.Sorted(maps.Keys(opCount)) {
		gi.OpCounts = append(gi.OpCounts, &OpCount{OpName: k, Count: opCount[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(typeCount)) {
		// Counts of in-memory values fit in int32 (2^31 values would need
		// hundreds of gigabytes); the schema's counts are int32 so that
		// protojson prints numbers.
		gi.ElementTypes = append(gi.ElementTypes, &TypeCount{Type: k, Count: int32(typeCount[k])})
	}

	inputName := map[*graph.Value]string{}
	for i, a := range body.Args() {
		if i < len(ins) {
			inputName[a] = portName(ins[i], false)
		}
	}
	term := g.Terminator()
	gi.Fp32Islands = islands(st, g, body, ops, term, inputName, outs)
	gi.IoReshapes = ioReshapes(st, ops, term, inputName, outs)

	// Invocations.
	calls := map[string]int32{}
	for _, o := range ops {
		if c, ok := graph.Callee(o); ok {
			calls[c]++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(calls)) {
		gi.Invocations = append(gi.Invocations, &Invocation{Callee: k, Count: calls[k], Composite: composites[k]})
	}
	return gi
}

func isF32(v *graph.Value) bool { return graph.IsFloat(graph.ElementType(v.Type()), "f32") }

func isCast(op *graph.Operation) bool { return op.Name == "coreai.cast" }

// islands groups f32 values connected through the non-cast ops that read
// or write them (graph.FloatIslands, constants kept apart), then lists per island its values, the casts
// into and out of it, the graph I/O it touches and its compute ops.
func islands(st *graphState, g *graph.Graph, body *graph.Block, ops []*graph.Operation, term *graph.Operation, inputName map[*graph.Value]string, outs []graph.Port) []*Fp32Island {
	// Seeded in definition order (arguments, then each op's results before
	// its regions' arguments), which numbers the islands in the report.
	var seed []*graph.Value
	seed = append(seed, body.Args()...)
	for _, o := range ops {
		seed = append(seed, o.Results()...)
		for _, r := range o.Regions {
			for _, b := range r.Blocks {
				seed = append(seed, b.Args()...)
			}
		}
	}
	fi := graph.FloatIslands([]*graph.Graph{g}, graph.IslandOptions{Member: isF32, ConstantsApart: true, Seed: seed})
	order := fi.Values
	type acc struct {
		isl   *Fp32Island
		ops   map[*graph.Operation]bool
		order int
	}
	list := make([]*acc, fi.Count())
	for i := range list {
		list[i] = &acc{isl: &Fp32Island{}, ops: map[*graph.Operation]bool{}, order: i}
	}
	get := func(v *graph.Value) *acc { return list[fi.Index(v)] }
	for _, v := range order {
		a := get(v)
		pv := &Value{Name: st.names[v], Type: typeString(v.Type())}
		if d := v.DefiningOp(); d != nil {
			pv.DefinedBy = st.ref(d)
		} else if n, ok := inputName[v]; ok {
			pv.InputName = n
			a.isl.FromInputs = append(a.isl.FromInputs, n)
		}
		a.isl.Values = append(a.isl.Values, pv)
	}
	for _, o := range ops {
		if isCast(o) && o.NumOperands() == 1 && o.NumResults() == 1 {
			in, out := o.Operand(0), o.Result(0)
			switch {
			case isF32(out) && !isF32(in):
				a := get(out)
				a.isl.EntryCasts = append(a.isl.EntryCasts, st.ref(o))
			case isF32(in) && !isF32(out):
				a := get(in)
				a.isl.ExitCasts = append(a.isl.ExitCasts, st.ref(o))
			}
			continue
		}
		if o == term {
			for i, v := range o.Operands() {
				if v != nil && isF32(v) && i < len(outs) {
					a := get(v)
					a.isl.ToOutputs = append(a.isl.ToOutputs, portName(outs[i], true))
				}
			}
			continue
		}
		seen := false
		for _, v := range append(append([]*graph.Value{}, o.Operands()...), o.Results()...) {
			if v != nil && isF32(v) {
				a := get(v)
				if !a.ops[o] && !seen {
					a.ops[o] = true
					a.isl.Ops = append(a.isl.Ops, st.ref(o))
				}
				seen = true
			}
		}
	}
	out := make([]*Fp32Island, len(list))
	for i, a := range list {
		out[i] = a.isl
	}
	return out
}

// ioReshapes finds expand_dims / shrink_dims that read a graph input or
// whose result is returned as a graph output.
func ioReshapes(st *graphState, ops []*graph.Operation, term *graph.Operation, inputName map[*graph.Value]string, outs []graph.Port) []*IOReshape {
	var res []*IOReshape
	for _, o := range ops {
		if o.Name != "coreai.expand_dims" && o.Name != "coreai.shrink_dims" || o.NumOperands() == 0 || o.NumResults() == 0 {
			continue
		}
		from, to := typeString(o.Operand(0).Type()), typeString(o.Result(0).Type())
		if n, ok := inputName[o.Operand(0)]; ok {
			res = append(res, &IOReshape{Op: st.ref(o), Port: n, FromType: from, ToType: to})
		}
		if term == nil {
			continue
		}
		for _, u := range o.Result(0).Uses() {
			if u.Op == term && u.Index < len(outs) {
				res = append(res, &IOReshape{Op: st.ref(o), Port: portName(outs[u.Index], true), IsOutput: true, FromType: from, ToType: to})
			}
		}
	}
	return res
}

// moduleSummary fills the module-level fields: the top-level op, every op
// by name, the dialects of the ops and the ops whose properties are kept
// unread. For bytecode, AddDialectTable replaces the dialects by the file's
// table.
func moduleSummary(rep *Inspection, m *graph.Module) {
	rep.TopLevelOp = m.Op.Name
	ops, opaque, dialects := map[string]int32{}, map[string]int32{}, map[string]int32{}
	m.Walk(func(op *graph.Operation) bool {
		dialects[dialectOf(op.Name)]++
		if op != m.Op {
			ops[op.Name]++
		}
		if graph.HasOpaqueProps(op) {
			opaque[op.Name]++
		}
		return true
	})
	for _, k := range slices.Sorted(maps.Keys(ops)) {
		rep.ModuleOpCounts = append(rep.ModuleOpCounts, &OpCount{OpName: k, Count: ops[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(opaque)) {
		rep.OpaquePropertyOps = append(rep.OpaquePropertyOps, &OpCount{OpName: k, Count: opaque[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(dialects)) {
		rep.Dialects = append(rep.Dialects, &DialectUse{Name: k, Ops: dialects[k]})
	}
}

// dialectOf is the op name's dialect prefix ("" for a name without one).
func dialectOf(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

// AddDialectTable replaces rep's dialects by a bytecode file's dialect
// table, in file order, with each dialect's version entry: the table also
// names dialects that only attributes and types use.
func AddDialectTable(rep *Inspection, table []bytecode.Dialect) {
	ops := map[string]int32{}
	for _, d := range rep.Dialects {
		ops[d.Name] = d.Ops
	}
	rep.Dialects = nil
	for _, d := range table {
		rep.Dialects = append(rep.Dialects, &DialectUse{
			Name: d.Name, Ops: ops[d.Name], HasVersion: d.Version != nil, VersionHex: hex.EncodeToString(d.Version),
		})
	}
}
