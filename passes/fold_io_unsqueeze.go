package passes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/graph/record"
	"github.com/anefix/anefix/passes/internal/ops"
)

var foldIOUnsqueezeAbout = About{
	Summary: "fold expand_dims/shrink_dims/rank-only reshapes on graph inputs and outputs into the port types",
	Doc: `The Neural Engine compiler rejects a segment whose boundary op is a rank
change ("ANE I/O op isn't a squeeze / expandDims", citing the exporter's
unsqueeze_* ops). Exporters emit exactly that: torch's unsqueeze on an input
(input_ids before the embedding gather_nd, masks, positions) lowers to
coreai.expand_dims, squeeze before an output to coreai.shrink_dims.

For every entry graph (public, not called by another graph) the pass:
  - folds a rank op whose data operand is a graph input into the input's
    type: the input is retyped to the op's result type and the op's users
    read the input directly. Repeated until no rank op reads the input
    (unsqueeze of unsqueeze folds too).
  - folds a rank op that produces a graph output into the output's type: the
    output returns the op's operand and is retyped to its type.
  - does the same for states (an input with MutableBuffers.buffer_mutation
    and its output, and a plain pair the state analysis finds, which
    promote-states will make a state: anefix passes lists the states
    settings), but only when both sides fold to the same type, so the state
    keeps one type; otherwise it leaves the pair alone with a note.

A rank op here is coreai.expand_dims, coreai.shrink_dims or coreai.reshape
whose result has another rank and only inserts or removes unit dimensions
(same element type, same non-unit dims in the same order, static shapes); a
same-rank reshape that moves a unit dim is left alone. Such an op moves no
element, so the rewrite changes no computed value; it changes only the shape
the caller must feed or read, e.g. input_ids tensor<1x1xsi32> becomes
tensor<1x1x1xsi32>. Every such change is listed in the report (and written
into the bundle's anefix.json by the CLI) so the caller can feed the new
shapes.

When a folded input has other users that need its old shape, the pass gives
them a coreai.reshape of the retyped input back to the old shape (option
other-users=reshape, the default) or leaves the input unfolded
(other-users=skip). Axes/shape constants the folded ops used are left for
dce. Handle-typed states (!coreai.handle<tensor<…>>, read with
coreai.read_handle and written with coreai.write_handle) fold the same way:
the handle's tensor type changes only when every read folds to one type
and every write stores a rank op's operand of that type.

A rank op whose result only feeds index operands (the indices of
gather_nd, gather_along_axis or scatter_nd, directly or through casts and
other rank ops: coreai-torch lowers an embedding to
gather_nd(table, expand_dims(ids)) and x[idx] to gather_nd(x, reshape(idx)))
is not folded: the input is an index, not data the Neural Engine moves
across the boundary; check does not report it (Apple's dense control
compiles 19/19 with exactly such an unsqueeze of its token ids), and
folding it would change the caller's interface for nothing. Set
index-inputs=true to fold it anyway; a note names each one left.

Numerics: none (structural). Don't use it when the caller cannot change the
shapes it feeds (a fixed runtime binding): the I/O shapes change. Note that
not every boundary expand_dims is fatal: Apple's dense control (seed arm E,
19/19 ANE regions) unsqueezes gather_embeddings' token ids at the input; the
compiler cites unsqueeze_* ops only in the hybrid export, so disable the
pass when the I/O change is unwelcome and the compiler did not complain.`,
	Addresses: "ANE I/O op isn't a squeeze / expandDims",
}

// foldIOUnsqueezeOptions are fold-io-unsqueeze's options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type foldIOUnsqueezeOptions struct {
	Ops         []string
	OtherUsers  string
	States      bool
	IndexInputs bool
}

