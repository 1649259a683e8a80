package graph

import (
	"fmt"
	"math"
	"slices"

	"github.com/anefix/anefix/graph/bundle"
)

// Value is an SSA value: an op result or a block argument.
type Value struct {
	typ   Type
	def   *Operation // defining op; nil for a block argument
	block *Block     // owning block of a block argument
	index int        // result index or argument index
	uses  []Use
	// Loc is a block argument's location (MLIR prints it after the type).
	// On a coreai.constant's result, which no writer prints, the MLIR text
	// reader records there the SSA name the text gave it, as a NameLoc
	// without '%' (TextName): the name a reader of the text knows a weight
	// by (passes/compress.go). Constants only: a name field in every op's
	// location cost 22 bytes an op (graph/bytecode TestBigOpsAllocations).
	Loc Loc
}

// Use is one operand slot that reads a value.
type Use struct {
	Op    *Operation
	Index int // operand index in Op
}

// Type is the value's type.
func (v *Value) Type() Type { return v.typ }

// SetType retypes the value in place. Callers keep the IR consistent (the
// verifier checks it); graph signatures are retyped through the Graph view.
func (v *Value) SetType(t Type) { v.typ = t }

// DefiningOp returns the op that produced v, or nil for a block argument.
func (v *Value) DefiningOp() *Operation { return v.def }

// ResultIndex is v's index among its op's results (or -1).
func (v *Value) ResultIndex() int {
	if v.def == nil {
		return -1
	}
	return v.index
}

// BlockArg returns the owning block and index of a block argument.
func (v *Value) BlockArg() (*Block, int, bool) {
	if v.def != nil {
		return nil, -1, false
	}
	return v.block, v.index, true
}

// ParentBlock is the block where v is defined.
func (v *Value) ParentBlock() *Block {
	if v.def != nil {
		return v.def.block
	}
	return v.block
}

// Uses lists the operand slots reading v (do not modify the slice).
func (v *Value) Uses() []Use {
	countWork(workUses, len(v.uses))
	return v.uses
}

// HasUses reports whether anything reads v.
func (v *Value) HasUses() bool { return len(v.uses) > 0 }

// ReplaceAllUsesWith makes every reader of v read nv instead.
func (v *Value) ReplaceAllUsesWith(nv *Value) {
	v.ReplaceUsesIf(nv, func(Use) bool { return true })
}

// ReplaceUsesIf redirects the uses of v for which keep returns true.
func (v *Value) ReplaceUsesIf(nv *Value, pred func(Use) bool) {
	if v == nv {
		return
	}
	uses := append([]Use(nil), v.uses...)
	for _, u := range uses {
		if pred(u) {
			u.Op.SetOperand(u.Index, nv)
		}
	}
}

func (v *Value) addUse(op *Operation, i int) { v.uses = append(v.uses, Use{op, i}) }

func (v *Value) removeUse(op *Operation, i int) {
	for k, u := range v.uses {
		if u.Op == op && u.Index == i {
			countWork(workUses, k+1)
			last := len(v.uses) - 1
			// Keep use order stable: bytecode use-list orders and printing
			// of users depend on it.
			copy(v.uses[k:], v.uses[k+1:])
			v.uses[last] = Use{}
			v.uses = v.uses[:last]
			return
		}
	}
}

// Operation is one MLIR operation of any dialect.
//
// A module holds one per op, so the struct is kept to 144 bytes (a Go size
// class): operands and results share one slice, the rare successors sit
// behind a pointer, and counts are 32-bit as in MLIR (which stores operand
// and result counts as unsigned 32-bit numbers; the readers refuse more).
type Operation struct {
	// Name is the full op name, "coreai.cast", "func.func", "builtin.module".
	Name string
	vals []*Value // the operands, then the results
	// Attrs is the discardable attribute dictionary (nil = none).
	Attrs *DictAttr
	// Props holds the op's properties (the generic form's `<{…}>`), nil if
	// none. Codecs may use another Attr implementation for encodings they
	// carry opaquely.
	Props   Attr
	Regions []*Region
	Loc     Loc

	block      *Block
	prev, next *Operation
	successors *[]*Block // nil: none
	nOperands  uint32
	// order is the position in block, valid while block.orderValid;
	// erasedOrder marks an erased op (it is in no block, so IsBefore never
	// numbers it again).
	order uint32
}

// erasedOrder is Operation.order of an erased op.
const erasedOrder = math.MaxUint32

