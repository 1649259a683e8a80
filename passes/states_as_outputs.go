package passes

import (
	"fmt"
	"slices"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/record"
)

var statesAsOutputsAbout = About{
	Summary: "return state updates as plain outputs instead of writing the state (the inverse of promote-states)",
	Doc: `An experiment for the blocker the compiler never names (seed arm D): the
state writes (slice_update stored back into a state) are one of the seed's
untested candidates. This pass turns states back into a plain input and a
plain output, so the update is returned rather than written, for both
state forms (coreai-facts §0):

- attribute form: the input loses MutableBuffers.buffer_mutation and the
  output holding the new value (named like the state) is renamed to the
  state's name plus suffix (default "_out", a spelling promote-states pairs
  again);
- handle form: the !coreai.handle<T> input becomes a plain T input; every
  coreai.read_handle of it is replaced by the value the handle holds at
  that point (the input, or the last value written before it in block
  order) and every coreai.write_handle is removed, its token replaced by
  the token it was given; the output that returned the write's token now
  returns the last written value under the new name (a handle written but
  not returned gets a new output). A guess, as in promote-states: block
  order is taken to be the token chain's order (it is in every module
  anefix writes or has seen); a handle used by anything but read_handle and
  write_handle in the graph's body (e.g. passed to a call) is refused.

Which states: the states of the state analysis under the pipeline-wide
states settings (anefix passes), as promote-states sees them: every state
but the key/value caches, which states.include-kv=true adds; names= lists
the states explicitly instead. Only entry
graphs (public, not invoked) are changed.

Numerics: none; the computed values are unchanged. The caller must now feed
each returned value back as the next step's input; the report and the record
(anefix.json) list every pair under plainStates.`,
	Addresses: "seed arm D: untested candidate for the second blocker (the state writes)",
}

// statesAsOutputsOptions are states-as-outputs' options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type statesAsOutputsOptions struct {
	Names  []string
	Suffix string
}

func (o *statesAsOutputsOptions) declare(d *Decls) {
	Declare(d, &o.Names, Option[[]string]{Name: "names", Doc: "the states to turn into plain I/O (comma list of input names); empty: every state but the key/value caches (states.include-kv=true adds them)"})
	Declare(d, &o.Suffix, Option[string]{Name: "suffix", Default: "_out", Doc: "appended to a state's name to name the output carrying its new value", Check: saoCheckSuffix})
}

func saoCheckSuffix(s string) error {
	if s == "" {
		return fmt.Errorf("want a non-empty suffix (the output cannot share the input's name)")
	}
	return nil
}

func runStatesAsOutputs(ctx *Context, m *graph.Module, opts *statesAsOutputsOptions) (*Change, error) {
	suffix := opts.Suffix
	explicit := map[string]bool{}
	for _, n := range opts.Names {
		explicit[n] = true
	}
	ch := &Change{}
	found := map[string]bool{}
	for _, g := range graph.EntryGraphs(m, graph.EntryNotPrivate) {
		// Ports shift as outputs are added; take the names first.
		var todo []graph.StatePair
		for _, p := range ctx.States(g).Pairs {
			if p.Plain() || p.Name == "" {
				continue
			}
			if len(explicit) > 0 && !explicit[p.Name] || len(explicit) == 0 && !p.Selected(ctx.IncludeKV()) {
				continue
			}
			todo = append(todo, p)
		}
		// Attribute states are edited in one batch per graph (per pair, the
		// signature was copied and the ports listed: quadratic in the
		// states, TestWorkLinearInStatePairs); a handle state rewrites the
		// body and adds outputs, so the batch is written before it.
		sc := &saoPorts{g: g}
		for _, p := range todo {
			found[p.Name] = true
			if err := saoOne(sc, p, suffix, ch); err != nil {
				return nil, err
			}
		}
		sc.finish(ch)
	}
	if len(found) == 0 && len(explicit) == 0 {
		ch.Notes = append(ch.Notes, "no state but key/value caches in an entry graph (states.include-kv=true adds them, names= any state); nothing changed")
	}
	for _, n := range opts.Names { // in the order given: a stable message
		if !found[n] {
			return nil, fmt.Errorf("option names: no entry graph has a state input %q (graphs: %s)", n, graph.Signatures(graph.EntryGraphs(m, graph.EntryNotPrivate)))
		}
	}
	return ch, nil
}

