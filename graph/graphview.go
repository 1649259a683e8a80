package graph

import "fmt"

// Attribute names of the function-like ops anefix edits. For coreai.graph
// these follow func.func (unconfirmed: no public source spells them); the
// view reads them from properties or from the attribute dictionary.
const (
	AttrSymName      = "sym_name"
	AttrFunctionType = "function_type"
	AttrArgAttrs     = "arg_attrs"
	AttrResAttrs     = "res_attrs"
	AttrVisibility   = "sym_visibility"
	AttrCompositeDec = "composite_decl"
	AttrName         = "coreai.name"
	AttrBufMutation  = "MutableBuffers.buffer_mutation"
)

// Graph is a view of a function-like op: `coreai.graph` or `func.func`.
type Graph struct{ Op *Operation }

// IsGraphOp reports whether op is a function-like op anefix understands.
func IsGraphOp(op *Operation) bool { return op.Name == "coreai.graph" || op.Name == "func.func" }

// TerminatorName is the terminator op name for a function-like op.
func TerminatorName(fnOp string) string {
	if fnOp == "func.func" {
		return "func.return"
	}
	return "coreai.output"
}

// EnclosingGraph is the graph op is in (op itself when it is a graph), or nil.
func EnclosingGraph(op *Operation) *Graph {
	for o := op; o != nil; o = o.ParentOp() {
		if IsGraphOp(o) {
			return &Graph{Op: o}
		}
	}
	return nil
}

// Graphs lists the function-like ops directly in the module, in order.
func (m *Module) Graphs() []*Graph {
	var out []*Graph
	countWork(workOps, m.Body().n)
	for o := m.Body().first; o != nil; o = o.next {
		if IsGraphOp(o) {
			out = append(out, &Graph{Op: o})
		}
	}
	return out
}

// Graph returns the graph with the given symbol name, or nil.
func (m *Module) Graph(name string) *Graph {
	for _, g := range m.Graphs() {
		if g.Name() == name {
			return g
		}
	}
	return nil
}

// graphNamed is the graph op directly in b named name (the last one of
// that name), or nil. The table is built once per change to b's op list, so
// looking up a callee for every graph of a module costs time linear in the
// module. A graph renamed in place (its sym_name replaced without moving
// it) is seen under its new name only after b changes: anefix renames no
// graph; a hit under the old name is caught and the table rebuilt.
func (b *Block) graphNamed(name string) *Operation {
	for range 2 {
		if b.graphs == nil {
			b.graphs = map[string]*Operation{}
			countWork(workOps, b.n)
			for o := b.first; o != nil; o = o.next {
				if IsGraphOp(o) {
					b.graphs[(&Graph{Op: o}).Name()] = o
				}
			}
		}
		o := b.graphs[name]
		if o == nil || o.block == b && (&Graph{Op: o}).Name() == name {
			return o
		}
		b.graphs = nil // renamed since the table was built
	}
	return nil
}

// Name is the graph's symbol name.
func (g *Graph) Name() string {
	if s, ok := g.Op.Inherent(AttrSymName).(*StringAttr); ok {
		return s.Value
	}
	return ""
}

// Visibility is "" (public), "private" or "nested".
func (g *Graph) Visibility() string {
	if s, ok := g.Op.Inherent(AttrVisibility).(*StringAttr); ok {
		return s.Value
	}
	return ""
}

// FunctionType is the declared signature, or nil if missing.
func (g *Graph) FunctionType() *FunctionType {
	if t, ok := g.Op.Inherent(AttrFunctionType).(*TypeAttr); ok {
		ft, _ := t.Type.(*FunctionType)
		return ft
	}
	return nil
}

func (g *Graph) setFunctionType(ft *FunctionType) {
	g.Op.SetInherent(AttrFunctionType, &TypeAttr{Type: ft})
}

// Body is the entry block of the graph, or nil for a declaration.
func (g *Graph) Body() *Block {
	if len(g.Op.Regions) == 0 {
		return nil
	}
	return g.Op.Regions[0].Entry()
}

// Terminator is the body's final coreai.output / func.return, or nil.
func (g *Graph) Terminator() *Operation {
	b := g.Body()
	if b == nil || b.last == nil || b.last.Name != TerminatorName(g.Op.Name) {
		return nil
	}
	return b.last
}

// CompositeDecl is the composite_decl attribute of an externalized
// composite, or nil.
func (g *Graph) CompositeDecl() Attr { return g.Op.Inherent(AttrCompositeDec) }

// Port is one input or output of a graph.
type Port struct {
	Index int
	Name  string // coreai.name, or "" when absent
	Type  Type
	Attrs *DictAttr
	// IsState marks a runtime state: an input with
	// MutableBuffers.buffer_mutation, an output named by one, or a
	// !coreai.handle / !coreai.token typed port.
	IsState bool
	// StateOutput is the buffer_mutation target of a state input.
	StateOutput string
}

