package passes

import (
	"fmt"
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/record"
)

var promoteStatesAbout = About{
	Summary: "turn conv/recurrent state input/output pairs into runtime states (MutableBuffers.buffer_mutation)",
	Doc: `A hybrid export that carries its conv and recurrent state as a plain
input and a plain output leaves the runtime's state binding out: the runtime
binds only ports marked as states, so the caller has to copy the state back
in by hand every step (and Apple's static engine binds only key_cache and
value_cache). This pass marks each such pair the way coreai-torch and
mlx2coreai emit states (coreai-facts §2): the input gets
MutableBuffers.buffer_mutation = "<state name>" and the output that holds the
new value is renamed (coreai.name) to the state's name, which is the input's
name.

Which pairs: the plain pairs of the state analysis, under the
pipeline-wide states settings (anefix passes lists them; --set
states.pairs=in=out names a pair, states.include-kv=true adds the key/value
caches, states.auto=false keeps only the named pairs). The analysis pairs
by dataflow first (the output is the input written in place, shifted, or
updated, with the same type) and by the naming conventions second
(conv_state → new_conv_state, conv_state_out, updated_conv_cache,
recState → newRecState, past_key_values.0.key → present.0.key,
layers.3.conv_state → layers.3.conv_state_out); what it cannot tell apart
stays unpaired with a note. Inputs that are already states are left alone,
so the pass is idempotent. Only entry graphs (public, not invoked) are
examined.

A named pair whose input and output types differ is refused with an error
naming the graph, the ports and both types: a state has one type.

form= chooses the state form (coreai-facts §0). attribute is the
above. handle also types the input !coreai.handle<T>, reads it once at the
top with coreai.read_handle and writes the new value with
coreai.write_handle before coreai.output, which then returns the write's
!coreai.token under the state's name; the input keeps
MutableBuffers.buffer_mutation, as coreai-torch's make_stateful output
does. The accesses join the graph's token chain when it has one (the read
right after its coreai.create_token, the write after the last token in
block order), else start one. Guess, unconfirmed: coreai-torch's printed
tests show make_stateful reading every state at the top and writing each
where its value is ready, but not how it orders the tokens of several
states; anefix's order is one valid chain. auto (the default) takes the form of the
states the graph already has (Apple's iOS exports carry the KV cache as
handles), and the attribute form when it has none or only attribute states.

Numerics: none; the computed values are unchanged. The caller must now bind
the states instead of feeding/reading the pair; the report lists every
promotion.`,
	Addresses: "conv/rec carried as plain I/O leave the runtime's state binding out (seed arm A vs B)",
}

// promoteStatesOptions are promote-states' options; declare
// declares each (name, typed default, doc, check) for the pipeline. Which pairs it promotes is the pipeline's states
// setting (settings.go).
type promoteStatesOptions struct {
	Form string
}

func (o *promoteStatesOptions) declare(d *Decls) {
	Declare(d, &o.Form, Option[string]{Name: "form", Default: "auto", Doc: "how a promoted state is written: attribute (a tensor input marked MutableBuffers.buffer_mutation), handle (a !coreai.handle input read and written through tokens, as make_stateful prints it), or auto (handle when the graph already has a handle state, else attribute)", Values: []string{"auto", "attribute", "handle"}})
}

// psFormFor is the state form new states of g get under option form.
func psFormFor(form string, g *graph.Graph) string {
	if form != "auto" {
		return form
	}
	for _, in := range g.Inputs() {
		if in.IsState && graph.IsHandle(in.Type) {
			return "handle"
		}
	}
	return "attribute"
}