func (o *foldIOUnsqueezeOptions) declare(d *Decls) {
	Declare(d, &o.Ops, Option[[]string]{Name: "ops", Default: []string{"coreai.expand_dims", "coreai.shrink_dims", "coreai.reshape"}, Doc: "rank ops to fold (any of coreai.expand_dims, coreai.shrink_dims, coreai.reshape); a reshape folds only when it is rank-only", Values: ioRankOpNames})
	Declare(d, &o.OtherUsers, Option[string]{Name: "other-users", Default: "reshape", Doc: "when a folded input has other users: reshape (give them a coreai.reshape back to the old shape) or skip (leave the input alone)", Values: []string{"reshape", "skip"}})
	Declare(d, &o.States, Option[bool]{Name: "states", Default: true, Doc: "also fold state inputs/outputs (only when both sides of a state fold to the same type)"})
	Declare(d, &o.IndexInputs, Option[bool]{Name: "index-inputs", Doc: "also fold a rank op whose result only feeds index operands (gather_nd / gather_along_axis / scatter_nd indices), such as input_ids' expand_dims before the embedding"})
}

// ioRankOpNames are the ops fold-io-unsqueeze may fold (option ops takes
// any of them); ioRankOps holds the same names as a set.
var (
	ioRankOpNames = []string{"coreai.expand_dims", "coreai.shrink_dims", "coreai.reshape"}
	ioRankOps     = func() map[string]bool {
		set := map[string]bool{}
		for _, n := range ioRankOpNames {
			set[n] = true
		}
		return set
	}()
)

func runFoldIOUnsqueeze(ctx *Context, m *graph.Module, opts *foldIOUnsqueezeOptions) (*Change, error) {
	f := &ioFolder{ctx: ctx, m: m, ch: &Change{}, ops: map[string]bool{}, created: map[*graph.Operation]bool{},
		states: opts.States, mode: opts.OtherUsers, indexInputs: opts.IndexInputs}
	for _, n := range opts.Ops {
		f.ops[n] = true
	}
	for _, g := range graph.EntryGraphs(m, graph.EntryNotPrivate) {
		f.graph(g)
	}
	return f.ch, nil
}

type ioFolder struct {
	ctx     *Context
	m       *graph.Module
	ch      *Change
	ops     map[string]bool
	states  bool
	mode    string
	created map[*graph.Operation]bool // inverse reshapes this run added; never folded
	// indexInputs folds rank ops that only feed index operands too.
	indexInputs bool
	// indexLeft holds the index-only rank ops left unfolded (noted once).
	indexLeft []*graph.Operation
	// ed batches the current graph's port retypes: each retype through
	// the graph copied its whole signature (quadratic in the ports,
	// TestWorkLinearInFoldedPorts).
	ed *graph.PortEdits
}

// ours reports whether op is an inverse reshape (or its constant) added by
// this pass, in this run or an earlier one (its location names the pass):
// folding it back would undo the pass, and a second run must change nothing.
func (f *ioFolder) ours(op *graph.Operation) bool {
	if f.created[op] {
		return true
	}
	l, ok := op.Loc.(*graph.NameLoc)
	return ok && l.Name == ioFoldLocName
}

const ioFoldLocName = "anefix.fold-io-unsqueeze"

// ioPortLog accumulates what happened to one port for its IOChange.
type ioPortLog struct {
	before graph.Type
	folded []string
	added  int
}

func (f *ioFolder) graph(g *graph.Graph) {
	term := g.Terminator()
	if term == nil {
		return
	}
	ins, outs := g.Inputs(), g.Outputs()
	sa := f.ctx.States(g)
	f.ed = g.EditPorts()
	defer func() { f.ed.Apply(); f.ed = nil }()
	for _, in := range ins {
		p, ok := sa.ForInput(in.Index)
		switch {
		case !ok:
			f.input(g, in)
		case !f.states:
		case p.Form == graph.StateHandle:
			f.handle(g, in)
		case p.Out >= 0:
			f.statePair(g, in, outs[p.Out])
		}
	}
	for _, o := range outs {
		if _, paired := sa.ForOutput(o.Index); !paired && !o.IsState {
			f.output(g, o)
		}
	}
}

