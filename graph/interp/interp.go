package interp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
)

// Options choose the interpreter's numerics.
type Options struct {
	// AccumulateF16 rounds the running sums of reductions, matmul and conv
	// with f16 results to half after every addition (a narrow datapath);
	// the default accumulates in float32.
	AccumulateF16 bool
	// ANE, when set, runs f16 ops under the Neural Engine profile
	// (numerics.go) instead of IEEE; it excludes AccumulateF16.
	ANE *ANE
	// Wide computes f16 and bf16 ops in float32 without rounding to the
	// declared type (a high-precision reference: `verify --localize`).
	// Values keep float32 precision through casts to f16 as well.
	Wide bool
	// Saturated, when set, hears each time a profile rule turned finite
	// values of an op's result into ±inf (rule is a rule.Name).
	Saturated func(op *graph.Operation, rule string, n int)
	// Observe, when set, sees every op's results right after it runs (for
	// tracing where values go non-finite); it must not modify them.
	Observe func(op *graph.Operation, results []*Tensor)
	// MaxWork bounds the work of one Run, its loops and calls included,
	// in element operations (work.go); 0 means DefaultMaxWork. Past it
	// Run returns a *workError naming the op.
	MaxWork int64
	// Blobs, when set, holds the weight blobs, shared with the other
	// interpreters given the same store (share.go): a blob byte-identical
	// in two modules is held once. The owner closes it after them.
	Blobs *SharedBlobs
	// DonateInputs hands Run and RunLanes the buffers of their input
	// tensors: the graph may update them in place (a state's slice_update
	// writes into it instead of copying it), so the caller must not read
	// an input after the call, only the outputs (which may share its
	// buffer). A decode loop that feeds each position's outputs back as
	// the next inputs saves a copy of every state per position. A buffer
	// that two inputs share (in one lane or across lanes) stays read-only.
	donateInputs bool
}

// Interp runs the graphs of one module. It caches constants (weights stay
// in their blobs) and per-graph execution plans; it is not safe for
// concurrent Runs.
type Interp struct {
	m      *graph.Module
	opts   Options
	graphs map[string]*graph.Graph
	consts map[*graph.Operation]*Tensor
	plans  map[*graph.Operation]*plan
	unmaps []func() error
	maps   []mapping // the mapped weights, for naming a fault's file
	// inPlaced counts the ops inPlace ran (tests ask whether it did).
	inPlaced int
	// weightReads counts the bytes matmul and conv read from weights held
	// in their blobs (WeightBytesRead).
	weightReads atomic.Int64
	// pool keeps dead float buffers for later results (floatPool).
	pool floatPool
	// weightWidened counts the raw-f16 weight elements matmul and conv
	// convert to float32 (WeightElemsWidened).
	weightWidened atomic.Int64
	work          int64 // counted by the current (or last) Run (work.go)
	// workLanes is how many lanes the current run has (RunLanes; 1 for
	// Run): the work bound is per lane.
	workLanes int
	// pairing is this interpreter's part in a Pair's run (pair.go), nil
	// otherwise.
	pairing *pairSide
}

// WeightBytesRead is how many bytes matmul and conv have read from weights
// still in their blobs (f16 or f32 constants used in place), over every
// Run so far: a weight row block reused from cache for several streams
// counts once (linalg.go's mmWeightRows), so a batch of streams that
// shares each pass over a weight reads it once per position.
func (in *Interp) WeightBytesRead() int64 { return in.weightReads.Load() }

// weightElemsWidened is how many elements of f16 weights still in their
// blobs matmul and conv have converted to float32, over every Run so far:
// a batch of streams (RunLanes) that widens each block of a weight once
// for all of them converts as many as one stream.
func (in *Interp) weightElemsWidened() int64 { return in.weightWidened.Load() }

// counts are the kernels' weight counters (WeightBytesRead,
// WeightElemsWidened).
func (in *Interp) counts() *counts { return &counts{&in.weightReads, &in.weightWidened} }

// New prepares an interpreter for m. Nothing is read until Run.
func New(m *graph.Module, opts Options) *Interp {
	in := &Interp{m: m, opts: opts, graphs: map[string]*graph.Graph{},
		consts: map[*graph.Operation]*Tensor{}, plans: map[*graph.Operation]*plan{}}
	for _, g := range m.Graphs() {
		in.graphs[g.Name()] = g
	}
	return in
}

// Close releases mapped weights. Tensors returned by Run stay valid only
// if they were computed (graph outputs that are bare weights are copied).
func (in *Interp) Close() error {
	var errs []error
	for _, u := range in.unmaps {
		errs = append(errs, u())
	}
	in.unmaps, in.maps = nil, nil
	in.consts = map[*graph.Operation]*Tensor{}
	return errors.Join(errs...)
}

// plan is a graph body in execution order with, per op, the values whose
// last reader it is (freed after it runs to keep the live set small).
type plan struct {
	ops   []*graph.Operation
	frees [][]*graph.Value
	// rows are the ops' rows of the op table (ops.go), found once.
	rows []opRef
	// tokenState maps a token output to the handle argument whose state
	// it returns (the state analysis, graph/states.go).
	tokenState map[int]*graph.Value
}