// saoPorts is one graph's ports while states-as-outputs edits it: listed
// once, with the attribute edits batched until a handle state needs the
// graph's own signature.
type saoPorts struct {
	g          *graph.Graph
	ins, outs  []graph.Port
	inNames    map[string]int
	outNames   map[string]int
	ed         *graph.PortEdits
	listedOnce bool
	// order is each op's position in the body before any handle state was
	// rewritten (saoHandle erases ops only, so it keeps their order).
	order map[*graph.Operation]int
	// handles is set once a handle state was rewritten (finish).
	handles bool
}

// ports lists g's ports (again after a handle state changed them).
func (sc *saoPorts) ports() {
	if sc.listedOnce {
		return
	}
	sc.ins, sc.outs = sc.g.Inputs(), sc.g.Outputs()
	sc.inNames, sc.outNames = map[string]int{}, map[string]int{}
	for _, p := range sc.ins {
		sc.inNames[p.Name]++
	}
	for _, p := range sc.outs {
		sc.outNames[p.Name]++
	}
	sc.listedOnce = true
}

// flush writes the batched edits to the graph.
func (sc *saoPorts) flush() {
	if sc.ed != nil {
		sc.ed.Apply()
		sc.ed = nil
	}
}

// finish writes the batched edits and, after handle states, removes the
// token chains left with nothing on them: dead (dce keeps create_token,
// which it cannot prove pure). Once per graph: per state it walked the
// body.
func (sc *saoPorts) finish(ch *Change) {
	sc.flush()
	if !sc.handles {
		return
	}
	for _, op := range sc.g.Body().Ops() {
		if op.Name == "coreai.create_token" && op.NumResults() == 1 && !op.Result(0).HasUses() {
			if err := op.Erase(); err == nil {
				ch.OpsRemoved++
			}
		}
	}
}

// saoOne turns state p of sc's graph into a plain input and output.
func saoOne(sc *saoPorts, p graph.StatePair, suffix string, ch *Change) error {
	g := sc.g
	sc.ports()
	in := sc.ins[p.In]
	if n := sc.inNames[in.Name]; n != 1 {
		return fmt.Errorf("graph @%s has %d inputs named %q; cannot tell which state to turn into plain I/O", g.Name(), n, in.Name)
	}
	newName := in.Name + suffix
	if k := sc.outNames[newName]; k > 0 {
		return fmt.Errorf("graph @%s: cannot name the new value of state %s %q: an output already has that name (set states-as-outputs.suffix)", g.Name(), in.Name, newName)
	}
	var out graph.Port
	if p.Out >= 0 {
		out = sc.outs[p.Out]
	}
	inBefore := in.Type.String()
	if graph.IsHandle(in.Type) {
		if sc.ed == nil {
			sc.ed = g.EditPorts()
		}
		added, err := saoHandle(sc, in, out, p.Out >= 0, newName, ch)
		if err != nil {
			return err
		}
		if added {
			sc.listedOnce = false // an output was added
			return nil
		}
		// The ports as saoHandle left them (its edits wait in sc.ed).
		sc.ins[in.Index].Type = g.Body().Arg(in.Index).Type()
		sc.outs[out.Index].Type = g.Terminator().Operand(out.Index).Type()
		sc.outNames[out.Name]--
		sc.outNames[newName]++
		sc.outs[out.Index].Name = newName
		return nil
	}
	if p.Out < 0 {
		return fmt.Errorf("graph @%s: state %s has no output holding its new value (buffer_mutation names %q); nothing to return", g.Name(), in.Name, in.StateOutput)
	}
	if sc.ed == nil {
		sc.ed = g.EditPorts()
	}
	sc.ed.SetInputAttr(in.Index, graph.AttrBufMutation, nil)
	sc.ed.SetOutputAttr(out.Index, graph.AttrName, graph.Str(newName))
	sc.outNames[out.Name]--
	sc.outNames[newName]++
	saoRecord(g, in.Name, newName, inBefore, in.Type.String(), out.Type.String(), out.Type.String(), "attribute", ch)
	return nil
}