// MaxOperands is the most operands (and, separately, results) an op can
// have, MLIR's limit; readers refuse more, and SetOperands and AddResult
// panic past it (a caller's bug: no input reaches it).
const MaxOperands = math.MaxUint32

// NewOp creates a detached operation with results of the given types.
func NewOp(name string, operands []*Value, resultTypes []Type, attrs *DictAttr, loc Loc) *Operation {
	if loc == nil {
		loc = Unknown
	}
	op := &Operation{Name: name, Attrs: attrs, Loc: loc}
	if uint64(len(operands)) > MaxOperands {
		panic(fmt.Sprintf("graph: %d operands, more than the %d an op can have", len(operands), uint64(MaxOperands)))
	}
	// One slice for operands and results, allocated once.
	op.vals = make([]*Value, len(operands), len(operands)+len(resultTypes))
	copy(op.vals, operands)
	op.nOperands = uint32(len(operands))
	for i, v := range operands {
		if v != nil {
			v.addUse(op, i)
		}
	}
	op.AddResults(resultTypes...)
	return op
}

// Dialect is the part of the op name before the first '.'.
func (op *Operation) Dialect() string {
	for i := 0; i < len(op.Name); i++ {
		if op.Name[i] == '.' {
			return op.Name[:i]
		}
	}
	return ""
}

// Operands returns the operand list (do not modify the slice).
func (op *Operation) Operands() []*Value { return op.vals[:op.nOperands:op.nOperands] }

// NumOperands is len(Operands()).
func (op *Operation) NumOperands() int { return int(op.nOperands) }

// Operand returns operand i.
func (op *Operation) Operand(i int) *Value { return op.Operands()[i] }

// SetOperand replaces operand i, keeping use lists right.
func (op *Operation) SetOperand(i int, v *Value) {
	ops := op.Operands()
	if old := ops[i]; old != nil {
		old.removeUse(op, i)
	}
	ops[i] = v
	if v != nil {
		v.addUse(op, i)
	}
}

// SetOperands replaces the whole operand list.
func (op *Operation) SetOperands(vs []*Value) {
	if uint64(len(vs)) > MaxOperands {
		panic(fmt.Sprintf("graph: %d operands, more than the %d an op can have", len(vs), uint64(MaxOperands)))
	}
	op.dropOperandUses()
	res := op.Results()
	vals := make([]*Value, len(vs)+len(res))
	copy(vals, vs)
	copy(vals[len(vs):], res)
	op.vals, op.nOperands = vals, uint32(len(vs))
	for i, v := range vs {
		if v != nil {
			v.addUse(op, i)
		}
	}
}

func (op *Operation) dropOperandUses() {
	for i, v := range op.Operands() {
		if v != nil {
			v.removeUse(op, i)
		}
	}
}

// Results returns the result list (do not modify the slice).
func (op *Operation) Results() []*Value { return op.vals[op.nOperands:len(op.vals):len(op.vals)] }

// NumResults is len(Results()).
func (op *Operation) NumResults() int { return len(op.vals) - int(op.nOperands) }

// Result returns result i.
func (op *Operation) Result(i int) *Value { return op.Results()[i] }

// AddResult appends a result of type t.
func (op *Operation) AddResult(t Type) *Value {
	n := op.NumResults()
	if uint64(n) >= MaxOperands {
		panic(fmt.Sprintf("graph: more than %d results", uint64(MaxOperands)))
	}
	v := &Value{typ: t, def: op, index: n}
	op.vals = append(op.vals, v)
	return v
}

// AddResults appends a result of each type, growing the op once.
func (op *Operation) AddResults(ts ...Type) {
	op.vals = slices.Grow(op.vals, len(ts))
	for _, t := range ts {
		op.AddResult(t)
	}
}

// EraseResult removes result i, which must be unused.
func (op *Operation) EraseResult(i int) error {
	res := op.Results()
	if res[i].HasUses() {
		return fmt.Errorf("%s: result %d still has %d uses", op.Describe(), i, len(res[i].uses))
	}
	k := int(op.nOperands) + i
	op.vals = append(op.vals[:k], op.vals[k+1:]...)
	for j, r := range op.Results() {
		r.index = j
	}
	return nil
}

// Successors returns the successor blocks (do not modify the slice).
func (op *Operation) Successors() []*Block {
	if op.successors == nil {
		return nil
	}
	return *op.successors
}

// SetSuccessors replaces the successor list.
func (op *Operation) SetSuccessors(bs []*Block) {
	if len(bs) == 0 {
		op.successors = nil
		return
	}
	c := append([]*Block(nil), bs...)
	op.successors = &c
}