func attrList(a Attr, n int) []*DictAttr {
	countWork(workPorts, n)
	out := make([]*DictAttr, n)
	if arr, ok := a.(*ArrayAttr); ok {
		for i := 0; i < n && i < arr.Len(); i++ {
			out[i], _ = arr.At(i).(*DictAttr)
		}
	}
	return out
}

func attrListAttr(ds []*DictAttr) Attr {
	countWork(workPorts, len(ds))
	any := false
	elems := make([]Attr, len(ds))
	for i, d := range ds {
		if d == nil {
			d = &DictAttr{}
		}
		if d.Len() > 0 {
			any = true
		}
		elems[i] = d
	}
	if !any {
		return nil
	}
	return &ArrayAttr{Elems: elems}
}

// ArgAttrs returns the attribute dictionary of each input (nil entries for
// inputs without attributes).
func (g *Graph) ArgAttrs() []*DictAttr {
	return attrList(g.Op.Inherent(AttrArgAttrs), g.numInputs())
}

// ResAttrs returns the attribute dictionary of each output.
func (g *Graph) ResAttrs() []*DictAttr {
	return attrList(g.Op.Inherent(AttrResAttrs), g.numOutputs())
}

// SetArgAttrs replaces the per-input attribute dictionaries.
func (g *Graph) SetArgAttrs(ds []*DictAttr) { g.setListAttr(AttrArgAttrs, ds) }

// SetResAttrs replaces the per-output attribute dictionaries.
func (g *Graph) SetResAttrs(ds []*DictAttr) { g.setListAttr(AttrResAttrs, ds) }

func (g *Graph) setListAttr(name string, ds []*DictAttr) {
	v := attrListAttr(ds)
	if v == nil {
		if d, ok := g.Op.Props.(*DictAttr); ok && d.Get(name) != nil {
			g.Op.Props = d.With(name, nil)
		}
		g.Op.SetAttr(name, nil)
		return
	}
	g.Op.SetInherent(name, v)
}

func (g *Graph) numInputs() int {
	if ft := g.FunctionType(); ft != nil {
		return len(ft.Inputs)
	}
	if b := g.Body(); b != nil {
		return len(b.args)
	}
	return 0
}

func (g *Graph) numOutputs() int {
	if ft := g.FunctionType(); ft != nil {
		return len(ft.Results)
	}
	if t := g.Terminator(); t != nil {
		return len(t.Operands())
	}
	return 0
}

// Inputs describes the graph's inputs.
func (g *Graph) Inputs() []Port {
	ft := g.FunctionType()
	attrs := g.ArgAttrs()
	out := make([]Port, len(attrs))
	for i := range out {
		p := Port{Index: i, Attrs: attrs[i]}
		if ft != nil {
			p.Type = ft.Inputs[i]
		} else if b := g.Body(); b != nil {
			p.Type = b.args[i].typ
		}
		if s, ok := attrs[i].Get(AttrName).(*StringAttr); ok {
			p.Name = s.Value
		}
		if s, ok := attrs[i].Get(AttrBufMutation).(*StringAttr); ok {
			p.IsState, p.StateOutput = true, s.Value
		}
		if IsHandleType(p.Type) {
			p.IsState = true
		}
		out[i] = p
	}
	return out
}

// Outputs describes the graph's outputs. An output is a state when its name
// is the buffer_mutation target of some input, or it has a handle/token type.
func (g *Graph) Outputs() []Port {
	ft := g.FunctionType()
	attrs := g.ResAttrs()
	targets := map[string]bool{}
	for _, in := range g.Inputs() {
		if in.StateOutput != "" {
			targets[in.StateOutput] = true
		}
	}
	out := make([]Port, len(attrs))
	for i := range out {
		p := Port{Index: i, Attrs: attrs[i]}
		if ft != nil {
			p.Type = ft.Results[i]
		} else if t := g.Terminator(); t != nil {
			p.Type = t.Operands()[i].typ
		}
		if s, ok := attrs[i].Get(AttrName).(*StringAttr); ok {
			p.Name = s.Value
		}
		p.IsState = targets[p.Name] && p.Name != "" || IsHandleType(p.Type)
		out[i] = p
	}
	return out
}

// Composites lists the callees of coreai.invoke / func.call ops in the graph
// body (and nested regions), in first-use order without duplicates.
func (g *Graph) Composites() []string {
	var out []string
	seen := map[string]bool{}
	g.Op.Walk(func(o *Operation) bool {
		if c, ok := Callee(o); ok && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
		return true
	})
	return out
}

