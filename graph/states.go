package graph

import (
	"fmt"
	"sort"
	"strings"
)

// The state analysis: which graph inputs are states and which output
// carries each one's new value. It is the one answer every pass, check,
// inspect, the interpreter and synth use, so that a state found by one is a
// state for all of them.
//
// A state travels through a graph's interface in one of three forms
// (coreai-facts.md §0, §2): the attribute form (a tensor input marked
// MutableBuffers.buffer_mutation, the output named by it), the handle form
// (a !coreai.handle input read and written through tokens; the graph
// returns the write's !coreai.token), or a plain pair (an ordinary input
// and output the caller feeds back by hand, as exporters write conv and SSM
// states before promotion). The first two are the export's own contract.
// Plain pairs are found by dataflow first: the output is computed from the
// input and has its type, through
//
//   - an in-place write: slice_update whose destination is the input (KV
//     caches, a stacked per-layer state written layer by layer);
//   - a shift: concat of a slice of the input and something new, or a
//     slice of the input concatenated with something new (a conv window
//     moving by one step, in either order);
//   - an update: ops that keep the state's element count all the way
//     (S' = g·S + k⊗δ, the gated-delta recurrence), possibly through casts
//     and a composite call.
//
// An update (and an output that merely returns the input) is weaker
// evidence than a write or a shift: a residual stream looks the same. It
// pairs only when the names agree too (statenames.go's conventions) or the
// input's name says it is a state. Last, names alone pair what dataflow
// cannot see (an input the graph does not read, returned under the
// convention's name). Whatever stays ambiguous is left unpaired with a note.

// StateForm is how a state crosses the graph's interface.
type StateForm int

const (
	// StateAttribute: a tensor input with MutableBuffers.buffer_mutation.
	StateAttribute StateForm = iota
	// StateHandle: a !coreai.handle input; the graph returns a token.
	StateHandle
	// StatePlain: a plain input and a plain output.
	StatePlain
)

func (f StateForm) String() string {
	switch f {
	case StateAttribute:
		return "attribute"
	case StateHandle:
		return "handle"
	}
	return "plain"
}

// StateEvidence says how the analysis tied an output to its input, strongest
// first.
type StateEvidence int

const (
	// EvidenceContract: the export marks the state (buffer_mutation,
	// a handle input).
	EvidenceContract StateEvidence = iota
	// EvidenceOption: the user named the pair (StateOptions.Pairs).
	EvidenceOption
	// EvidenceWrite: the output is the input written in place (slice_update).
	EvidenceWrite
	// EvidenceShift: the output is a slice of the input concatenated with
	// new data.
	EvidenceShift
	// EvidenceUpdate: the output is computed from the input by ops that keep
	// its element count, confirmed by the names.
	EvidenceUpdate
	// EvidenceIdentity: the output is the input, moved or cast only,
	// confirmed by the names.
	EvidenceIdentity
	// EvidenceName: the names alone (statenames.go).
	EvidenceName
)

func (e StateEvidence) String() string {
	switch e {
	case EvidenceContract:
		return "the export's state contract"
	case EvidenceOption:
		return "named by the user"
	case EvidenceWrite:
		return "dataflow: written in place by slice_update"
	case EvidenceShift:
		return "dataflow: a shifted window (concat of a slice of the input)"
	case EvidenceUpdate:
		return "dataflow: updated from the input, names agree"
	case EvidenceIdentity:
		return "dataflow: the input returned, names agree"
	}
	return "names"
}

// StateKind says what a state holds, as far as names and structure tell.
type StateKind int

const (
	StateUnknownKind StateKind = iota
	// StateRecurrent: a conv window or an SSM / linear-attention state.
	StateRecurrent
	// StateKV: a key/value cache.
	StateKV
)

func (k StateKind) String() string {
	switch k {
	case StateRecurrent:
		return "recurrent"
	case StateKV:
		return "kv-cache"
	}
	return "unknown"
}

// StateOptions tune the analysis. The zero value is the default: pair by
// the contract, by dataflow and by the default naming conventions.
type StateOptions struct {
	// Pairs are explicit "input=output" pairs, taken before anything else.
	Pairs []string
	// NoAuto leaves only the contract and Pairs (no dataflow, no names).
	NoAuto bool
	// Kinds and Affixes replace DefaultStateKinds and DefaultStateAffixes
	// when non-nil.
	Kinds, Affixes []string
}