func saoRecord(g *graph.Graph, in, out, inBefore, inAfter, outBefore, outAfter, form string, ch *Change) {
	ch.PlainStates = append(ch.PlainStates, record.State{Graph: g.Name(), Input: in, Output: out})
	ch.IOChanges = append(ch.IOChanges,
		record.IOChange{Graph: g.Name(), Port: in, Before: inBefore, After: inAfter,
			Why: fmt.Sprintf("no longer a state (was the %s form): a plain input; feed it output %s of the previous step", form, out)},
		record.IOChange{Graph: g.Name(), Port: out, IsOutput: true, Before: outBefore, After: outAfter,
			Why: fmt.Sprintf("the new value of %s, returned instead of written to the state", in)})
}

// saoHandle removes the handle accesses of input in and returns the last
// written value as output newName (out, when has, is the output that
// returned the write's token). The port edits go to sc.ed; added reports
// that a new output was added (and sc.ed written to the graph first).
func saoHandle(sc *saoPorts, in, out graph.Port, has bool, newName string, ch *Change) (added bool, err error) {
	g, ed := sc.g, sc.ed
	body := g.Body()
	term := g.Terminator()
	if body == nil || term == nil {
		return false, fmt.Errorf("graph @%s has no body ending in %s", g.Name(), graph.TerminatorName(g.Op.Name))
	}
	h := body.Arg(in.Index)
	tt, ok := graph.AsTensor(in.Type)
	if !ok {
		return false, fmt.Errorf("graph @%s: state %s has type %s; want !coreai.handle<tensor<…>>", g.Name(), in.Name, in.Type)
	}
	for _, u := range h.Uses() {
		ok := u.Op.Block() == body && u.Index == 0 &&
			(u.Op.Name == "coreai.read_handle" && u.Op.NumOperands() == 2 && u.Op.NumResults() == 2 ||
				u.Op.Name == "coreai.write_handle" && u.Op.NumOperands() == 3 && u.Op.NumResults() == 1)
		if !ok {
			return false, fmt.Errorf("graph @%s: state %s is used by %s, not only by read_handle/write_handle in the graph's body; states-as-outputs cannot rewrite that access (name the other states with --set states-as-outputs.names=…)",
				g.Name(), in.Name, u.Op.DescribeInGraph())
		}
	}
	inBefore, outBefore := in.Type.String(), ""
	if has {
		outBefore = out.Type.String()
	}
	// The handle's argument becomes the tensor itself: its value before any
	// write.
	ed.SetInputType(in.Index, tt)
	ed.SetInputAttr(in.Index, graph.AttrBufMutation, nil)
	// The accesses in block order, taken before any rewrite: once a read's
	// value is the argument itself, other ops take h as operand 0 too.
	if sc.order == nil {
		sc.order = map[*graph.Operation]int{}
		for i, op := range body.Ops() {
			sc.order[op] = i
		}
	}
	var access []*graph.Operation
	for _, u := range h.Uses() {
		access = append(access, u.Op)
	}
	slices.SortFunc(access, func(a, b *graph.Operation) int { return sc.order[a] - sc.order[b] })
	access = slices.Compact(access)
	cur := h
	for _, op := range access {
		switch op.Name {
		case "coreai.read_handle":
			op.Result(0).ReplaceAllUsesWith(cur)
			op.Result(1).ReplaceAllUsesWith(op.Operand(1))
		case "coreai.write_handle":
			cur = op.Operand(1)
			op.Result(0).ReplaceAllUsesWith(op.Operand(2))
		}
		if err := op.Erase(); err != nil {
			return false, fmt.Errorf("graph @%s: removing %s: %v", g.Name(), op.DescribeInGraph(), err)
		}
		ch.OpsRemoved++
	}
	sc.handles = true
	if has && graph.IsToken(out.Type) {
		term.SetOperand(out.Index, cur)
		ed.SetOutputType(out.Index, cur.Type())
		ed.SetOutputAttr(out.Index, graph.AttrName, graph.Str(newName))
	} else {
		// AddOutput edits the graph's own signature: the batch goes first.
		sc.flush()
		if err := g.AddOutput(cur, graph.Dict(graph.NamedAttr{Name: graph.AttrName, Value: graph.Str(newName)})); err != nil {
			return false, err
		}
		added = true
		if has {
			// The state's output was not its token (kept as it is).
			ch.Notes = append(ch.Notes, fmt.Sprintf("@%s output %s is %s, not the state's token; left as it is, and the new value of %s added as output %s", g.Name(), out.Name, out.Type, in.Name, newName))
		}
	}
	saoRecord(g, in.Name, newName, inBefore, tt.String(), outBefore, cur.Type().String(), "handle", ch)
	return added, nil
}