func (in *Interp) planFor(g *graph.Graph) (*plan, error) {
	if p := in.plans[g.Op]; p != nil {
		return p, nil
	}
	body := g.Body()
	if err := checkSizes(g); err != nil {
		return nil, err
	}
	p := &plan{ops: body.Ops(), tokenState: map[int]*graph.Value{}}
	for _, sp := range graph.States(g, graph.StateOptions{NoAuto: true}).Pairs {
		if sp.Form == graph.StateHandle && sp.Out >= 0 {
			p.tokenState[sp.Out] = body.Arg(sp.In)
		}
	}
	last := map[*graph.Value]int{}
	for i, op := range p.ops {
		// Values an op's regions read (coreai.if's branches use the
		// enclosing graph's values directly) live until the op has run.
		op.Walk(func(o *graph.Operation) bool {
			for _, v := range o.Operands() {
				last[v] = i
			}
			return true
		})
	}
	p.rows = make([]opRef, len(p.ops))
	for i, op := range p.ops {
		p.rows[i] = refOf(op.Name)
	}
	p.frees = make([][]*graph.Value, len(p.ops))
	for v, i := range last {
		p.frees[i] = append(p.frees[i], v)
	}
	in.plans[g.Op] = p
	return p, nil
}

// declaredShape is ShapeOf for a static tensor type (a handle's tensor
// included); other types have no shape to check (nil, nil).
func declaredShape(t graph.Type) ([]int, error) {
	if tt, ok := graph.AsTensor(t); ok && tt.IsStatic() {
		return ShapeOf(tt)
	}
	return nil, nil
}

// CheckSizes refuses a module one of whose graphs declares a static tensor
// whose element count does not fit (ShapeOf), naming the graph and the op
// or argument: such a shape is legal MLIR, but no kernel can hold it. Run
// checks each graph before its first op runs; a caller may check earlier.
func CheckSizes(m *graph.Module) error {
	for _, g := range m.Graphs() {
		if err := checkSizes(g); err != nil {
			return err
		}
	}
	return nil
}

func checkSizes(g *graph.Graph) error {
	body := g.Body()
	if body == nil {
		return nil
	}
	graphName := g.Name()
	for i, p := range g.Inputs() {
		if _, err := declaredShape(p.Type); err != nil {
			return fmt.Errorf("interp: @%s input %d (%q): %w", graphName, i, p.Name, err)
		}
	}
	check := func(t graph.Type) error { _, err := declaredShape(t); return err }
	var err error
	var walkBlock func(b *graph.Block)
	walkBlock = func(b *graph.Block) {
		for i, a := range b.Args() {
			if e := check(a.Type()); e != nil && err == nil {
				err = fmt.Errorf("interp: @%s: block argument %d: %w", graphName, i, e)
			}
		}
		for o := b.First(); o != nil && err == nil; o = o.Next() {
			for i, r := range o.Results() {
				if e := check(r.Type()); e != nil {
					err = fmt.Errorf("interp: @%s: %s: result %d: %w", graphName, o.Describe(), i, e)
					return
				}
			}
			for _, r := range o.Regions {
				for _, rb := range r.Blocks {
					walkBlock(rb)
				}
			}
		}
	}
	walkBlock(body)
	return err
}

// Run executes graph name with inputs in the graph's input order and
// returns its outputs in order.
// A fault in a mapped weight (its file truncated under anefix) is an error
// naming the file, not a crash (fault.go).
func (in *Interp) Run(name string, inputs []*Tensor) (_ []*Tensor, err error) {
	defer debug.SetPanicOnFault(panicOnFault())
	defer in.catchFault(&err)
	g := in.graphs[name]
	if g == nil {
		return nil, fmt.Errorf("interp: no graph @%s in the module", name)
	}
	ports := g.Inputs()
	if len(inputs) != len(ports) {
		return nil, fmt.Errorf("interp: @%s takes %d inputs, got %d", name, len(ports), len(inputs))
	}
	for i, p := range ports {
		if err := checkPort(p.Type, in.widened(p.Type, inputs[i])); err != nil {
			return nil, fmt.Errorf("interp: @%s input %d (%q): %w", name, i, p.Name, err)
		}
	}
	in.work, in.workLanes = 0, 1
	outs, err := in.runGraph(g, inputs, 0)
	if we := (*workError)(nil); errors.As(err, &we) {
		return nil, we // its message names the op; the callers' wrapping repeats it per level
	}
	if err != nil {
		return nil, err
	}
	if err := in.checkMapped(); err != nil {
		return nil, err
	}
	for i, t := range outs {
		if t.raw != nil {
			outs[i] = t.Clone()
		}
	}
	return outs, nil
}

// tensorElem is t as a tensor type and its element type.
func tensorElem(t graph.Type) (*graph.TensorType, Elem, error) {
	tt, ok := graph.AsTensor(t)
	if !ok {
		return nil, ElemInvalid, fmt.Errorf("type %s is not a tensor", t)
	}
	el, err := ElemOf(tt.Elem)
	return tt, el, err
}

func checkPort(t graph.Type, v *Tensor) error {
	tt, el, err := tensorElem(t)
	if err != nil {
		return err
	}
	if v == nil {
		return fmt.Errorf("missing value for %s", tt)
	}
	if v.Elem != el {
		return fmt.Errorf("element type %s, graph expects %s", v.Elem, tt)
	}
	if !tt.IsStatic() || len(tt.Shape) != len(v.Shape) {
		if tt.Unranked || len(tt.Shape) == len(v.Shape) {
			return nil
		}
		return fmt.Errorf("shape %v, graph expects %s", v.Shape, tt)
	}
	for i, d := range tt.Shape {
		if d != graph.Dynamic && int(d) != v.Shape[i] {
			return fmt.Errorf("shape %v, graph expects %s", v.Shape, tt)
		}
	}
	return nil
}