// Attr returns a discardable attribute, or nil.
func (op *Operation) Attr(name string) Attr { return op.Attrs.Get(name) }

// SetAttr sets (or, with nil, removes) a discardable attribute.
func (op *Operation) SetAttr(name string, v Attr) {
	op.Attrs = op.Attrs.With(name, v)
	if op.Attrs.Len() == 0 {
		op.Attrs = nil
	}
}

// Inherent returns an attribute from the properties dictionary when present,
// else from the discardable attributes: generic MLIR text may carry an
// unregistered op's inherent attributes in either place.
func (op *Operation) Inherent(name string) Attr {
	if d, ok := op.Props.(*DictAttr); ok {
		if v := d.Get(name); v != nil {
			return v
		}
	}
	return op.Attrs.Get(name)
}

// SetInherent writes an attribute where Inherent found it (properties when
// the op has a properties dictionary, else the discardable attributes).
func (op *Operation) SetInherent(name string, v Attr) {
	if d, ok := op.Props.(*DictAttr); ok {
		if d.Get(name) != nil || op.Attrs.Get(name) == nil {
			op.Props = d.With(name, v)
			return
		}
	}
	op.SetAttr(name, v)
}

// AddRegion appends an empty region.
func (op *Operation) AddRegion() *Region {
	r := &Region{parent: op}
	op.Regions = append(op.Regions, r)
	return r
}

// Block is the block containing op (nil if detached).
func (op *Operation) Block() *Block { return op.block }

// ParentOp is the op whose region contains op.
func (op *Operation) ParentOp() *Operation {
	if op.block == nil || op.block.parent == nil {
		return nil
	}
	return op.block.parent.parent
}

// Next and Prev walk the containing block.
func (op *Operation) Next() *Operation {
	countWork(workOps, 1)
	return op.next
}

// Prev is the previous op in the block.
func (op *Operation) Prev() *Operation { return op.prev }

// IsErased reports whether op was erased.
func (op *Operation) IsErased() bool { return op.order == erasedOrder }

// OpID is the FX node name in op's location ("_to_copy_12"), or "".
func (op *Operation) OpID() string { return OpID(op.Loc) }

// Source is op's "file:line", or "".
func (op *Operation) Source() string { return Source(op.Loc) }

// MaxNesting is how deep MLIR text may nest (ops, regions, and each level
// of an attribute, type or location, as the text reader descends): the
// reader refuses deeper text and the printer refuses to write it
// (graph/mlirtext/nest.go). Bytecode nests regions and attributes up to
// twice this (its reader's and writer's stack guard), so whatever text
// holds, bytecode holds too.
const MaxNesting = 1000

// Describe names op for messages: `coreai.cast (_to_copy_12 at f.py:199)`,
// with coreai-torch's numeric op id beside the FX name where the location
// carries one (`add_1 (op_id 7) at …`, see OpLabel).
func (op *Operation) Describe() string {
	// Names and locations may hold any bytes; quoted when they would not
	// print as themselves, a newline in one cannot forge a message line.
	s := bundle.DisplayName(op.Name)
	id, src := bundle.DisplayName(OpLabel(op.Loc)), bundle.DisplayName(ShortSource(op.Loc))
	switch {
	case id != "" && src != "":
		s += " (" + id + " at " + src + ")"
	case id != "":
		s += " (" + id + ")"
	case src != "":
		s += " (at " + src + ")"
	}
	return s
}

// DescribeInGraph is Describe prefixed with the graph op sits in
// ("@main: coreai.cast (_to_copy_12 at …)"), for messages about ops of
// modules with several graphs. A nil op reads "(no op)".
func (op *Operation) DescribeInGraph() string {
	if op == nil {
		return "(no op)"
	}
	if g := EnclosingGraph(op); g != nil && g.Op != op {
		return "@" + bundle.DisplayName(g.Name()) + ": " + op.Describe()
	}
	return op.Describe()
}

// InsertBefore places the detached op before ref.
func (op *Operation) InsertBefore(ref *Operation) { ref.block.insertAfter(op, ref.prev) }

// InsertAfter places the detached op after ref.
func (op *Operation) InsertAfter(ref *Operation) { ref.block.insertAfter(op, ref) }