// inputFold finds the rank ops reading input i that can fold into it: all of
// them must produce one type R; uses by anything else are returned as
// others. ok is false when nothing folds (or others exist and mode is skip).
func (f *ioFolder) inputFold(g *graph.Graph, p graph.Port) (r graph.Type, fold []*graph.Operation, others []graph.Use, ok bool) {
	arg := g.Body().Arg(p.Index)
	for _, u := range arg.Uses() {
		op := u.Op
		if f.ours(op) {
			continue // an inverse reshape reads any same-size shape; it stays valid
		}
		if u.Index == 0 && f.ops[op.Name] && op.NumResults() == 1 && ops.RankOnly(arg.Type(), op.Result(0).Type()) &&
			!f.indexInputs && ioIndexOnly(op.Result(0), 0) {
			if !slices.Contains(f.indexLeft, op) {
				f.indexLeft = append(f.indexLeft, op)
				f.ch.Notes = append(f.ch.Notes, fmt.Sprintf("@%s input %s: %s only feeds index operands; not folded (index-inputs=true folds it)",
					g.Name(), p.Label(), op.Describe()))
			}
			others = append(others, u)
			continue
		}
		if u.Index == 0 && f.ops[op.Name] && op.NumResults() == 1 && ops.RankOnly(arg.Type(), op.Result(0).Type()) &&
			(r == nil || graph.TypeEqual(r, op.Result(0).Type())) {
			r = op.Result(0).Type()
			fold = append(fold, op)
			continue
		}
		others = append(others, u)
	}
	return r, fold, others, len(fold) > 0
}

// applyInput retypes input i to r, removes the fold ops and gives the other
// users a reshape back to the old type.
func (f *ioFolder) applyInput(g *graph.Graph, i int, r graph.Type, fold []*graph.Operation, others []graph.Use, log *ioPortLog) {
	body := g.Body()
	arg := body.Arg(i)
	old := arg.Type().(*graph.TensorType)
	f.ed.SetInputType(i, r)
	loc := fold[0].Loc
	for _, op := range fold {
		log.folded = append(log.folded, op.Describe())
		op.Result(0).ReplaceAllUsesWith(arg)
		if err := op.Erase(); err == nil {
			f.ch.OpsRemoved++
		}
	}
	if len(others) == 0 {
		return
	}
	ops := ops.Reshape(f.m, arg, old, ops.PassLoc("fold-io-unsqueeze", loc))
	body.Prepend(ops[1])
	body.Prepend(ops[0])
	for _, op := range ops {
		f.created[op] = true
	}
	f.ch.OpsAdded += len(ops)
	log.added += len(others)
	for _, u := range others {
		u.Op.SetOperand(u.Index, ops[1].Result(0))
	}
}

func (f *ioFolder) input(g *graph.Graph, p graph.Port) {
	log := &ioPortLog{before: g.Body().Arg(p.Index).Type()}
	for {
		r, fold, others, ok := f.inputFold(g, p)
		if !ok {
			break
		}
		if len(others) > 0 && f.mode == "skip" {
			f.ch.Notes = append(f.ch.Notes, fmt.Sprintf("@%s input %s: not folded (%s): %d other users need its shape %s and other-users=skip",
				g.Name(), p.Label(), fold[0].Describe(), len(others), g.Body().Arg(p.Index).Type()))
			break
		}
		f.applyInput(g, p.Index, r, fold, others, log)
	}
	f.record(g, p, false, log, g.Body().Arg(p.Index).Type())
}

// outputFold finds the rank op producing output j: (op, its data operand).
func (f *ioFolder) outputFold(g *graph.Graph, j int) (*graph.Operation, *graph.Value) {
	v := g.Terminator().Operand(j)
	d := v.DefiningOp()
	if d == nil || f.ours(d) || !f.ops[d.Name] || d.NumResults() != 1 || d.NumOperands() == 0 {
		return nil, nil
	}
	x := d.Operand(0)
	if !ops.RankOnly(x.Type(), v.Type()) {
		return nil, nil
	}
	return d, x
}

