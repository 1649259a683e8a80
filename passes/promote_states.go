package passes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/internal/statenames"
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

Pairs are found by name. Names are split into words (snake_case, camelCase,
digits: conv_state_0, convState0 and conv-state-0 are the same words; plural
"states" counts as "state"). A candidate input has a state word and a kind
word (option kinds: conv, ssm, rec, recurrent by default); its output is the
one whose words are the input's words plus affixes (option affixes: out,
new, next, updated, output, upd), e.g. conv_state → conv_state_out,
new_conv_state, conv_state_new, convStateOut; rec_state_3 →
new_rec_state_3. An output with exactly the input's name also pairs.
key_cache/value_cache (often already states) are left alone unless
include-kv=true, which also pairs key_cache with new_k_cache as Apple's iOS
builders name them. names=in=out,… names pairs explicitly (used before and
besides the automatic match; auto=false turns the latter off).

A pair whose input and output types differ is refused with an error naming
the graph, the ports and both types: a state has one type. Several outputs
matching one input is an error too (name the pair with names=). Inputs that
are already states are skipped, so the pass is idempotent. Only entry graphs
(public, not invoked) are examined.

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
	Options: []OptionSpec{
		{Name: "names", Kind: OptStringList, Default: "", Doc: "explicit pairs in=out (comma-separated), promoted first", Check: psCheckNames},
		{Name: "auto", Kind: OptBool, Default: "true", Doc: "match pairs by name (kinds, affixes)"},
		{Name: "kinds", Kind: OptStringList, Default: "conv,ssm,rec,recurrent", Doc: "name words that mark a recurrent state input (together with state/states)"},
		{Name: "affixes", Kind: OptStringList, Default: "out,new,next,updated,output,upd", Doc: "words an output name adds to its state's name"},
		{Name: "include-kv", Kind: OptBool, Default: "false", Doc: "also promote key/value cache pairs (key_cache ↔ new_k_cache, …)"},
		{Name: "form", Kind: OptString, Default: "auto", Doc: "how a promoted state is written: attribute (a tensor input marked MutableBuffers.buffer_mutation), handle (a !coreai.handle input read and written through tokens, as make_stateful prints it), or auto (handle when the graph already has a handle state, else attribute)", Values: []string{"auto", "attribute", "handle"}},
	},
}