const maxDepth = 64

func (in *Interp) runGraph(g *graph.Graph, args []*Tensor, depth int) ([]*Tensor, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("interp: invoke nesting deeper than %d at @%s (recursive composite?)", maxDepth, g.Name())
	}
	body := g.Body()
	if body == nil {
		return nil, fmt.Errorf("interp: @%s has no body (a declaration); the interpreter can only run graphs with bodies", g.Name())
	}
	if len(args) != len(body.Args()) {
		return nil, fmt.Errorf("interp: @%s takes %d arguments, got %d", g.Name(), len(body.Args()), len(args))
	}
	var owned map[unsafe.Pointer]bool
	if depth == 0 && in.opts.donateInputs {
		owned = donated([][]*Tensor{args})
	}
	l := newLane(body, args, owned)
	l.pool = in.poolFor()
	p, err := in.planFor(g)
	if err != nil {
		return nil, err
	}
	term := graph.TerminatorName(g.Op.Name)
	for i, op := range p.ops {
		if op.Name == term {
			return l.outputs(g, p, op)
		}
		ins, err := l.operands(g, op)
		if err != nil {
			return nil, err
		}
		if err := in.charge(op, ins, in.updatesInPlace(p, i, op, ins, l)); err != nil {
			return nil, err
		}
		res, err := in.dispatch(p, i, op, ins, l, depth)
		if err != nil {
			return nil, fmt.Errorf("interp: @%s: %s: %w", g.Name(), op.Describe(), err)
		}
		if err := in.bind(g, op, res, l); err != nil {
			return nil, err
		}
		l.free(p, i)
	}
	return nil, fmt.Errorf("interp: @%s does not end in %s", g.Name(), term)
}

// lane holds the values of one run of a graph body: its environment, the
// buffer references that decide in-place updates, and its state handles.
// Run has one; RunLanes one per stream.
type lane struct {
	env  map[*graph.Value]*Tensor
	refs bufRefs
	st   *handleState
	// pool, when set, takes the float buffers that die in this lane
	// (free); args are the caller's buffers, which it never takes.
	pool *floatPool
	args map[unsafe.Pointer]bool
}

// newLane enters args as the body's arguments. The caller's tensors are
// never written, but for the buffers in owned (Options.DonateInputs).
func newLane(body *graph.Block, args []*Tensor, owned map[unsafe.Pointer]bool) *lane {
	l := &lane{env: make(map[*graph.Value]*Tensor, 64), refs: bufRefs{}, st: newHandleState(), args: map[unsafe.Pointer]bool{}}
	for i, a := range body.Args() {
		l.env[a] = args[i]
		l.args[bufKey(args[i])] = true
		if k := bufKey(args[i]); k != nil && owned[k] {
			l.refs.add(args[i], 1)
		} else {
			l.refs.pin(args[i])
		}
		if isHandle(a.Type()) {
			l.st.contents[a] = args[i]
		}
	}
	return l
}

// outputs collects the terminator's operands (a token output stands for
// its handle's final tensor).
func (l *lane) outputs(g *graph.Graph, p *plan, op *graph.Operation) ([]*Tensor, error) {
	outs := make([]*Tensor, op.NumOperands())
	for k, v := range op.Operands() {
		outs[k] = l.env[v]
		if isToken(v.Type()) {
			t, err := l.st.final(p.tokenState[k], v)
			if err != nil {
				return nil, fmt.Errorf("interp: @%s: output %d: %w", g.Name(), k, err)
			}
			outs[k] = t
		}
	}
	return outs, nil
}

func (l *lane) operands(g *graph.Graph, op *graph.Operation) ([]*Tensor, error) {
	ins := make([]*Tensor, op.NumOperands())
	for k, v := range op.Operands() {
		t, ok := l.env[v]
		if !ok {
			return nil, fmt.Errorf("interp: @%s: %s: operand %d has no value (defined after use?)", g.Name(), op.Describe(), k)
		}
		ins[k] = t
	}
	return ins, nil
}

// dispatch runs op (index i of plan p) on ins in lane l.
func (in *Interp) dispatch(p *plan, i int, op *graph.Operation, ins []*Tensor, l *lane, depth int) ([]*Tensor, error) {
	if in.updatesInPlace(p, i, op, ins, l) {
		// The buffer dies here and nothing else sees it: update in
		// place instead of copying a whole cache per layer.
		return in.sliceUpdateInPlace(op, ins)
	}
	if t, ok := in.sliceView(p.rows[i].k, op, ins); ok {
		return []*Tensor{t}, nil
	}
	if t, ok, err := in.inPlace(p, i, op, ins, l.refs); ok {
		in.inPlaced++
		return []*Tensor{t}, err
	}
	return in.safeExec(op, p.rows[i], ins, site{depth: depth, lane: l})
}

// updatesInPlace reports whether op (index i of p) is a slice_update that
// may write into its operand's buffer in lane l.
func (in *Interp) updatesInPlace(p *plan, i int, op *graph.Operation, ins []*Tensor, l *lane) bool {
	return p.rows[i].k == "slice_update" && len(ins) >= 3 && in.ownedAt(p, i, op, ins[0], l.refs)
}