// ParseStatePair splits an explicit "input=output" pair.
func ParseStatePair(s string) (in, out string, err error) {
	in, out, ok := strings.Cut(s, "=")
	in, out = strings.TrimSpace(in), strings.TrimSpace(out)
	if !ok || in == "" || out == "" {
		return "", "", fmt.Errorf("%q is not input=output (example: conv_state=conv_state_out)", s)
	}
	return in, out, nil
}

// StatePair is one state of a graph.
type StatePair struct {
	In  int // input index
	Out int // output index; -1 when no output carries it (a handle written but not returned, or a marked state whose output is missing)
	// Name is the input's coreai.name (the state's name), OutName the
	// output's.
	Name, OutName string
	Form          StateForm
	Evidence      StateEvidence
	Kind          StateKind
}

// Plain reports whether the pair is not (yet) a runtime state.
func (p StatePair) Plain() bool { return p.Form == StatePlain }

// Selected reports whether a pass that acts on states by default acts on
// this one: every state but key/value caches, which need includeKV.
func (p StatePair) Selected(includeKV bool) bool { return includeKV || p.Kind != StateKV }

// Describe says, for reports, what the pair is and why.
func (p StatePair) Describe() string {
	out := p.OutName
	if p.Out < 0 {
		out = "(no output)"
	}
	return fmt.Sprintf("%s → %s (%s form, %s; %s)", p.Name, out, p.Form, p.Kind, p.Evidence)
}

// StateAnalysis is the answer for one graph.
type StateAnalysis struct {
	Graph *Graph
	// Pairs in input order.
	Pairs []StatePair
	// Notes say what was left unpaired and why (ambiguous matches, an input
	// that looks like a state with no output).
	Notes []string
	// Named lists the Pairs entries of the options this graph has the
	// ports of (or the input of, once it is that state).
	Named []string
	byIn  map[int]int
	byOut map[int]int
}

// ForInput returns the pair of input i.
func (a *StateAnalysis) ForInput(i int) (StatePair, bool) {
	if a == nil {
		return StatePair{}, false
	}
	if k, ok := a.byIn[i]; ok {
		return a.Pairs[k], true
	}
	return StatePair{}, false
}

// ForOutput returns the pair whose new value output k carries.
func (a *StateAnalysis) ForOutput(k int) (StatePair, bool) {
	if a == nil {
		return StatePair{}, false
	}
	if j, ok := a.byOut[k]; ok {
		return a.Pairs[j], true
	}
	return StatePair{}, false
}

// States analyzes g's interface (see the comment at the top of this file).
// A caller that analyzes several graphs of one module uses a StateScope.
func States(g *Graph, o StateOptions) *StateAnalysis { return NewStateScope(o).States(g) }

// StateScope analyzes graphs of one module under one set of options,
// remembering for each called graph's result the inputs it is computed
// from, so that analyzing every graph of a module takes time linear in the
// module however calls nest (a walk into every callee from every caller
// was quadratic in a chain of calls: TestStatesWorkLinearInGraphs). What it
// remembers holds while the graphs are unchanged: make a new scope after
// editing them.
type StateScope struct {
	o  StateOptions
	sn *stateNames
	w  *stateWalker
}

// NewStateScope returns an empty scope analyzing under o.
func NewStateScope(o StateOptions) *StateScope {
	return &StateScope{o: o, sn: newStateNames(o), w: newStateWalker()}
}