func (f *ioFolder) applyOutput(g *graph.Graph, j int, d *graph.Operation, x *graph.Value, log *ioPortLog) {
	term := g.Terminator()
	v := term.Operand(j)
	log.folded = append(log.folded, d.Describe())
	term.SetOperand(j, x)
	f.ed.SetOutputType(j, x.Type())
	if !v.HasUses() {
		if err := d.Erase(); err == nil {
			f.ch.OpsRemoved++
		}
	}
}

func (f *ioFolder) output(g *graph.Graph, p graph.Port) {
	log := &ioPortLog{before: g.Terminator().Operand(p.Index).Type()}
	for {
		d, x := f.outputFold(g, p.Index)
		if d == nil {
			break
		}
		f.applyOutput(g, p.Index, d, x, log)
	}
	f.record(g, p, true, log, g.Terminator().Operand(p.Index).Type())
}

// statePair folds a state's input and output together, only when both sides
// reach the same type, because a state has one type.
func (f *ioFolder) statePair(g *graph.Graph, in, out graph.Port) {
	if !graph.TypeEqual(in.Type, out.Type) {
		return // not a well-formed state; promote-states/verifier report it
	}
	inLog := &ioPortLog{before: in.Type}
	outLog := &ioPortLog{before: out.Type}
	for {
		r, fold, others, okIn := f.inputFold(g, in)
		d, x := f.outputFold(g, out.Index)
		okOut := d != nil
		if !okIn && !okOut {
			break
		}
		why := ""
		switch {
		case !okIn || !okOut:
			why = "only one side of the state has a rank op"
		case !graph.TypeEqual(r, x.Type()):
			why = fmt.Sprintf("the input side would become %s but the output side %s", r, x.Type())
		case len(others) > 0 && f.mode == "skip":
			why = fmt.Sprintf("%d other users need the input's shape and other-users=skip", len(others))
		}
		for _, op := range fold {
			if op == d {
				why = "the same rank op reads the input and writes the output"
			}
		}
		if why != "" {
			f.ch.Notes = append(f.ch.Notes, fmt.Sprintf("@%s state %s → %s: not folded: %s", g.Name(), in.Label(), out.Label(), why))
			break
		}
		f.applyInput(g, in.Index, r, fold, others, inLog)
		// The input fold may have redirected the output's operand chain to
		// the input itself; re-read it.
		if d, x = f.outputFold(g, out.Index); d != nil {
			f.applyOutput(g, out.Index, d, x, outLog)
		}
	}
	f.record(g, in, false, inLog, g.Body().Arg(in.Index).Type())
	f.record(g, out, true, outLog, g.Terminator().Operand(out.Index).Type())
}

func (f *ioFolder) record(g *graph.Graph, p graph.Port, isOut bool, log *ioPortLog, after graph.Type) {
	if len(log.folded) == 0 {
		return
	}
	why := "folded " + strings.Join(log.folded, ", ")
	if log.added > 0 {
		why += fmt.Sprintf("; %d other users read a coreai.reshape back to %s", log.added, log.before)
	}
	f.ch.IOChanges = append(f.ch.IOChanges, record.IOChange{Graph: g.Name(), Port: p.Label(), IsOutput: isOut,
		Before: log.before.String(), After: after.String(), Why: why})
}