func runPromoteStates(ctx *Context, m *graph.Module, opts *promoteStatesOptions) (*Change, error) {
	ch := &Change{}
	graphs := graph.EntryGraphs(m, graph.EntryNotPrivate)
	// Analyzed before anything changes, so that a bad named pair stops
	// the pass with the module as it was.
	analyses := make([]*graph.StateAnalysis, len(graphs))
	named := map[string]bool{}
	for i, g := range graphs {
		analyses[i] = ctx.States(g)
		for _, n := range analyses[i].Named {
			named[n] = true
		}
	}
	for _, p := range ctx.Settings.States.Pairs { // in the order given: a stable message
		if !named[p.String()] {
			return nil, fmt.Errorf("setting states.pairs: no entry graph has input %q and output %q (inputs/outputs: %s)", p.In, p.Out, graph.Signatures(graphs))
		}
	}
	for i, g := range graphs {
		sa := analyses[i]
		ch.Notes = append(ch.Notes, sa.Notes...)
		form := psFormFor(opts.Form, g)
		ins, outs := g.Inputs(), g.Outputs()
		outsNamed := map[string][]int{}
		for _, o := range outs {
			outsNamed[o.Name] = append(outsNamed[o.Name], o.Index)
		}
		var pairs []graph.StatePair
		for _, p := range sa.Pairs {
			if !p.Plain() || p.Out < 0 || p.Evidence != graph.EvidenceOption && !p.Selected(ctx.IncludeKV()) {
				continue
			}
			if err := psCheck(g, ins[p.In], outs[p.Out], outsNamed); err != nil {
				return nil, err
			}
			pairs = append(pairs, p)
		}
		// One signature write per graph, one token chain search: per pair
		// they made the pass quadratic in the pairs (TestWorkLinearInStatePairs).
		ed := g.EditPorts()
		hc := &psHandleChain{}
		for _, p := range pairs {
			if err := psPromote(g, ed, hc, ins[p.In], outs[p.Out], p, form, ch); err != nil {
				return nil, err
			}
		}
		ed.Apply()
	}
	return ch, nil
}

// psCheck refuses a pair that cannot become a state (only a named pair can
// be one: the analysis pairs nothing else whose types differ), before the
// graph changes.
func psCheck(g *graph.Graph, in, out graph.Port, outsNamed map[string][]int) error {
	if !graph.TypeEqual(in.Type, out.Type) {
		return fmt.Errorf("graph @%s: input %s is %s but output %s is %s; a state keeps one type, so this pair cannot be a state (fix the export, or name the right pair with --set states.pairs=in=out, or --disable promote-states)",
			g.Name(), in.Name, in.Type, out.Label(), out.Type)
	}
	for _, k := range outsNamed[in.Name] {
		if k != out.Index && in.Name != "" {
			return fmt.Errorf("graph @%s: cannot rename output %s to state name %s: output %d already has that name", g.Name(), out.Name, in.Name, k)
		}
	}
	if _, ok := in.Type.(*graph.TensorType); !ok {
		return fmt.Errorf("graph @%s: input %s (%s) is not a tensor and cannot be a state", g.Name(), in.Label(), in.Type)
	}
	return nil
}

// psPromote applies the state contract to one checked pair.
func psPromote(g *graph.Graph, ed *graph.PortEdits, hc *psHandleChain, in, out graph.Port, p graph.StatePair, form string, ch *Change) error {
	if in.Name == "" {
		ch.Notes = append(ch.Notes, fmt.Sprintf("@%s input %s pairs with output %s (%s) but has no coreai.name; a state is bound by name, so it stays a plain pair", g.Name(), in.Label(), out.Label(), p.Evidence))
		return nil
	}
	inAfter, outAfter := in.Type, out.Type
	if form == "handle" {
		var err error
		if inAfter, outAfter, err = psToHandle(g, ed, hc, in, out); err != nil {
			return err
		}
	}
	ed.SetInputAttr(in.Index, graph.AttrBufMutation, graph.Str(in.Name))
	ed.SetOutputAttr(out.Index, graph.AttrName, graph.Str(in.Name))
	ch.States = append(ch.States, record.State{Graph: g.Name(), Input: in.Name, Output: out.Name})
	how := fmt.Sprintf("MutableBuffers.buffer_mutation = %q; paired by %s", in.Name, p.Evidence)
	if form == "handle" {
		how += ", read and written through a handle"
	}
	ch.IOChanges = append(ch.IOChanges,
		record.IOChange{Graph: g.Name(), Port: in.Name, Before: in.Type.String(), After: inAfter.String(),
			Why: fmt.Sprintf("became state %s (%s)", in.Name, how)},
		record.IOChange{Graph: g.Name(), Port: out.Name, IsOutput: true, Before: out.Type.String(), After: outAfter.String(),
			Why: fmt.Sprintf("renamed to %s: the new value of state %s", in.Name, in.Name)})
	return nil
}