// bind checks op's results against its declared types and enters them in
// lane l.
func (in *Interp) bind(g *graph.Graph, op *graph.Operation, res []*Tensor, l *lane) error {
	if len(res) != op.NumResults() {
		return fmt.Errorf("interp: @%s: %s: produced %d results, op declares %d", g.Name(), op.Describe(), len(res), op.NumResults())
	}
	if in.opts.Observe != nil {
		in.opts.Observe(op, res)
	}
	for k, r := range op.Results() {
		if isToken(r.Type()) {
			l.env[r] = res[k]
			continue
		}
		if err := fitResult(r.Type(), in.widened(r.Type(), res[k])); err != nil {
			return fmt.Errorf("interp: @%s: %s: result %d: %w", g.Name(), op.Describe(), k, err)
		}
		res[k] = fitted(r.Type(), res[k])
		l.env[r] = res[k]
		l.refs.add(res[k], 1)
		if isConstant(op.Name) || foldsLUT(op) {
			l.refs.pin(res[k]) // cached across runs
		}
	}
	return nil
}

// free drops the values whose last reader is op i of p; a whole float
// buffer that no live value of the lane shares any more goes to the lane's
// pool.
func (l *lane) free(p *plan, i int) {
	for _, v := range p.frees[i] {
		t := l.env[v]
		l.refs.add(t, -1)
		delete(l.env, v)
		if l.pool == nil || t == nil || !t.Elem.IsFloat() || t.raw != nil || len(t.F) == 0 || len(t.F) != cap(t.F) {
			continue
		}
		if k := bufKey(t); l.refs[k] == 0 && !l.args[k] {
			delete(l.refs, k)
			l.pool.put(t.F)
		}
	}
}

// floatPool keeps the float buffers that died in a run (lane.free) for the
// next results of their length (inPlace): a decode step frees and
// allocates the same state-sized temporaries at every layer and position,
// and a fresh one costs its zeroing and the collector's work.
type floatPool struct {
	mu    sync.Mutex
	free  map[int][][]float32
	bytes int
}

// Buffers below minPooled elements are left to the allocator (cheap, and
// many); the pool holds at most maxPooledBytes.
const (
	minPooled      = 4096
	maxPooledBytes = 256 << 20
)