// SetInputType retypes input i: the signature and the block argument.
func (g *Graph) SetInputType(i int, t Type) {
	ft := g.cloneFT()
	ft.Inputs[i] = t
	g.setFunctionType(ft)
	if b := g.Body(); b != nil {
		b.args[i].typ = t
	}
}

// SetOutputType retypes output i in the signature (the terminator's operand
// must be given the same type by the caller).
func (g *Graph) SetOutputType(i int, t Type) {
	ft := g.cloneFT()
	ft.Results[i] = t
	g.setFunctionType(ft)
}

// SyncOutputTypes sets the declared result types from the terminator's
// operands, after a pass retyped the values they return.
func (g *Graph) SyncOutputTypes() {
	t := g.Terminator()
	if t == nil {
		return
	}
	ft := g.cloneFT()
	for i, v := range t.Operands() {
		if i < len(ft.Results) {
			ft.Results[i] = v.typ
		}
	}
	g.setFunctionType(ft)
}

func (g *Graph) cloneFT() *FunctionType {
	ft := g.FunctionType()
	if ft == nil {
		return &FunctionType{}
	}
	countWork(workPorts, len(ft.Inputs)+len(ft.Results))
	return &FunctionType{Inputs: append([]Type(nil), ft.Inputs...), Results: append([]Type(nil), ft.Results...)}
}

// SetInputAttr sets (nil removes) one attribute of input i.
func (g *Graph) SetInputAttr(i int, name string, v Attr) {
	as := g.ArgAttrs()
	as[i] = as[i].With(name, v)
	g.SetArgAttrs(as)
}

// SetOutputAttr sets (nil removes) one attribute of output i.
func (g *Graph) SetOutputAttr(i int, name string, v Attr) {
	as := g.ResAttrs()
	as[i] = as[i].With(name, v)
	g.SetResAttrs(as)
}

// AddInput appends an input with attributes and returns its block argument.
func (g *Graph) AddInput(t Type, attrs *DictAttr, loc Loc) *Value {
	as := g.ArgAttrs()
	ft := g.cloneFT()
	ft.Inputs = append(ft.Inputs, t)
	g.setFunctionType(ft)
	g.SetArgAttrs(append(as, attrs))
	return g.Body().AddArgument(t, loc)
}

// RemoveInput deletes input i, whose block argument must be unused.
func (g *Graph) RemoveInput(i int) error {
	if b := g.Body(); b != nil {
		if err := b.EraseArgument(i); err != nil {
			return fmt.Errorf("graph @%s input %d: %w", g.Name(), i, err)
		}
	}
	as := g.ArgAttrs()
	ft := g.cloneFT()
	ft.Inputs = append(ft.Inputs[:i], ft.Inputs[i+1:]...)
	g.setFunctionType(ft)
	g.SetArgAttrs(append(as[:i], as[i+1:]...))
	return nil
}

// AddOutput appends v as a new output with attributes.
func (g *Graph) AddOutput(v *Value, attrs *DictAttr) error {
	t := g.Terminator()
	if t == nil {
		return fmt.Errorf("graph @%s has no %s terminator", g.Name(), TerminatorName(g.Op.Name))
	}
	as := g.ResAttrs()
	ft := g.cloneFT()
	ft.Results = append(ft.Results, v.typ)
	g.setFunctionType(ft)
	g.SetResAttrs(append(as, attrs))
	t.SetOperands(append(append([]*Value(nil), t.Operands()...), v))
	return nil
}

// RemoveOutput deletes output i.
func (g *Graph) RemoveOutput(i int) error {
	t := g.Terminator()
	if t == nil {
		return fmt.Errorf("graph @%s has no %s terminator", g.Name(), TerminatorName(g.Op.Name))
	}
	as := g.ResAttrs()
	ft := g.cloneFT()
	ft.Results = append(ft.Results[:i], ft.Results[i+1:]...)
	g.setFunctionType(ft)
	g.SetResAttrs(append(as[:i], as[i+1:]...))
	ops := append([]*Value(nil), t.Operands()...)
	t.SetOperands(append(ops[:i], ops[i+1:]...))
	return nil
}

// GraphInput declares one input of a new graph.
type GraphInput struct {
	Name  string // coreai.name
	Type  Type
	State string // MutableBuffers.buffer_mutation target; "" for a plain input
}