// PromoteStatesOptions are promote-states' options (declared in
// promoteStatesAbout).
type PromoteStatesOptions struct {
	Names     []string `opt:"names"`
	Auto      bool     `opt:"auto"`
	Kinds     []string `opt:"kinds"`
	Affixes   []string `opt:"affixes"`
	IncludeKV bool     `opt:"include-kv"`
	Form      string   `opt:"form"`
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

func runPromoteStates(m *graph.Module, opts *PromoteStatesOptions) (*Change, error) {
	pm := statenames.New(opts.Kinds, opts.Affixes, opts.IncludeKV)
	if err := promoteStatesAbout.CheckValue("form", opts.Form); err != nil {
		return nil, err
	}
	type pair struct{ in, out string }
	var explicit []pair
	for _, s := range opts.Names {
		in, out, ok := strings.Cut(s, "=")
		in, out = strings.TrimSpace(in), strings.TrimSpace(out)
		if !ok || in == "" || out == "" {
			return nil, fmt.Errorf("option names: %q is not in=out (example: conv_state=conv_state_out)", s)
		}
		explicit = append(explicit, pair{in, out})
	}
	ch := &Change{}
	graphs := graph.EntryGraphs(m, graph.EntryNotPrivate)
	for _, p := range explicit {
		found := false
		for _, g := range graphs {
			ok, err := psExplicit(g, p.in, p.out, psFormFor(opts.Form, g), ch)
			if err != nil {
				return nil, err
			}
			found = found || ok
		}
		if !found {
			return nil, fmt.Errorf("option names: no entry graph has input %q and output %q (inputs/outputs: %s)", p.in, p.out, graph.Signatures(graphs))
		}
	}
	if opts.Auto {
		for _, g := range graphs {
			if err := psAuto(g, pm, opts.Form, ch); err != nil {
				return nil, err
			}
		}
	}
	return ch, nil
}

// psExplicit promotes the named pair in g. It reports whether g has the
// input (an input already promoted to that state counts: idempotence).
func psExplicit(g *graph.Graph, inName, outName, form string, ch *Change) (bool, error) {
	in, nIn := graph.FindPort(g.Inputs(), inName)
	if nIn == 0 {
		return false, nil
	}
	if nIn > 1 {
		return false, fmt.Errorf("graph @%s has %d inputs named %q; cannot tell which to promote", g.Name(), nIn, inName)
	}
	if in.IsState {
		if in.StateOutput != inName {
			ch.Notes = append(ch.Notes, fmt.Sprintf("@%s input %s is already a state (buffer_mutation = %q); left alone", g.Name(), inName, in.StateOutput))
		}
		return true, nil
	}
	out, nOut := graph.FindPort(g.Outputs(), outName)
	if nOut != 1 {
		return false, fmt.Errorf("option names: graph @%s has %d outputs named %q (outputs: %s)", g.Name(), nOut, outName, graph.PortLabels(g.Outputs()))
	}
	return true, psPromote(g, in, out, form, ch)
}

// psAuto promotes every name-matched pair of g.
func psAuto(g *graph.Graph, pm *statenames.Matcher, form string, ch *Change) error {
	for _, in := range g.Inputs() {
		if in.IsState || in.Name == "" || graph.IsHandleType(in.Type) || !pm.Candidate(in.Name) {
			continue
		}
		matches := pm.OutputsFor(g, in)
		switch len(matches) {
		case 0:
			ch.Notes = append(ch.Notes, fmt.Sprintf("@%s input %s looks like a state but no output matches it (outputs: %s); left as a plain input", g.Name(), in.Name, graph.PortLabels(g.Outputs())))
			continue
		case 1:
		default:
			names := make([]string, len(matches))
			for i, o := range matches {
				names[i] = o.Name
			}
			sort.Strings(names)
			return fmt.Errorf("graph @%s: input %s matches %d outputs (%s); name the pair with --set promote-states.names=%s=<output>",
				g.Name(), in.Name, len(matches), strings.Join(names, ", "), in.Name)
		}
		if err := psPromote(g, in, matches[0], psFormFor(form, g), ch); err != nil {
			return err
		}
	}
	return nil
}

// psPromote applies the state contract to one pair after checking it.
func psPromote(g *graph.Graph, in, out graph.Port, form string, ch *Change) error {
	if out.IsState {
		return fmt.Errorf("graph @%s: output %s already holds a state; cannot pair it with input %s", g.Name(), out.Name, in.Name)
	}
	if !graph.TypeEqual(in.Type, out.Type) {
		return fmt.Errorf("graph @%s: input %s is %s but output %s is %s; a state keeps one type, so this pair cannot be a state (fix the export, or name the right pair with --set promote-states.names=in=out, or --disable promote-states)",
			g.Name(), in.Name, in.Type, out.Name, out.Type)
	}
	for _, o := range g.Outputs() {
		if o.Index != out.Index && o.Name == in.Name {
			return fmt.Errorf("graph @%s: cannot rename output %s to state name %s: output %d already has that name", g.Name(), out.Name, in.Name, o.Index)
		}
	}
	inAfter, outAfter := in.Type, out.Type
	if form == "handle" {
		var err error
		if inAfter, outAfter, err = psToHandle(g, in, out); err != nil {
			return err
		}
	}
	g.SetInputAttr(in.Index, graph.AttrBufMutation, graph.Str(in.Name))
	g.SetOutputAttr(out.Index, graph.AttrName, graph.Str(in.Name))
	ch.States = append(ch.States, StatePromotion{Graph: g.Name(), Input: in.Name, Output: out.Name})
	how := fmt.Sprintf("MutableBuffers.buffer_mutation = %q", in.Name)
	if form == "handle" {
		how += ", read and written through a handle"
	}
	ch.IOChanges = append(ch.IOChanges,
		IOChange{Graph: g.Name(), Port: in.Name, Before: in.Type.String(), After: inAfter.String(),
			Why: fmt.Sprintf("became state %s (%s)", in.Name, how)},
		IOChange{Graph: g.Name(), Port: out.Name, IsOutput: true, Before: out.Type.String(), After: outAfter.String(),
			Why: fmt.Sprintf("renamed to %s: the new value of state %s", in.Name, in.Name)})
	return nil
}

// psToHandle rewrites one tensor state pair into the handle form: the input
// becomes !coreai.handle<T>, read once at the top of the body, and the
// output returns the token of a write_handle of its value. It returns the
// new input and output types.
func psToHandle(g *graph.Graph, in, out graph.Port) (graph.Type, graph.Type, error) {
	body, term := g.Body(), g.Terminator()
	tt, ok := in.Type.(*graph.TensorType)
	if body == nil || term == nil || !ok || out.Index >= term.NumOperands() {
		return nil, nil, fmt.Errorf("graph @%s: input %s (%s) cannot be made a handle state: the graph needs a body ending in %s and a tensor-typed state", g.Name(), in.Name, in.Type, graph.TerminatorName(g.Op.Name))
	}
	h := body.Arg(in.Index)
	uses := append([]graph.Use(nil), h.Uses()...)
	// Join the graph's token chain at its start, or start one.
	var start *graph.Operation
	for _, op := range body.Ops() {
		if op.Name == "coreai.create_token" && op.NumResults() == 1 {
			start = op
			break
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
	// The write goes after the last token nothing but the terminator reads.
	tail := rd.Result(1)
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
	wr := graph.NewOp("coreai.write_handle", []*graph.Value{h, term.Operand(out.Index), tail}, []graph.Type{graph.TokenType}, nil, term.Loc)
	wr.InsertBefore(term)
	term.SetOperand(out.Index, wr.Result(0))
	ht := graph.HandleOf(tt)
	g.SetInputType(in.Index, ht)
	g.SetOutputType(out.Index, graph.TokenType)
	return ht, graph.TokenType, nil
}

// psCheckNames rejects a names entry that is not in=out, at --set time.
func psCheckNames(v any) error {
	list, _ := v.([]string)
	for _, s := range list {
		in, out, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(in) == "" || strings.TrimSpace(out) == "" {
			return fmt.Errorf("%q is not in=out (example: conv_state=conv_state_out)", s)
		}
	}
	return nil
}