// psToHandle rewrites one tensor state pair into the handle form: the input
// becomes !coreai.handle<T>, read once at the top of the body, and the
// output returns the token of a write_handle of its value. It returns the
// new input and output types.
// psHandleChain is what psToHandle keeps between the pairs of one graph:
// the chain's start and the token the next write_handle follows (the
// previous write's), so the block is searched for them once per graph, not
// per pair.
type psHandleChain struct {
	start *graph.Operation // the chain's create_token
	tail  *graph.Value
}

func psToHandle(g *graph.Graph, ed *graph.PortEdits, hc *psHandleChain, in, out graph.Port) (graph.Type, graph.Type, error) {
	body, term := g.Body(), g.Terminator()
	tt, ok := in.Type.(*graph.TensorType)
	if body == nil || term == nil || !ok || out.Index >= term.NumOperands() {
		return nil, nil, fmt.Errorf("graph @%s: input %s (%s) cannot be made a handle state: the graph needs a body ending in %s and a tensor-typed state", g.Name(), in.Name, in.Type, graph.TerminatorName(g.Op.Name))
	}
	h := body.Arg(in.Index)
	uses := append([]graph.Use(nil), h.Uses()...)
	// Join the graph's token chain at its start, or start one.
	start := hc.start
	for op := body.First(); start == nil && op != nil; op = op.Next() {
		if op.Name == "coreai.create_token" && op.NumResults() == 1 {
			start = op
		}
	}
	var loc graph.Loc = graph.Unknown
	if first := body.First(); first != nil {
		loc = first.Loc
	}
	if start == nil {
		start = graph.NewOp("coreai.create_token", nil, []graph.Type{graph.TokenType}, nil, loc)
		body.Prepend(start)
	}
	hc.start = start
	tok := start.Result(0)
	later := append([]graph.Use(nil), tok.Uses()...)
	rd := graph.NewOp("coreai.read_handle", []*graph.Value{h, tok}, []graph.Type{tt, graph.TokenType}, nil, loc)
	rd.InsertAfter(start)
	for _, u := range later {
		u.Op.SetOperand(u.Index, rd.Result(1))
	}
	for _, u := range uses {
		u.Op.SetOperand(u.Index, rd.Result(0))
	}
	// The write goes after the last token nothing but the terminator reads:
	// once this graph has a write of ours, that write's token (it is last
	// in block order, and the reads inserted since only lengthen the chain
	// before it).
	tail := hc.tail
	if tail == nil {
		tail = psChainTail(body, term, rd.Result(1))
	}
	wr := graph.NewOp("coreai.write_handle", []*graph.Value{h, term.Operand(out.Index), tail}, []graph.Type{graph.TokenType}, nil, term.Loc)
	wr.InsertBefore(term)
	term.SetOperand(out.Index, wr.Result(0))
	hc.tail = wr.Result(0)
	ht := graph.HandleOf(tt)
	ed.SetInputType(in.Index, ht)
	ed.SetOutputType(out.Index, graph.TokenType)
	return ht, graph.TokenType, nil
}

// psChainTail is the last token in body that nothing but term reads, or
// tail when there is none.
func psChainTail(body *graph.Block, term *graph.Operation, tail *graph.Value) *graph.Value {
	for _, op := range body.Ops() {
		for _, r := range op.Results() {
			if !graph.IsToken(r.Type()) {
				continue
			}
			free := true
			for _, u := range r.Uses() {
				if u.Op != term {
					free = false
				}
			}
			if free {
				tail = r
			}
		}
	}
	return tail
}