// Remove detaches op from its block without touching operands or uses.
func (op *Operation) Remove() {
	b := op.block
	if b == nil {
		return
	}
	if op.prev != nil {
		op.prev.next = op.next
	} else {
		b.first = op.next
	}
	if op.next != nil {
		op.next.prev = op.prev
	} else {
		b.last = op.prev
	}
	op.prev, op.next, op.block = nil, nil, nil
	b.n--
	b.orderValid = false
	b.graphs = nil
}

// Erase removes op and everything nested in it. Its results must be unused
// (outside of op itself).
func (op *Operation) Erase() error {
	for i, r := range op.Results() {
		for _, u := range r.uses {
			if !op.IsAncestorOf(u.Op) {
				return fmt.Errorf("cannot erase %s: result %d is used by %s", op.Describe(), i, u.Op.Describe())
			}
		}
	}
	op.erase()
	return nil
}

func (op *Operation) erase() {
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for o := b.first; o != nil; {
				next := o.next
				o.erase()
				o = next
			}
		}
	}
	op.dropOperandUses()
	op.Remove()
	op.order = erasedOrder
}

// IsAncestorOf reports whether other is op or nested inside op.
func (op *Operation) IsAncestorOf(other *Operation) bool {
	for o := other; o != nil; o = o.ParentOp() {
		if o == op {
			return true
		}
	}
	return false
}

// Walk visits op and every op nested in it in pre-order. Returning false
// from fn skips the op's regions. fn may erase the op it was given.
func (op *Operation) Walk(fn func(*Operation) bool) {
	countWork(workOps, 1)
	if !fn(op) || op.IsErased() {
		return
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for o := b.first; o != nil; {
				next := o.next
				o.Walk(fn)
				o = next
			}
		}
	}
}

// Region is a list of blocks owned by an op.
type Region struct {
	Blocks []*Block
	parent *Operation
}

// ParentOp is the op owning the region.
func (r *Region) ParentOp() *Operation { return r.parent }

// AddBlock appends a new block with arguments of the given types.
func (r *Region) AddBlock(argTypes []Type, argLocs []Loc) *Block {
	b := &Block{parent: r}
	for i, t := range argTypes {
		var l Loc = Unknown
		if i < len(argLocs) && argLocs[i] != nil {
			l = argLocs[i]
		}
		b.AddArgument(t, l)
	}
	r.Blocks = append(r.Blocks, b)
	return b
}

// Entry is the first block, or nil.
func (r *Region) Entry() *Block {
	if len(r.Blocks) == 0 {
		return nil
	}
	return r.Blocks[0]
}

// Index of b in r, or -1.
func (r *Region) Index(b *Block) int {
	for i, x := range r.Blocks {
		if x == b {
			return i
		}
	}
	return -1
}

// Block is a list of ops with block arguments.
type Block struct {
	args        []*Value
	first, last *Operation
	n           int
	parent      *Region
	orderValid  bool
	// graphs maps each graph op's sym_name to it (the last of a name), built
	// by graphNamed on its first look-up after the block changed; nil when
	// not built. The two places that change a block's op list drop it.
	graphs map[string]*Operation
}

// Parent is the region containing b.
func (b *Block) Parent() *Region { return b.parent }

// ParentOp is the op owning b's region.
func (b *Block) ParentOp() *Operation {
	if b.parent == nil {
		return nil
	}
	return b.parent.parent
}

// Args returns the block arguments (do not modify the slice).
func (b *Block) Args() []*Value { return b.args }

// Arg returns argument i.
func (b *Block) Arg(i int) *Value { return b.args[i] }

// AddArgument appends an argument.
func (b *Block) AddArgument(t Type, loc Loc) *Value {
	return b.InsertArgument(len(b.args), t, loc)
}

// InsertArgument inserts an argument at position i.
func (b *Block) InsertArgument(i int, t Type, loc Loc) *Value {
	if loc == nil {
		loc = Unknown
	}
	v := &Value{typ: t, block: b, Loc: loc}
	b.args = append(b.args, nil)
	copy(b.args[i+1:], b.args[i:])
	b.args[i] = v
	for k := i; k < len(b.args); k++ {
		b.args[k].index = k
	}
	return v
}

// EraseArgument removes argument i, which must be unused.
func (b *Block) EraseArgument(i int) error {
	if b.args[i].HasUses() {
		return fmt.Errorf("block argument %d still has %d uses", i, len(b.args[i].uses))
	}
	b.args = append(b.args[:i], b.args[i+1:]...)
	for k := i; k < len(b.args); k++ {
		b.args[k].index = k
	}
	return nil
}

// First op of the block, or nil.
func (b *Block) First() *Operation { return b.first }