// handle folds rank ops on the reads and writes of a handle-typed state
// (testdata/states/handle-f32.mlir): read_handle results that feed a rank op and
// write_handle values produced by one. All reads and writes must agree on
// one new tensor type, since the state has one type.
func (f *ioFolder) handle(g *graph.Graph, p graph.Port) {
	h := g.Body().Arg(p.Index)
	log := &ioPortLog{before: h.Type()}
	for {
		inner := graph.HandleInner(h.Type().(*graph.OpaqueType))
		if inner == nil {
			return
		}
		type read struct {
			op     *graph.Operation
			val    *graph.Value
			fold   []*graph.Operation
			others []graph.Use
		}
		type write struct {
			op, d *graph.Operation
			slot  int
		}
		var reads []read
		var writes []write
		var r graph.Type
		why := ""
		agree := func(t graph.Type) {
			if r == nil {
				r = t
			} else if !graph.TypeEqual(r, t) && why == "" {
				why = fmt.Sprintf("reads/writes fold to both %s and %s", r, t)
			}
		}
		for _, u := range h.Uses() {
			switch {
			case u.Op.Name == "coreai.read_handle" && u.Index == 0:
				rd := read{op: u.Op}
				for _, res := range u.Op.Results() {
					if graph.TypeEqual(res.Type(), inner) {
						rd.val = res
					}
				}
				if rd.val == nil {
					why = "a read_handle has no result of the state's type"
					break
				}
				for _, ru := range rd.val.Uses() {
					if !f.ours(ru.Op) && ru.Index == 0 && f.ops[ru.Op.Name] && ru.Op.NumResults() == 1 && ops.RankOnly(inner, ru.Op.Result(0).Type()) &&
						(r == nil || graph.TypeEqual(r, ru.Op.Result(0).Type())) {
						agree(ru.Op.Result(0).Type())
						rd.fold = append(rd.fold, ru.Op)
					} else if !f.ours(ru.Op) {
						rd.others = append(rd.others, ru)
					}
				}
				reads = append(reads, rd)
			case u.Op.Name == "coreai.write_handle" && u.Index == 0:
				w := write{op: u.Op, slot: -1}
				for i, v := range u.Op.Operands() {
					if i > 0 && graph.TypeEqual(v.Type(), inner) {
						w.slot = i
					}
				}
				if w.slot < 0 {
					why = "a write_handle has no operand of the state's type"
					break
				}
				d := u.Op.Operand(w.slot).DefiningOp()
				if d != nil && !f.ours(d) && f.ops[d.Name] && d.NumResults() == 1 && d.NumOperands() > 0 && ops.RankOnly(d.Operand(0).Type(), inner) {
					w.d = d
					agree(d.Operand(0).Type())
				}
				writes = append(writes, w)
			default:
				why = fmt.Sprintf("the handle is used by %s, which the pass does not know", u.Op.Describe())
			}
		}
		if r == nil && why == "" {
			break // nothing to fold
		}
		for _, w := range writes {
			if w.d == nil && why == "" {
				why = fmt.Sprintf("%s stores a value that is not a rank op's result", w.op.Describe())
			}
		}
		for _, rd := range reads {
			if len(rd.others) > 0 && f.mode == "skip" && why == "" {
				why = fmt.Sprintf("%d other users need the read's shape and other-users=skip", len(rd.others))
			}
		}
		if why != "" {
			f.ch.Notes = append(f.ch.Notes, fmt.Sprintf("@%s state %s (handle): not folded: %s", g.Name(), p.Label(), why))
			break
		}
		f.ed.SetInputType(p.Index, &graph.OpaqueType{Text: "!coreai.handle<" + r.String() + ">"})
		for _, rd := range reads {
			rd.val.SetType(r)
			for _, op := range rd.fold {
				log.folded = append(log.folded, op.Describe())
				op.Result(0).ReplaceAllUsesWith(rd.val)
				if err := op.Erase(); err == nil {
					f.ch.OpsRemoved++
				}
			}
			if len(rd.others) > 0 {
				ops := ops.Reshape(f.m, rd.val, inner, ops.PassLoc("fold-io-unsqueeze", rd.op.Loc))
				ops[0].InsertAfter(rd.op)
				ops[1].InsertAfter(ops[0])
				f.ch.OpsAdded += 2
				log.added += len(rd.others)
				for _, u := range rd.others {
					u.Op.SetOperand(u.Index, ops[1].Result(0))
				}
			}
		}
		for _, w := range writes {
			log.folded = append(log.folded, w.d.Describe())
			v := w.op.Operand(w.slot)
			// Re-read the operand: the read folds above may have replaced it
			// (squeeze(unsqueeze(read)) now reads the read itself).
			w.op.SetOperand(w.slot, w.d.Operand(0))
			if !v.HasUses() {
				if err := w.d.Erase(); err == nil {
					f.ch.OpsRemoved++
				}
			}
		}
	}
	f.record(g, p, false, log, h.Type())
}