// States analyzes g's interface, as the function States does.
func (sc *StateScope) States(g *Graph) *StateAnalysis {
	o, sn := sc.o, sc.sn
	sa := &StateAnalysis{Graph: g, byIn: map[int]int{}, byOut: map[int]int{}}
	body, term := g.Body(), g.Terminator()
	ins, outs := g.Inputs(), g.Outputs()
	pn := newPortNames(sn, ins, outs)
	b := &stateBuilder{sa: sa, g: g, ins: ins, outs: outs, sn: sn, pn: pn}
	add, freeOut := b.add, b.freeOut

	// The contract.
	for _, in := range ins {
		switch {
		case IsHandle(in.Type):
			add(StatePair{In: in.Index, Out: handleOutput(g, in, pn, freeOut), Form: StateHandle, Evidence: EvidenceContract})
		case in.StateOutput != "":
			out := -1
			if p, n := pn.output(in.StateOutput); n == 1 && freeOut(p.Index) {
				out = p.Index
			} else if n != 1 {
				sa.Notes = append(sa.Notes, fmt.Sprintf("@%s state %s names output %q, which %d outputs carry", g.Name(), in.Label(), in.StateOutput, n))
			}
			add(StatePair{In: in.Index, Out: out, Form: StateAttribute, Evidence: EvidenceContract})
		}
	}
	freeIn := b.freeIn

	// The user's pairs.
	for _, s := range o.Pairs {
		inName, outName, err := ParseStatePair(s)
		if err != nil {
			continue // options are checked where they are parsed
		}
		in, nIn := pn.input(inName)
		out, nOut := pn.output(outName)
		if nIn == 1 && nOut == 0 && !freeIn(in.Index) {
			sa.Named = append(sa.Named, s) // promoted already: the output now has the state's name
			continue
		}
		if nIn == 0 || nOut == 0 {
			continue
		}
		sa.Named = append(sa.Named, s)
		switch {
		case nIn > 1 || nOut > 1:
			sa.Notes = append(sa.Notes, fmt.Sprintf("@%s: pair %s names a port that %d inputs / %d outputs share; left unpaired", g.Name(), s, nIn, nOut))
		case !freeIn(in.Index):
			if p, _ := sa.ForInput(in.Index); p.Out != out.Index {
				sa.Notes = append(sa.Notes, fmt.Sprintf("@%s input %s is already a state (%s); pair %s left alone", g.Name(), in.Label(), p.Describe(), s))
			}
		case !freeOut(out.Index):
			sa.Notes = append(sa.Notes, fmt.Sprintf("@%s output %s already carries a state; pair %s left alone", g.Name(), out.Label(), s))
		default:
			add(StatePair{In: in.Index, Out: out.Index, Form: StatePlain, Evidence: EvidenceOption})
		}
	}
	if o.NoAuto || body == nil || term == nil {
		sa.sort()
		return sa
	}

	// Dataflow, confirmed by names where the evidence is weak.
	type cand struct {
		in, out int
		ev      StateEvidence
		named   bool
	}
	var cands []cand
	// The types of the unpaired inputs (no pair is added while outputs are
	// traced), so that an output of no such type is not traced.
	freeTypes := map[string]bool{}
	for _, in := range ins {
		if freeIn(in.Index) && in.Type != nil {
			freeTypes[in.Type.String()] = true
		}
	}
	wanted := func(t Type) bool { return freeTypes[t.String()] }
	for _, out := range outs {
		if !freeOut(out.Index) || out.Index >= term.NumOperands() || !staticTensor(out.Type) || !wanted(out.Type) {
			continue
		}
		var best []cand
		srcs := sc.w.sources(g, term.Operand(out.Index))
		for _, i := range sortedKeys(srcs) { // input order: the notes are deterministic
			ev := srcs[i]
			in := ins[i]
			if !freeIn(i) || !TypeEqual(in.Type, out.Type) {
				continue
			}
			same, affixed := sn.match(in.Name, out.Name)
			named := same || affixed
			if ev >= EvidenceUpdate && !weakOK(sn, pn, in, out, same, affixed) {
				continue // weak evidence: a residual stream or a model output looks the same
			}
			best = append(best, cand{in: i, out: out.Index, ev: ev, named: named})
		}
		if c, ok := pickCand(best, func(c cand) (bool, StateEvidence) { return c.named, c.ev }); ok {
			cands = append(cands, c)
		} else if len(best) > 1 {
			labels := make([]string, len(best))
			for j, c := range best {
				labels[j] = ins[c.in].Label()
			}
			sa.Notes = append(sa.Notes, fmt.Sprintf("@%s output %s is computed from %d inputs of its type (%s); cannot tell which state it updates (name the pair with --set states.pairs=<input>=%s)",
				g.Name(), out.Label(), len(best), strings.Join(labels, ", "), out.Label()))
		}
	}
	byInput := map[int][]cand{}
	for _, c := range cands {
		byInput[c.in] = append(byInput[c.in], c)
	}
	for _, i := range sortedKeys(byInput) {
		cs := byInput[i]
		if c, ok := pickCand(cs, func(c cand) (bool, StateEvidence) { return c.named, c.ev }); ok {
			add(StatePair{In: c.in, Out: c.out, Form: StatePlain, Evidence: c.ev})
			continue
		}
		labels := make([]string, len(cs))
		for j, c := range cs {
			labels[j] = outs[c.out].Label()
		}
		sa.Notes = append(sa.Notes, fmt.Sprintf("@%s input %s is updated into %d outputs (%s); cannot tell which carries its new value (name the pair with --set states.pairs=%s=<output>)",
			g.Name(), ins[i].Label(), len(cs), strings.Join(labels, ", "), ins[i].Label()))
	}

	// Names alone.
	b.pairByNames()
	sa.sort()
	return sa
}

