package graph

// IslandOptions choose how FloatIslands groups values. Three analyses use
// it, and their rules differ on purpose:
//
//   - strip-fp32-casts (passes/strip_fp32_casts.go) retypes whole islands, so
//     an island must hold every value that has to change type together:
//     Member is f32 including state handles of f32, Callee follows
//     coreai.invoke / func.call into the callee's arguments and results (a
//     private composite's signature changes with its caller), and States
//     joins a state input with the output holding its new value (every
//     pair the state analysis finds, plain pairs included: promote-states
//     later needs both sides of one type).
//   - inspect (graph/inspect) describes each graph on its own: Member is an
//     f32 element type, and ConstantsApart keeps a constant shared by two
//     islands (an eps, a scale) from welding them into one report entry.
//   - ane check's element-type rule (passes/anefacts/islands.go) asks what the
//     Neural Engine cannot hold, so Member is any non-ANE element type,
//     SkipOperand leaves out parameter and storage slots (not data), and
//     CastsJoin lets a cast between two non-ANE types (f32 to i64) stay one
//     island; a cast from an ANE type is a shore either way.
//
// Common to all: a graph's terminator is a shore (returning two values does
// not make them one island), and an op joins its member operands and results.
type IslandOptions struct {
	// Member says which values are island values (required).
	Member func(*Value) bool
	// SkipOperand, when set, leaves operand i of op out of every island.
	SkipOperand func(op *Operation, i int) bool
	// CastsJoin makes a coreai.cast join its member operand and result;
	// without it a cast joins nothing (it is an island's shore).
	CastsJoin bool
	// ConstantsApart: a value made from nothing (an op with no operands and
	// no regions) joins only the island of its first user that is neither a
	// cast nor a terminator, not every island that reads it.
	ConstantsApart bool
	// Callee, when set, returns the graph a call op calls (nil for other
	// ops); a call then joins each member operand with the callee's
	// argument and each member result with the callee's returned value,
	// instead of joining its own operands and results.
	Callee func(op *Operation) *Graph
	// States, when set, joins each state input with the output carrying
	// its new value, as this state analysis (states.go) of each graph
	// pairs them: the two must keep one type. A caller with options only
	// passes NewStateScope(o).States (one scope for all graphs: callees
	// are summarized once); a pass pipeline passes the analysis it has.
	States func(*Graph) *StateAnalysis
	// Seed values are noted first, in order (inspect numbers islands by
	// value definition order, results before an op's region arguments).
	Seed []*Value
	// Ties, when set, returns groups of an op's values that must keep one
	// element type although no op reads one to write the other: a region
	// op's results and what its regions yield, a loop's carried values and
	// its regions' arguments (graph/coreaiop.Ties knows the coreai region
	// ops). The member values of each group join one island.
	Ties func(op *Operation) [][]*Value
}

// Islands is FloatIslands' answer: connected sets of member values.
type Islands struct {
	sets  *valueSets
	index map[*Value]int // root → island number, built by Index
	// Values lists every member value once, in the order first seen: seeds,
	// then per op in walk order its regions' block arguments, operands and
	// results. Island order follows it.
	Values []*Value
}

// Has reports whether v is an island value.
func (is *Islands) Has(v *Value) bool { return is.sets.Has(v) }

// Root is the representative of v's island: the same for every value of one
// island. v must be an island value (Has).
func (is *Islands) Root(v *Value) *Value { return is.sets.Find(v) }

// Count is the number of islands.
func (is *Islands) Count() int {
	is.number()
	return len(is.index)
}

// Index numbers v's island from 0, in the order of each island's first
// value in Values; v must be an island value (Has).
func (is *Islands) Index(v *Value) int {
	is.number()
	return is.index[is.sets.Find(v)]
}

func (is *Islands) number() {
	if is.index != nil {
		return
	}
	is.index = map[*Value]int{}
	for _, v := range is.Values {
		r := is.sets.Find(v)
		if _, ok := is.index[r]; !ok {
			is.index[r] = len(is.index)
		}
	}
}