// NewGraph appends a coreai.graph @name (visibility "" or "private") taking
// ins, with an empty entry block; fill it and end it with Return. The
// inherent attributes are properties, as coreai's printed form carries them.
func NewGraph(m *Module, name, visibility string, ins ...GraphInput) *Graph {
	types := make([]Type, len(ins))
	argAttrs := make([]Attr, len(ins))
	for i, in := range ins {
		types[i] = in.Type
		d := Dict(NamedAttr{AttrName, Str(in.Name)})
		if in.State != "" {
			d = d.With(AttrBufMutation, Str(in.State))
		}
		argAttrs[i] = d
	}
	props := Dict(
		NamedAttr{AttrSymName, Str(name)},
		NamedAttr{AttrFunctionType, &TypeAttr{Type: &FunctionType{Inputs: types}}},
	)
	if len(ins) > 0 {
		props = props.With(AttrArgAttrs, &ArrayAttr{Elems: argAttrs})
	}
	if visibility != "" {
		props = props.With(AttrVisibility, Str(visibility))
	}
	op := NewOp("coreai.graph", nil, nil, nil, Unknown)
	op.Props = props
	op.AddRegion().AddBlock(types, nil)
	m.Body().Append(op)
	return &Graph{Op: op}
}

// Return ends the graph's body with its terminator returning vals, declared
// as outputs named names (coreai.name).
func (g *Graph) Return(vals []*Value, names []string) *Operation {
	term := NewOp(TerminatorName(g.Op.Name), vals, nil, nil, Unknown)
	g.Body().Append(term)
	ft := g.cloneFT()
	ft.Results = make([]Type, len(vals))
	res := make([]*DictAttr, len(vals))
	for i, v := range vals {
		ft.Results[i] = v.typ
		res[i] = Dict(NamedAttr{AttrName, Str(names[i])})
	}
	g.setFunctionType(ft)
	if len(vals) > 0 {
		g.SetResAttrs(res)
	}
	return term
}

// TokenType is `!coreai.token`, which orders handle reads and writes and is
// what a handle-form graph returns for each state (testdata/states/handle-f32.mlir).
var TokenType Type = &OpaqueType{Text: "!coreai.token"}

// IsToken reports whether t is `!coreai.token`.
func IsToken(t Type) bool {
	o, ok := t.(*OpaqueType)
	return ok && o.Text == "!coreai.token"
}

// IsHandle reports whether t is a state handle `!coreai.handle<…>` (not a
// token).
func IsHandle(t Type) bool { return IsHandleType(t) && !IsToken(t) }

// HandleOf is the handle type holding a tensor of type t:
// `!coreai.handle<tensor<…>>`.
func HandleOf(t *TensorType) Type { return &OpaqueType{Text: "!coreai.handle<" + t.String() + ">"} }

// PortEdits batches changes to a graph's port types and attributes and
// writes the signature back once, in Apply: Graph's SetInputAttr,
// SetOutputAttr, SetInputType and SetOutputType each copy the whole
// signature, so a pass editing every port of a graph with thousands of
// them one call at a time took time quadratic in the ports.
type PortEdits struct {
	g                  *Graph
	ft                 *FunctionType
	argAttrs, resAttrs []*DictAttr
	attrsIn, attrsOut  bool // the attribute lists changed
	types              bool // the function type changed
}

// EditPorts starts a batch of port edits of g. Until Apply, g's own
// signature (Inputs, Outputs, ArgAttrs, FunctionType) is the old one; the
// block argument of a retyped input takes its new type at once.
func (g *Graph) EditPorts() *PortEdits {
	return &PortEdits{g: g, ft: g.cloneFT(), argAttrs: g.ArgAttrs(), resAttrs: g.ResAttrs()}
}

// SetInputAttr sets (nil removes) one attribute of input i.
func (e *PortEdits) SetInputAttr(i int, name string, v Attr) {
	e.argAttrs[i] = e.argAttrs[i].With(name, v)
	e.attrsIn = true
}

// SetOutputAttr sets (nil removes) one attribute of output i.
func (e *PortEdits) SetOutputAttr(i int, name string, v Attr) {
	e.resAttrs[i] = e.resAttrs[i].With(name, v)
	e.attrsOut = true
}

// SetInputType retypes input i: the signature (at Apply) and the block
// argument (now).
func (e *PortEdits) SetInputType(i int, t Type) {
	e.ft.Inputs[i] = t
	e.types = true
	if b := e.g.Body(); b != nil {
		b.args[i].typ = t
	}
}

// SetOutputType retypes output i in the signature (the terminator's operand
// must be given the same type by the caller).
func (e *PortEdits) SetOutputType(i int, t Type) { e.ft.Results[i], e.types = t, true }

// Apply writes the edited signature to the graph.
func (e *PortEdits) Apply() {
	if e.types {
		e.g.setFunctionType(e.ft)
	}
	if e.attrsIn {
		e.g.SetArgAttrs(e.argAttrs)
	}
	if e.attrsOut {
		e.g.SetResAttrs(e.resAttrs)
	}
}