// stateBuilder holds what one StateScope.States call builds from: the
// analysis so far and the graph's ports.
type stateBuilder struct {
	sa        *StateAnalysis
	g         *Graph
	ins, outs []Port
	sn        *stateNames
	pn        *portNames
}

// add records pair p, filling in its port names and, where the names or
// the evidence say it, its kind.
func (b *stateBuilder) add(p StatePair) {
	sa, ins, outs, sn := b.sa, b.ins, b.outs, b.sn
	if p.Out >= 0 {
		p.OutName = outs[p.Out].Name
	}
	p.Name = ins[p.In].Name
	if p.Kind == StateUnknownKind {
		p.Kind = sn.kind(p.Name)
	}
	if p.Kind == StateUnknownKind && (p.Evidence == EvidenceShift || p.Evidence == EvidenceUpdate) {
		p.Kind = StateRecurrent
	}
	sa.byIn[p.In] = len(sa.Pairs)
	if p.Out >= 0 {
		sa.byOut[p.Out] = len(sa.Pairs)
	}
	sa.Pairs = append(sa.Pairs, p)
}

func (b *stateBuilder) freeIn(i int) bool  { _, used := b.sa.byIn[i]; return !used }
func (b *stateBuilder) freeOut(k int) bool { _, used := b.sa.byOut[k]; return !used }

// pairByNames is States' last step, names alone: an input whose name says
// state pairs with the one free output its name matches.
func (b *stateBuilder) pairByNames() {
	sa, g, ins, outs, sn, pn := b.sa, b.g, b.ins, b.outs, b.sn, b.pn
	for _, in := range ins {
		if !b.freeIn(in.Index) || in.Name == "" || IsHandleType(in.Type) || !sn.looksLikeState(in.Name) {
			continue
		}
		var match []Port
		for _, k := range pn.outputsMatching(in.Name) {
			if out := outs[k]; b.freeOut(out.Index) && !IsHandleType(out.Type) {
				match = append(match, out)
			}
		}
		switch {
		case len(match) == 1 && TypeEqual(in.Type, match[0].Type):
			b.add(StatePair{In: in.Index, Out: match[0].Index, Form: StatePlain, Evidence: EvidenceName})
		case len(match) == 1:
			sa.Notes = append(sa.Notes, fmt.Sprintf("@%s input %s (%s) and output %s (%s) are named as one state but differ in type; a state keeps one type, so they are not paired",
				g.Name(), in.Label(), in.Type, match[0].Label(), match[0].Type))
		case len(match) > 1:
			sa.Notes = append(sa.Notes, fmt.Sprintf("@%s input %s matches %d outputs by name (%s); name the pair with --set states.pairs=%s=<output>",
				g.Name(), in.Label(), len(match), someLabels(match), in.Label()))
		default:
			sa.Notes = append(sa.Notes, fmt.Sprintf("@%s input %s looks like a state but no output carries its new value (outputs: %s); left as a plain input",
				g.Name(), in.Label(), someLabels(outs)))
		}
	}
}

// weakOK says whether the names back a weak dataflow match (an update, or
// the input returned unchanged) of in and out: they pair by an affix, out
// is in's successor (h0 → h1), or they share a name that says state; or
// both names say state and neither pairs by name with another port.
func weakOK(sn *stateNames, pn *portNames, in, out Port, same, affixed bool) bool {
	switch {
	case affixed, successor(in.Name, out.Name):
		return true
	case same:
		return sn.looksLikeState(in.Name)
	case !sn.looksLikeState(in.Name) || !sn.looksLikeState(out.Name):
		return false
	}
	for _, k := range pn.outputsMatching(in.Name) {
		if k != out.Index {
			return false
		}
	}
	for _, k := range pn.inputsMatching(out.Name) {
		if k != in.Index {
			return false
		}
	}
	return true
}