// FloatIslands groups the member values of graphs (each walked with its
// nested regions) into islands: values connected through the ops that read
// or write them. See IslandOptions for the rules and why they vary.
func FloatIslands(graphs []*Graph, o IslandOptions) *Islands {
	is := &Islands{sets: NewValueSets()}
	note := func(v *Value) {
		if !is.sets.Has(v) {
			is.sets.Add(v)
			is.Values = append(is.Values, v)
		}
	}
	for _, v := range o.Seed {
		if o.Member(v) {
			note(v)
		}
	}
	constant := func(v *Value) bool {
		d := v.DefiningOp()
		return d != nil && d.NumOperands() == 0 && len(d.Regions) == 0
	}
	for _, g := range graphs {
		root := g.Op
		g.Op.Walk(func(op *Operation) bool {
			for _, r := range op.Regions {
				for _, b := range r.Blocks {
					for _, a := range b.Args() {
						if o.Member(a) {
							note(a)
						}
					}
				}
			}
			if op == root {
				return true
			}
			var vals []*Value
			for i, v := range op.Operands() {
				if v == nil || (o.SkipOperand != nil && o.SkipOperand(op, i)) || !o.Member(v) {
					continue
				}
				if o.ConstantsApart && constant(v) {
					continue
				}
				note(v)
				vals = append(vals, v)
			}
			for _, v := range op.Results() {
				if !o.Member(v) {
					continue
				}
				note(v)
				if o.ConstantsApart && constant(v) {
					continue
				}
				vals = append(vals, v)
			}
			if o.Ties != nil {
				for _, group := range o.Ties(op) {
					var first *Value
					for _, v := range group {
						if v == nil || !o.Member(v) {
							continue
						}
						note(v)
						if first == nil {
							first = v
						} else {
							is.sets.Union(first, v)
						}
					}
				}
			}
			var callee *Graph
			if o.Callee != nil {
				callee = o.Callee(op)
			}
			switch {
			case op.Name == "coreai.cast" && !o.CastsJoin, isRootTerminator(op, root):
				// Shores and graph outputs join nothing by themselves.
			case callee != nil:
				is.joinCall(op, callee, o.Member, note)
			default:
				for _, v := range vals[min(1, len(vals)):] {
					is.sets.Union(vals[0], v)
				}
			}
			return true
		})
		if o.States != nil {
			is.joinStates(g, o.States(g), o.Member)
		}
	}
	if o.ConstantsApart {
		is.placeConstants(o.Member, constant)
	}
	return is
}

func isRootTerminator(op, root *Operation) bool {
	return op.ParentOp() == root && op.Name == TerminatorName(root.Name)
}

func (is *Islands) joinCall(op *Operation, callee *Graph, member func(*Value) bool, note func(*Value)) {
	if b := callee.Body(); b != nil {
		for i, v := range op.Operands() {
			if i < len(b.Args()) && v != nil && member(v) && member(b.Arg(i)) {
				note(b.Arg(i))
				is.sets.Union(v, b.Arg(i))
			}
		}
	}
	if t := callee.Terminator(); t != nil {
		for i, r := range op.Results() {
			if i < t.NumOperands() && member(r) && member(t.Operand(i)) {
				note(t.Operand(i))
				is.sets.Union(r, t.Operand(i))
			}
		}
	}
}

func (is *Islands) joinStates(g *Graph, sa *StateAnalysis, member func(*Value) bool) {
	t := g.Terminator()
	if t == nil || g.Body() == nil {
		return
	}
	for _, p := range sa.Pairs {
		if p.Out < 0 || p.Out >= t.NumOperands() {
			continue
		}
		a, r := g.Body().Arg(p.In), t.Operand(p.Out)
		if member(a) && member(r) {
			is.sets.Union(a, r)
		}
	}
}

// placeConstants puts each constant into the island of its first computing
// user (ConstantsApart).
func (is *Islands) placeConstants(member, constant func(*Value) bool) {
	for _, v := range is.Values {
		if !constant(v) {
			continue
		}
		for _, u := range v.Uses() {
			if u.Op.Name == "coreai.cast" {
				continue
			}
			if p := u.Op.ParentOp(); p != nil && IsGraphOp(p) && isRootTerminator(u.Op, p) {
				continue
			}
			var other *Value
			for _, w := range append(append([]*Value{}, u.Op.Operands()...), u.Op.Results()...) {
				if w != nil && w != v && member(w) && !constant(w) {
					other = w
					break
				}
			}
			if other != nil {
				is.sets.Union(other, v)
				break
			}
		}
	}
}