// Last op of the block (its terminator when well formed), or nil.
func (b *Block) Last() *Operation { return b.last }

// Len is the number of ops in the block.
func (b *Block) Len() int { return b.n }

// Ops returns a snapshot of the block's ops.
func (b *Block) Ops() []*Operation {
	countWork(workOps, b.n)
	out := make([]*Operation, 0, b.n)
	for o := b.first; o != nil; o = o.next {
		out = append(out, o)
	}
	return out
}

// Append adds the detached op at the end of b.
func (b *Block) Append(op *Operation) { b.insertAfter(op, b.last) }

// Prepend adds the detached op at the start of b.
func (b *Block) Prepend(op *Operation) { b.insertAfter(op, nil) }

func (b *Block) insertAfter(op, after *Operation) {
	if op.block != nil {
		panic("graph: inserting an op that is already in a block; call Remove first")
	}
	op.block = b
	op.prev = after
	if after == nil {
		op.next = b.first
		b.first = op
	} else {
		op.next = after.next
		after.next = op
	}
	if op.next != nil {
		op.next.prev = op
	} else {
		b.last = op
	}
	b.n++
	b.orderValid = false
	b.graphs = nil
}

// IsBefore reports whether a comes before c; both must be in block b.
func (b *Block) IsBefore(a, c *Operation) bool {
	b.number()
	return a.order < c.order
}

// number gives each op its position in the block, once after a change.
func (b *Block) number() {
	if b.orderValid {
		return
	}
	countWork(workOps, b.n)
	i := uint32(0)
	for o := b.first; o != nil; o = o.next {
		o.order = i
		i++
	}
	b.orderValid = true
}

// Position is op's index in its block (0 for the first op), or -1 for a
// detached op. The block is numbered once after each change, as for
// IsBefore, so asking for every op's position costs one walk.
func (op *Operation) Position() int {
	if op.block == nil {
		return -1
	}
	op.block.number()
	return int(op.order)
}

// Module is an MLIR module: the top-level op plus the file-level data that
// travels with it (resources).
type Module struct {
	// Op is the top-level operation, with one region holding one block:
	// builtin.module, or another module-like op (Apple's compiled files
	// have mps.module and aicode.serialization.asset there).
	Op *Operation
	// Resources are the dialect resources (`{-# dialect_resources … #-}` in
	// text, the resource section in bytecode), in file order.
	Resources []*Resource
	// ExternalResources are `external_resources` entries, kept verbatim.
	ExternalResources []*Resource
	// Implicit records that the text had no explicit top-level module, so a
	// writer that keeps the input's form can leave it implicit again.
	Implicit bool
}

// NewModule returns an empty module with unknown location.
func NewModule() *Module {
	op := NewOp("builtin.module", nil, nil, nil, Unknown)
	op.AddRegion().AddBlock(nil, nil)
	return &Module{Op: op}
}

// Body is the module's single block.
func (m *Module) Body() *Block { return m.Op.Regions[0].Blocks[0] }

// Walk visits every op in the module (including the module op) pre-order.
func (m *Module) Walk(fn func(*Operation) bool) { m.Op.Walk(fn) }

// Resource returns the dialect resource with the given key, or nil.
func (m *Module) Resource(key string) *Resource {
	for i, r := range m.Resources {
		if r.Key == key {
			countWork(workResources, i+1)
			return r
		}
	}
	countWork(workResources, len(m.Resources))
	return nil
}

// ResourcesByKey maps each key to its resource, the first entry when a key
// is declared twice (the one Resource returns): one scan of the table for a
// caller that looks up many keys, where Resource scans it per look-up. It is
// a snapshot: entries added later are not in it.
func (m *Module) ResourcesByKey() map[string]*Resource {
	countWork(workResources, len(m.Resources))
	out := make(map[string]*Resource, len(m.Resources))
	for _, r := range m.Resources {
		if _, dup := out[r.Key]; !dup {
			out[r.Key] = r
		}
	}
	return out
}

// Symbols maps sym_name to op for the ops directly in the module body.
func (m *Module) Symbols() map[string]*Operation {
	out := map[string]*Operation{}
	countWork(workOps, m.Body().n)
	for o := m.Body().first; o != nil; o = o.next {
		if s, ok := o.Inherent("sym_name").(*StringAttr); ok {
			out[s.Value] = o
		}
	}
	return out
}

// NumOps counts every op in the module, excluding the module op itself.
func (m *Module) NumOps() int {
	n := -1
	m.Walk(func(*Operation) bool { n++; return true })
	return n
}