// someLabels lists the first few ports by Label, for notes: a note per
// port that listed every port grew quadratically with a graph's ports.
func someLabels(ports []Port) string {
	const most = 8
	if len(ports) <= most {
		return PortLabels(ports)
	}
	return fmt.Sprintf("%s, … %d more", PortLabels(ports[:most]), len(ports)-most)
}

// pickCand returns the one candidate that beats every other: named first,
// then by evidence; false when none or a tie.
func pickCand[C any](cs []C, key func(C) (bool, StateEvidence)) (C, bool) {
	var zero C
	if len(cs) == 0 {
		return zero, false
	}
	better := func(a, b C) bool {
		an, ae := key(a)
		bn, be := key(b)
		if an != bn {
			return an
		}
		return ae < be
	}
	best := 0
	for i := 1; i < len(cs); i++ {
		if better(cs[i], cs[best]) {
			best = i
		}
	}
	for i := range cs {
		if i != best && !better(cs[best], cs[i]) {
			return zero, false
		}
	}
	return cs[best], true
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

func (sa *StateAnalysis) sort() {
	sort.SliceStable(sa.Pairs, func(i, j int) bool { return sa.Pairs[i].In < sa.Pairs[j].In })
	sa.byIn, sa.byOut = map[int]int{}, map[int]int{}
	for k, p := range sa.Pairs {
		sa.byIn[p.In] = k
		if p.Out >= 0 {
			sa.byOut[p.Out] = k
		}
	}
}

func staticTensor(t Type) bool {
	tt, ok := t.(*TensorType)
	return ok && tt.IsStatic()
}

// handleOutput finds the token output of handle input in: the one named by
// its buffer_mutation or its own name, else the one whose value is a
// write_handle of this handle; -1 when none is returned.
func handleOutput(g *Graph, in Port, pn *portNames, free func(int) bool) int {
	for _, name := range []string{in.StateOutput, in.Name} {
		if name == "" {
			continue
		}
		if p, n := pn.output(name); n == 1 && IsToken(p.Type) && free(p.Index) {
			return p.Index
		}
	}
	term, body := g.Terminator(), g.Body()
	if term == nil || body == nil || in.Index >= len(body.Args()) {
		return -1
	}
	// The first token output returning a write_handle of h, found from
	// h's uses (not by looking at every output per handle input).
	h, best := body.Arg(in.Index), -1
	for _, u := range h.Uses() {
		d := u.Op
		if u.Index != 0 || baseOp(d.Name) != "write_handle" || d.NumResults() == 0 {
			continue
		}
		for _, ru := range d.Result(0).Uses() {
			k := ru.Index
			if ru.Op == term && k < len(pn.outs) && IsToken(pn.outs[k].Type) && free(k) && (best < 0 || k < best) {
				best = k
			}
		}
	}
	return best
}

// baseOp is a coreai op name without "coreai." and "decomposable.".
func baseOp(name string) string {
	name = strings.TrimPrefix(name, "coreai.")
	return strings.TrimPrefix(name, "decomposable.")
}

// stateWalker follows a returned value backwards to the inputs it is
// computed from, keeping the strongest evidence per input. A call is
// crossed through the callee's summary: the inputs of the callee each of
// its results is computed from, walked once per scope and remembered.
type stateWalker struct {
	summaries map[summaryKey]map[int]StateEvidence
	busy      map[summaryKey]bool // summaries being walked (a recursive call is not followed)
	depth     int                 // summaries being walked, nested
}

type summaryKey struct {
	graph  *Operation
	result int
}

func newStateWalker() *stateWalker {
	return &stateWalker{summaries: map[summaryKey]map[int]StateEvidence{}, busy: map[summaryKey]bool{}}
}

// stateWalkLimit bounds one walk: a returned value is traced through at
// most this many values (a state's update is a short chain; a walk that
// runs long is wandering through the rest of the model).
const stateWalkLimit = 1 << 14

// stateCallDepth bounds how deeply nested calls are followed (exports nest
// composites a few levels; the bound keeps the walk's own recursion small).
const stateCallDepth = 64

// callee is the graph beside g named name, or nil. The look-up goes through
// the enclosing block's table of graphs, built once for all walks (a table
// per analysis made analyzing every graph of a module quadratic in the
// graphs: TestStatesWorkLinearInGraphs).
func callee(g *Graph, name string) *Graph {
	if b := g.Op.Block(); b != nil {
		if o := b.graphNamed(name); o != nil {
			return &Graph{Op: o}
		}
	}
	return nil
}

// summary is what result ri of cg is computed from, by cg's input index.
func (w *stateWalker) summary(cg *Graph, ri int) map[int]StateEvidence {
	k := summaryKey{cg.Op, ri}
	if s, ok := w.summaries[k]; ok {
		return s
	}
	t := cg.Terminator()
	if w.busy[k] || w.depth >= stateCallDepth || cg.Body() == nil || t == nil || ri < 0 || ri >= t.NumOperands() {
		return nil // not remembered: a shallower walk may follow it
	}
	w.busy[k] = true
	w.depth++
	s := w.sources(cg, t.Operand(ri))
	w.depth--
	delete(w.busy, k)
	w.summaries[k] = s
	return s
}

func elemCount(t Type) (int64, bool) {
	tt, ok := t.(*TensorType)
	if !ok {
		return 0, false
	}
	n, err := tt.ElementCount() // an error for a dynamic shape or a count past int64
	return n, err == nil
}

// sources returns the inputs of g that v (a value in g) is computed from
// along state-preserving paths, with the strongest evidence of a path from
// each.
func (w *stateWalker) sources(g *Graph, v *Value) map[int]StateEvidence {
	out := map[int]StateEvidence{}
	body := g.Body()
	type walkItem struct {
		v  *Value
		ev StateEvidence // the strongest marker passed so far (EvidenceIdentity: none yet)
	}
	seen := map[walkItem]bool{}
	work := []walkItem{{v: v, ev: EvidenceIdentity}}
	strongest := func(a, b StateEvidence) StateEvidence { return min(a, b) }
	for steps := 0; len(work) > 0 && steps < stateWalkLimit; steps++ {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		if it.v == nil || seen[it] {
			continue
		}
		seen[it] = true
		if blk, i, ok := it.v.BlockArg(); ok {
			if blk == body {
				if old, had := out[i]; !had || it.ev < old {
					out[i] = it.ev
				}
			}
			continue // an argument of a nested block: not followed
		}
		d := it.v.DefiningOp()
		if d == nil {
			continue
		}
		countWork(workOps, 1)
		push := func(x *Value, ev StateEvidence) { work = append(work, walkItem{v: x, ev: ev}) }
		if name, ok := Callee(d); ok {
			if cg := callee(g, name); cg != nil {
				sum := w.summary(cg, it.v.ResultIndex())
				for _, j := range sortedKeys(sum) {
					if j < d.NumOperands() {
						push(d.Operand(j), strongest(it.ev, sum[j]))
					}
				}
			}
			continue
		}
		switch baseOp(d.Name) {
		case "cast", "reshape", "expand_dims", "shrink_dims", "transpose":
			if d.NumOperands() > 0 {
				push(d.Operand(0), it.ev)
			}
			continue
		case "slice_update":
			if d.NumOperands() > 0 {
				push(d.Operand(0), strongest(it.ev, EvidenceWrite))
			}
			continue
		case "concat": // the kept part of the window, then the new data
			for _, x := range d.Operands() {
				if s := x.DefiningOp(); s != nil && baseOp(s.Name) == "slice" && s.NumOperands() > 0 {
					push(s.Operand(0), strongest(it.ev, EvidenceShift))
				}
			}
			continue
		case "slice": // the window grown by the new data, then cut
			if d.NumOperands() > 0 {
				if c := d.Operand(0).DefiningOp(); c != nil && baseOp(c.Name) == "concat" {
					for _, x := range c.Operands() {
						push(x, strongest(it.ev, EvidenceShift))
					}
				}
			}
			continue
		case "read_handle", "constant":
			continue
		}
		if len(d.Regions) > 0 {
			continue // region results come from yields; not followed
		}
		n, ok := elemCount(it.v.Type())
		if !ok {
			continue
		}
		for _, x := range d.Operands() {
			if m, ok := elemCount(x.Type()); ok && m == n {
				push(x, strongest(it.ev, EvidenceUpdate))
			}
		}
	}
	return out
}

// StatesOf analyzes every graph of m with a body, keyed by graph op.
func StatesOf(m *Module, o StateOptions) map[*Operation]*StateAnalysis {
	out := map[*Operation]*StateAnalysis{}
	sc := NewStateScope(o)
	for _, g := range m.Graphs() {
		if g.Body() != nil {
			out[g.Op] = sc.States(g)
		}
	}
	return out
}