// get returns a buffer of n elements (old contents) or nil.
func (p *floatPool) get(n int) []float32 {
	if n < minPooled {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.free[n]
	if len(l) == 0 {
		return nil
	}
	b := l[len(l)-1]
	p.free[n] = l[:len(l)-1]
	p.bytes -= 4 * n
	return b
}

// put keeps b, which nothing reads any more.
func (p *floatPool) put(b []float32) {
	n := len(b)
	if n < minPooled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes+4*n > maxPooledBytes {
		return
	}
	if p.free == nil {
		p.free = map[int][][]float32{}
	}
	p.free[n] = append(p.free[n], b)
	p.bytes += 4 * n
}

// poolFor is the pool a run's lanes give their dead buffers to: none under
// the ane profile, Wide and Observe, whose paths and hooks take every
// result as a fresh tensor (as inPlace).
func (in *Interp) poolFor() *floatPool {
	if in.opts.ANE != nil || in.opts.Wide || in.opts.Observe != nil {
		return nil
	}
	return &in.pool
}

// widened gives, under Options.Wide, a float32 tensor the f16 label its
// graph declares (the values stay wide): the type checks then pass as for a
// graph computed in f16.
func (in *Interp) widened(declared graph.Type, t *Tensor) *Tensor {
	if !in.opts.Wide || t == nil || t.Elem != F32 {
		return t
	}
	tt, ok := graph.AsTensor(declared)
	if !ok {
		return t
	}
	el, err := ElemOf(tt.Elem)
	if err != nil || el != F16 && el != BF16 {
		return t
	}
	c := *t
	c.Elem = el
	return &c
}

// fitResult checks a computed tensor against the op's declared result type
// (element type and, where static, element count).
func fitResult(t graph.Type, v *Tensor) error {
	tt, el, err := tensorElem(t)
	if err != nil {
		return err
	}
	if v.Elem != el {
		return fmt.Errorf("computed %s but the op declares %s", v.Elem, tt)
	}
	if n, err := tt.ElementCount(); err == nil && n != int64(v.Len()) || err != nil && tt.IsStatic() {
		return fmt.Errorf("computed shape %v but the op declares %s", v.Shape, tt)
	}
	return nil
}

// fitted gives v the declared static shape (the kernels agree on element
// order; keep/drop of unit axes is the declaration's business).
func fitted(t graph.Type, v *Tensor) *Tensor {
	tt, _ := graph.AsTensor(t)
	if !tt.IsStatic() || len(tt.Shape) == len(v.Shape) && func() bool {
		for i, d := range tt.Shape {
			if int(d) != v.Shape[i] {
				return false
			}
		}
		return true
	}() {
		return v
	}
	c := *v
	c.Shape = make([]int, len(tt.Shape))
	for i, d := range tt.Shape {
		c.Shape[i] = int(d)
	}
	return &c
}

func resultElem(op *graph.Operation, i int) (Elem, error) {
	tt, ok := graph.AsTensor(op.Result(i).Type())
	if !ok {
		return ElemInvalid, fmt.Errorf("result %d has non-tensor type %s%s", i, op.Result(i).Type(), stateTypeHint(op.Result(i).Type()))
	}
	return ElemOf(tt.Elem)
}

func resultShape(op *graph.Operation, i int) ([]int, error) {
	tt, ok := graph.AsTensor(op.Result(i).Type())
	if !ok || !tt.IsStatic() {
		return nil, fmt.Errorf("result %d needs a static tensor type, has %s", i, op.Result(i).Type())
	}
	s, err := ShapeOf(tt)
	if err != nil {
		return nil, fmt.Errorf("result %d: %w", i, err)
	}
	return s, nil
}

// intArg reads integer parameters from an attribute (inherent or
// discardable) if present, else from operand idx.
func intArg(op *graph.Operation, ins []*Tensor, idx int, attr string) ([]int64, bool) {
	if attr != "" {
		if a := op.Inherent(attr); a != nil {
			if v, ok := attrInts(a); ok {
				return v, true
			}
		}
	}
	if idx >= 0 && idx < len(ins) {
		return ins[idx].Ints(), true
	}
	return nil, false
}

// maxParamInts bounds the integers attrInts expands from a dense
// attribute: parameters (axes, permutations, offsets) are a handful, and a
// splat declaring billions is refused rather than materialized.
const maxParamInts = 1 << 24

func attrInts(a graph.Attr) ([]int64, bool) {
	switch x := a.(type) {
	case *graph.IntegerAttr:
		return []int64{x.Value}, true
	case *graph.DenseArrayAttr:
		return x.Int64s(), true
	case *graph.ArrayAttr:
		out := make([]int64, 0, x.Len())
		for k := range x.Len() {
			i, ok := x.At(k).(*graph.IntegerAttr)
			if !ok {
				return nil, false
			}
			out = append(out, i.Value)
		}
		return out, true
	case *graph.DenseElementsAttr:
		n, err := x.Type.ElementCount()
		if err != nil || n > maxParamInts {
			return nil, false
		}
		out := make([]int64, n)
		for i := range out {
			out[i] = x.Int64At(int64(i))
		}
		return out, true
	case *graph.BoolAttr:
		return []int64{b2i(x.Value)}, true
	}
	return nil, false
}

func boolAttr(op *graph.Operation, names ...string) bool {
	for _, n := range names {
		switch a := op.Inherent(n).(type) {
		case *graph.BoolAttr:
			return a.Value
		case *graph.UnitAttr:
			return true
		case *graph.IntegerAttr:
			return a.Value != 0
		}
	}
	return false
}

func need(ins []*Tensor, n int) error {
	if len(ins) < n {
		return fmt.Errorf("needs at least %d operands, has %d", n, len(ins))
	}
	return nil
}

// concatArgs accepts the axis as an attribute, or as the operand the op
// table (graph/coreaiop) names the axis (coreai.concat: the first, whatever
// the data operands are: a cache write's begin index concatenates
// one-element integer constants), else as a rank-0/1 integer constant
// operand first or last.
func concatArgs(op *graph.Operation, ins []*Tensor) ([]*Tensor, int64, error) {
	if a := op.Inherent("axis"); a != nil {
		if v, ok := attrInts(a); ok && len(v) == 1 {
			return ins, v[0], nil
		}
	}
	if len(ins) >= 2 && coreaiop.OperandRole(op, 0) == coreaiop.Param {
		if t := ins[0]; t.Elem.IsFloat() || t.Len() != 1 || len(t.Shape) > 1 {
			return nil, 0, fmt.Errorf("the axis (operand 0) is not a one-element integer tensor: %v %v", t.Elem, t.Shape)
		}
		return ins[1:], ins[0].I[0], nil
	}
	isAxis := func(i int) bool {
		t := ins[i]
		return !t.Elem.IsFloat() && t.Len() == 1 && len(t.Shape) <= 1 &&
			op.Operand(i).DefiningOp() != nil && op.Operand(i).DefiningOp().Name == "coreai.constant"
	}
	if len(ins) >= 2 && isAxis(0) && (!isAxis(len(ins)-1) || ins[1].Elem.IsFloat()) {
		return ins[1:], ins[0].I[0], nil
	}
	if len(ins) >= 2 && isAxis(len(ins)-1) {
		return ins[:len(ins)-1], ins[len(ins)-1].I[0], nil
	}
	return nil, 0, fmt.Errorf("cannot find the concat axis (attribute axis or an integer constant operand)")
}

// constant decodes a dense or dense_resource value once and caches it.
// Constant evaluates a coreai.constant (or arith.constant) op of the
// interpreter's module. A float weight blob stays in the file's mapping,
// so the tensor is valid until Close; treat it as read-only.
func (in *Interp) Constant(op *graph.Operation) (*Tensor, error) {
	if !isConstant(op.Name) {
		return nil, fmt.Errorf("%s is not a constant", op.Describe())
	}
	return in.constant(op)
}

func (in *Interp) constant(op *graph.Operation) (*Tensor, error) {
	if t := in.consts[op]; t != nil {
		return t, nil
	}
	if lazyIndices(op) {
		return in.lazyIndexTensor(op)
	}
	var t *Tensor
	var err error
	switch a := op.Inherent("value").(type) {
	case *graph.DenseElementsAttr:
		t, err = denseTensor(a)
	case *graph.DenseResourceAttr:
		t, err = in.resourceTensor(a)
	case *graph.RawAttr:
		var ok bool
		if t, ok = f8Dense(a.Text); !ok {
			return nil, fmt.Errorf("constant value %s is not supported (want dense<…> or dense_resource<…>)", a.Text)
		}
	case nil:
		return nil, fmt.Errorf("constant without a value attribute")
	default:
		return nil, fmt.Errorf("constant value %T is not supported (want dense<…> or dense_resource<…>)", a)
	}
	if err != nil {
		return nil, err
	}
	in.consts[op] = t
	return t, nil
}

func denseTensor(a *graph.DenseElementsAttr) (*Tensor, error) {
	el, err := ElemOf(a.Type.Elem)
	if err != nil {
		return nil, err
	}
	if !a.Type.IsStatic() {
		return nil, fmt.Errorf("dense constant of non-static type %s", a.Type)
	}
	shape, err := ShapeOf(a.Type)
	if err != nil {
		return nil, fmt.Errorf("dense constant: %w", err)
	}
	n := numel(shape)
	if el == F8E4M3FN { // graph does not decode f8 values; f8.go does
		d := make([]float32, n)
		for i := range d {
			d[i] = f8Decode(a.Element(int64(i))[0])
		}
		return NewFloat(el, shape, d), nil
	}
	if el.IsFloat() {
		d := make([]float32, n)
		for i := range d {
			d[i] = el.round64(a.Float64At(int64(i)))
		}
		return NewFloat(el, shape, d), nil
	}
	d := make([]int64, n)
	for i := range d {
		d[i] = el.wrap(a.Int64At(int64(i)))
	}
	return NewInt(el, shape, d), nil
}

// resourceOf is the blob a names and its element type.
func (in *Interp) resourceOf(a *graph.DenseResourceAttr) (*graph.Resource, Elem, error) {
	r := in.m.Resource(a.Key)
	if r == nil || r.Blob == nil {
		return nil, ElemInvalid, fmt.Errorf("dense_resource<%s>: the module has no blob with that key", a.Key)
	}
	el, err := ElemOf(a.Type.Elem)
	if err != nil {
		return nil, ElemInvalid, fmt.Errorf("dense_resource<%s>: %w", a.Key, err)
	}
	return r, el, nil
}

func (in *Interp) resourceTensor(a *graph.DenseResourceAttr) (*Tensor, error) {
	r, el, err := in.resourceOf(a)
	if err != nil {
		return nil, err
	}
	if !a.Type.IsStatic() {
		return nil, fmt.Errorf("dense_resource<%s> of non-static type %s", a.Key, a.Type)
	}
	shape, err := ShapeOf(a.Type)
	if err != nil {
		return nil, fmt.Errorf("dense_resource<%s>: %w", a.Key, err)
	}
	eb := graph.ElemBytes(a.Type.Elem)
	want, err := a.Type.ByteSize()
	if err != nil {
		return nil, fmt.Errorf("dense_resource<%s>: %w", a.Key, err)
	}
	w := graph.SubByteWidth(a.Type.Elem)
	packed := w > 0 && r.Blob.Size() != want && r.Blob.Size() == graph.PackedSize(int64(numel(shape)), w)
	if r.Blob.Size() != want && !packed {
		if w > 0 {
			return nil, fmt.Errorf("dense_resource<%s>: blob has %d bytes, %s needs %d (one element per byte) or %d (packed)", a.Key, r.Blob.Size(), a.Type, want, graph.PackedSize(int64(numel(shape)), w))
		}
		return nil, fmt.Errorf("dense_resource<%s>: blob has %d bytes, %s needs %d", a.Key, r.Blob.Size(), a.Type, want)
	}
	data, err := in.blobBytes(r)
	if err != nil {
		return nil, fmt.Errorf("dense_resource<%s>: %w", a.Key, err)
	}
	if packed { // Core AI's packed sub-byte storage (graph/subbyte.go)
		u := make([]uint8, numel(shape))
		graph.UnpackBits(u, data, len(u), w)
		d := make([]int64, len(u))
		for i, v := range u {
			d[i] = el.wrap(signExtend(uint64(v), eb, el))
		}
		return NewInt(el, shape, d), nil
	}
	if el == F8E4M3FN {
		d := make([]float32, numel(shape))
		for i := range d {
			d[i] = f8Decode(data[i])
		}
		return NewFloat(el, shape, d), nil
	}
	if el.IsFloat() {
		return &Tensor{Elem: el, Shape: shape, raw: data, rawEl: el}, nil
	}
	d := make([]int64, numel(shape))
	for i := range d {
		var v uint64
		for k := 0; k < eb; k++ {
			v |= uint64(data[i*eb+k]) << (8 * k)
		}
		d[i] = el.wrap(signExtend(v, eb, el))
	}
	return NewInt(el, shape, d), nil
}

func signExtend(v uint64, nb int, el Elem) int64 {
	switch el {
	case SI4:
		return int64(int8(uint8(v)<<4) >> 4)
	case SI8, SI16, SI32, SI64:
		shift := uint(64 - 8*nb)
		return int64(v<<shift) >> shift
	}
	return int64(v)
}

// blobBytes gives a blob's bytes: in place for in-memory blobs, mapped for
// sections of an open file, read otherwise; through Options.Blobs when
// set (shared with the other interpreters using it).
func (in *Interp) blobBytes(r *graph.Resource) ([]byte, error) {
	if s := in.opts.Blobs; s != nil {
		data, m, err := s.bytes(r)
		if m != nil {
			in.maps = append(in.maps, *m)
		}
		return data, err
	}
	data, m, unmap, err := loadBlob(r)
	if unmap != nil {
		in.unmaps = append(in.unmaps, unmap)
	}
	if m != nil {
		in.maps = append(in.maps, *m)
	}
	return data, err
}

// loadBlob is blobBytes' work: the bytes, and for a mapped section its
// mapping (for naming the file of a fault) and how to unmap it.
func loadBlob(r *graph.Resource) ([]byte, *mapping, func() error, error) {
	switch b := r.Blob.(type) {
	case graph.MemBlob:
		return []byte(b), nil, nil, nil
	case *graph.SectionBlob:
		if f, ok := b.R.(*os.File); ok {
			if data, unmap, err := mapSection(f, b.Offset, b.N); err == nil {
				return data, newMapping(f, b.Offset, data), unmap, nil
			}
		}
	}
	buf := make([]byte, r.Blob.Size())
	if _, err := r.Blob.ReadAt(buf, 0); err != nil && !(errors.Is(err, io.EOF) && len(buf) == 0) {
		if !errors.Is(err, io.EOF) {
			return nil, nil, nil, err
		}
	}
	return buf, nil, nil, nil
}

// bufRefs counts, per data buffer, how many live values (plus pins for
// inputs and cached constants) refer to it; reshapes and slice views
// (sliceView) share buffers.
type bufRefs map[unsafe.Pointer]int

// bufKey names t's buffer by the last element of its backing array, which
// a view into the buffer (t.F[a:b], sliceView) shares with the whole: the
// view and its source count as one buffer, so neither is written in place
// while the other lives.
func bufKey(t *Tensor) unsafe.Pointer {
	switch {
	case t == nil:
		return nil
	case len(t.F) > 0:
		return unsafe.Pointer(&t.F[:cap(t.F)][cap(t.F)-1])
	case len(t.I) > 0:
		return unsafe.Pointer(&t.I[:cap(t.I)][cap(t.I)-1])
	}
	return nil
}

func (r bufRefs) add(t *Tensor, d int) {
	if k := bufKey(t); k != nil {
		r[k] += d
	}
}

func (r bufRefs) pin(t *Tensor) { r.add(t, 1<<30) }

// donated is the set of buffers of the inputs (lane by lane) that
// Options.DonateInputs lets the graph write: each held by one input of one
// lane, and not a weight still in its blob.
func donated(inputs [][]*Tensor) map[unsafe.Pointer]bool {
	n := map[unsafe.Pointer]int{}
	for _, ins := range inputs {
		for _, t := range ins {
			if k := bufKey(t); k != nil {
				n[k]++
			}
		}
	}
	owned := map[unsafe.Pointer]bool{}
	for _, ins := range inputs {
		for _, t := range ins {
			if k := bufKey(t); k != nil && n[k] == 1 && t.raw == nil {
				owned[k] = true
			}
		}
	}
	return owned
}

// ownedAt reports whether op (index i of plan p) may overwrite t: t's value
// is read for the last time here, only once, and no other live value,
// input or constant shares its buffer.
func (in *Interp) ownedAt(p *plan, i int, op *graph.Operation, t *Tensor, refs bufRefs) bool {
	return in.ownedOperand(p, i, op, 0, t, refs)
}

// ownedOperand is ownedAt for operand j (holding t).
func (in *Interp) ownedOperand(p *plan, i int, op *graph.Operation, j int, t *Tensor, refs bufRefs) bool {
	k := bufKey(t)
	if k == nil || t.raw != nil || refs[k] != 1 {
		return false
	}
	v := op.Operand(j)
	for idx, o := range op.Operands() {
		if idx != j && o == v {
			return false
		}
	}
	for _, f := range p.frees[i] {
		if f == v {
			return true
		}
	}
	return false
}

// inPlace runs a float elementwise op (binary, unary but gelu, cast) into
// the buffer of an operand of the result's shape that dies here with no
// other value sharing it (ownedOperand), and a float cast that changes no
// value (to f32, or to its own type) as a view of its operand, as Reshape
// is: a decode step of a full-scale model otherwise allocates, and the
// runtime zeroes, hundreds of MB of results. The values are the kernels'
// own (binaryInto, unaryInto, roundInPlace), so the bits are exec's. ok is
// false for anything else, which exec runs as always; so it is under the
// ane profile, Wide and Observe, whose paths and hooks take every result
// as a fresh tensor.
func (in *Interp) inPlace(p *plan, i int, op *graph.Operation, ins []*Tensor, refs bufRefs) (*Tensor, bool, error) {
	if in.opts.ANE != nil || in.opts.Wide || in.opts.Observe != nil || op.NumResults() != 1 {
		return nil, false, nil
	}
	el, err := resultElem(op, 0)
	if err != nil || !el.IsFloat() {
		return nil, false, nil
	}
	floats := func(t *Tensor) bool { return t != nil && t.Elem.IsFloat() && t.raw == nil && len(t.F) == t.Len() }
	owned := func(j int) bool {
		return floats(ins[j]) && len(ins[j].F) > 0 && in.ownedOperand(p, i, op, j, ins[j], refs)
	}
	switch k := p.rows[i].k; {
	case k == "cast" && len(ins) == 1 && floats(ins[0]):
		a := ins[0]
		if el == F32 || el == a.Elem {
			c := *a
			c.Elem, c.Shape = el, slices.Clone(a.Shape)
			return &c, true, nil
		}
		if owned(0) {
			roundInPlace(el, a.F)
			return NewFloat(el, slices.Clone(a.Shape), a.F), true, nil
		}
	case binaryFloat[k] != nil && len(ins) == 2 && floats(ins[0]) && floats(ins[1]):
		shape, err := broadcastShape(ins[0].Shape, ins[1].Shape)
		if err != nil {
			return nil, false, nil
		}
		for j := range 2 {
			if slices.Equal(ins[j].Shape, shape) && owned(j) {
				t, err := binaryInto(k, ins[0], ins[1], el, ins[j].F)
				return t, true, err
			}
		}
		// Else a buffer an earlier op left (floatPool); binaryInto
		// writes every element.
		if dst := in.pool.get(numel(shape)); dst != nil {
			t, err := binaryInto(k, ins[0], ins[1], el, dst)
			return t, true, err
		}
	case unaryFloat[k] != nil && k != "gelu" && len(ins) == 1 && owned(0):
		t, err := unaryInto(k, ins[0], el, ins[0].F)
		return t, true, err
	}
	return nil, false, nil
}

// sliceView runs a float slice whose box is one contiguous run of its
// operand (a layer's row of a state or cache: leading axes of size one,
// then one partial axis, then whole axes) as a view of the operand's
// buffer, not a copy: a decode step otherwise copies every recurrent state
// once more. The view and its source share bufKey, so neither is updated
// in place while the other lives. ok is false for any other slice, and
// under Wide and Observe (whose hooks take every result as a fresh
// tensor) and for the ane profile's saturating slices, which write their
// result.
func (in *Interp) sliceView(k string, op *graph.Operation, ins []*Tensor) (*Tensor, bool) {
	if k != "slice" || in.opts.Wide || in.opts.Observe != nil || op.NumResults() != 1 || len(ins) == 0 {
		return nil, false
	}
	t := ins[0]
	if !t.Elem.IsFloat() || t.raw != nil || len(t.F) != t.Len() || len(t.F) == 0 {
		return nil, false
	}
	if el, err := resultElem(op, 0); err != nil || el != t.Elem {
		return nil, false
	}
	begin, ok := intArg(op, ins, 1, "begin")
	if !ok {
		return nil, false
	}
	if a := in.opts.ANE; a != nil && a.Family == PreA16 && cropsLastAxis(begin) {
		return nil, false
	}
	stride, _ := intArg(op, ins, 3, "stride")
	if stride == nil {
		stride, _ = intArg(op, nil, -1, "strides")
	}
	size, err := resultShape(op, 0)
	if err != nil {
		return nil, false
	}
	b, st, err := boxArgs(t.Shape, begin, stride)
	if err != nil || len(size) != len(b) {
		return nil, false
	}
	off, ok := contiguousBox(t.Shape, b, st, size)
	if !ok {
		return nil, false
	}
	n := numel(size)
	return NewFloat(t.Elem, slices.Clone(size), t.F[off:off+n]), true
}

// contiguousBox returns the offset of the box begin b (strides st), size
// size, in a row-major tensor of dims when the box is one contiguous run:
// unit strides, axes of size one, then at most one partial axis, then
// whole axes; ok is false otherwise, or when the box leaves the tensor.
func contiguousBox(dims, b, st, size []int) (off int, ok bool) {
	partial := false
	for d := range dims {
		if st[d] != 1 || b[d] < 0 || size[d] < 0 || b[d]+size[d] > dims[d] {
			return 0, false
		}
		if partial && (b[d] != 0 || size[d] != dims[d]) {
			return 0, false
		}
		if size[d] != 1 {
			partial = true
		}
	}
	for d := range dims {
		off = off*dims[d] + b[d]
	}
	return off, true
}

func (in *Interp) sliceUpdateInPlace(op *graph.Operation, ins []*Tensor) ([]*Tensor, error) {
	el, err := resultElem(op, 0)
	if err != nil {
		return nil, err
	}
	if el != ins[0].Elem {
		return in.exec(op, refOf(op.Name), ins, site{})
	}
	stride, _ := intArg(op, ins, 4, "stride")
	t, err := sliceUpdateInto(ins[0], ins[1], ins[2].Ints(), stride)
	if err != nil {
		return nil, err
	}
	return []*Tensor{t}, nil
}

// safeExec runs exec and turns a kernel panic (an op whose operands do not
// fit its declared types in a way the checks above missed) into an error
// naming the op, so bad input never crashes the tool.
func (in *Interp) safeExec(op *graph.Operation, r opRef, ins []*Tensor, s site) (res []*Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(faultAddr); ok && in.inMapping(f.Addr()) {
				res, err = nil, in.faultError(f) // the file, not the op, is at fault
				return
			}
			res, err = nil, fmt.Errorf("cannot execute with operands %v: %v (malformed op?)", tensorsString(ins), r)
		}
	}()
	return in.exec(op, r, ins, s)
}

func tensorsString(ts []*Tensor) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// stateTypeHint says what the interpreter does run of Core AI's handle and
// token types, for an op that is not one of the state ops.
func stateTypeHint(t graph.Type) string {
	s := t.String()
	if !strings.HasPrefix(s, "!coreai.handle") && !strings.HasPrefix(s, "!coreai.token") {
		return ""
	}
	return "; the interpreter runs handles and tokens only through coreai.create_token, coreai.read_handle and coreai.write_handle"
}

// matmulTransposes reads a matmul's transpose flags under each spelling the
// exporters use (x/y, a/b, lhs/rhs).
func matmulTransposes(op *graph.Operation) (ta, tb bool) {
	return boolAttr(op, "transpose_x", "transpose_a", "transpose_lhs"), boolAttr(op, "transpose_y", "transpose_b", "transpose_rhs")
}