// ioIndexOnly reports whether every use of v is an index operand, directly
// or through casts and rank ops.
func ioIndexOnly(v *graph.Value, depth int) bool {
	uses := v.Uses()
	if len(uses) == 0 || depth > 8 {
		return false
	}
	for _, u := range uses {
		// Index operands: the op table's coreaiop.Index slots
		// (gather_nd(x, indices), gather_along_axis(x, indices, axis),
		// scatter_nd(x, updates, indices), scatter_along_axis(x, indices, …)).
		name := coreaiop.Base(u.Op.Name)
		if coreaiop.OperandRole(u.Op, u.Index) == coreaiop.Index {
			continue
		}
		if (ioRankOps[name] || name == "coreai.cast") && u.Index == 0 && u.Op.NumResults() == 1 && ioIndexOnly(u.Op.Result(0), depth+1) {
			continue
		}
		return false
	}
	return true
}

// FoldIOUnsqueezePreview says which boundary ops fold-io-unsqueeze would
// fold away: ane check names the pass for a rank op on a graph port only
// then (one home for that decision: the pass itself decides, run on a copy).
type FoldIOUnsqueezePreview struct {
	clone map[*graph.Value]*graph.Value // m's values → the copy's
	ports map[*graph.Operation]bool     // the copy's ops still on a port after the run
}

// PreviewFoldIOUnsqueeze runs fold-io-unsqueeze with the options set
// (assignments as printed; none for the defaults) on a copy of m; m is not
// changed. The copy shares m's attributes and resources, which the pass
// never edits in place.
func PreviewFoldIOUnsqueeze(m *graph.Module, set ...string) (*FoldIOUnsqueezePreview, error) {
	p, err := Build(Spec{Passes: []string{"fold-io-unsqueeze"}, Set: set})
	if err != nil {
		return nil, err
	}
	mapping := map[*graph.Value]*graph.Value{}
	cm := &graph.Module{Op: m.Op.Clone(mapping), Resources: append([]*graph.Resource(nil), m.Resources...),
		ExternalResources: m.ExternalResources, Implicit: m.Implicit}
	if _, err := runFoldIOUnsqueeze(p.Context, cm, p.Steps[0].Options.(*foldIOUnsqueezeOptions)); err != nil {
		return nil, err
	}
	pv := &FoldIOUnsqueezePreview{clone: mapping, ports: map[*graph.Operation]bool{}}
	for _, g := range graph.EntryGraphs(cm, graph.EntryNotPrivate) {
		body, term := g.Body(), g.Terminator()
		if body == nil || term == nil {
			continue
		}
		for _, a := range body.Args() {
			for _, u := range a.Uses() {
				pv.ports[u.Op] = true
			}
		}
		for _, v := range term.Operands() {
			if d := v.DefiningOp(); d != nil {
				pv.ports[d] = true
			}
		}
	}
	return pv, nil
}

// Folds reports whether, after the pass, op (of the module previewed) no
// longer reads a graph input or produces a graph output: folded into the
// port's type, or removed.
func (p *FoldIOUnsqueezePreview) Folds(op *graph.Operation) bool {
	if op.NumResults() == 0 {
		return false
	}
	c := p.clone[op.Result(0)]
	if c == nil {
		return false
	}
	d := c.DefiningOp()
	return d == nil || d.IsErased() || !p.ports[d]
}
