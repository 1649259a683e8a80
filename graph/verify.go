package graph

import (
	"errors"
	"fmt"
	"strings"
)

// VerifyError lists every problem the verifier found.
type VerifyError struct{ Problems []string }

func (e *VerifyError) Error() string {
	const max = 20
	var b strings.Builder
	fmt.Fprintf(&b, "IR verification failed (%d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteByte('s')
	}
	b.WriteString("):")
	for i, p := range e.Problems {
		if i == max {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Problems)-max)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(p)
	}
	return b.String()
}

// Verify checks the module's structural invariants: SSA dominance, use-list
// consistency, graph terminators and signatures, coreai.invoke callee types,
// symbol references and dense_resource handles. It returns *VerifyError.
func Verify(m *Module) error { return verify(m, false) }

// VerifyWritable is the whole-module check that comes before every write
// (graph/modelio's Save, the one write path of rewrite, convert, synth,
// bisect, reduce and compile's temporary .aimodel): Verify, and what a file
// needs beyond an in-memory module. Every dense_resource an op refers to
// has its bytes (an entry without data, such as an absent weight that a
// read-only command marked, cannot be written: a writer would drop or
// refuse it), and no owner declares a resource key twice (the bytecode
// writer refuses that, the text reader would keep only one). An entry
// without data that no op refers to is allowed: it is the declaration the
// bytecode writer keeps for a removed blob, and writers leave it out of
// text. It returns *VerifyError.
func VerifyWritable(m *Module) error { return verify(m, true) }

func verify(m *Module, writable bool) error {
	// Any module-like op is a module: builtin.module, or the mps.module and
	// aicode.serialization.asset of Apple's compiled files.
	if m.Op == nil || len(m.Op.Regions) != 1 || len(m.Op.Regions[0].Blocks) != 1 {
		return &VerifyError{Problems: []string{"top-level op must have one region with one block (like builtin.module)"}}
	}
	v := &verifier{m: m, writable: writable, syms: m.Symbols(), doms: map[*Region]map[*Block]map[*Block]bool{}}
	if writable {
		v.resourceTable()
	}
	for o := m.Body().first; o != nil; o = o.next {
		if HasOpaqueProps(o) {
			// Its sym_name cannot be read, so a reference to it cannot be
			// judged unresolved.
			v.unknownSyms = true
		}
	}
	m.Walk(func(op *Operation) bool { v.op(op); return true })
	for _, g := range m.Graphs() {
		v.graph(g)
	}
	if len(v.problems) > 0 {
		return &VerifyError{Problems: v.problems}
	}
	return nil
}

type verifier struct {
	m           *Module
	writable    bool // VerifyWritable: resources must hold their data
	unknownSyms bool // some symbol's name is inside opaque properties
	syms        map[string]*Operation
	res         map[string]*Resource // by key, the first of each (resource)
	doms        map[*Region]map[*Block]map[*Block]bool
	problems    []string
}

func (v *verifier) addf(op *Operation, format string, args ...any) {
	where := ""
	if op != nil {
		where = op.DescribeInGraph() + ": "
	}
	v.problems = append(v.problems, where+fmt.Sprintf(format, args...))
}

func (v *verifier) op(op *Operation) {
	countWork(workOps, 1)
	if op.Loc == nil {
		v.addf(op, "missing location")
	}
	for i, x := range op.Operands() {
		if x == nil {
			v.addf(op, "operand %d is missing", i)
			continue
		}
		if x.typ == nil {
			v.addf(op, "operand %d has no type", i)
		}
		if !hasUse(x, op, i) {
			v.addf(op, "operand %d is not in its value's use list (internal error)", i)
		}
		v.dominates(x, op, i)
	}
	for i, r := range op.Results() {
		if r.typ == nil {
			v.addf(op, "result %d has no type", i)
		}
		for _, u := range r.uses {
			if u.Op.IsErased() || u.Index >= len(u.Op.Operands()) || u.Op.Operands()[u.Index] != r {
				v.addf(op, "result %d has a stale use (internal error)", i)
			}
		}
	}
	v.attrRefs(op, op.Attrs)
	v.attrRefs(op, op.Props)
	if op.Name == "coreai.invoke" || op.Name == "func.call" {
		v.call(op)
	}
}

func hasUse(x *Value, op *Operation, i int) bool {
	for _, u := range x.uses {
		if u.Op == op && u.Index == i {
			return true
		}
	}
	return false
}

// dominates checks that value x is visible at operand i of user.
func (v *verifier) dominates(x *Value, user *Operation, i int) {
	if x.def != nil && x.def.IsErased() {
		v.addf(user, "operand %d uses a result of erased op %s", i, x.def.Describe())
		return
	}
	defBlock := x.ParentBlock()
	if defBlock == nil {
		v.addf(user, "operand %d is a value that is not in the IR", i)
		return
	}
	// Find the ancestor of user that sits in defBlock's region.
	for a := user; a != nil; a = a.ParentOp() {
		ab := a.block
		if ab == nil {
			break
		}
		if ab.parent != defBlock.parent {
			continue
		}
		if ab == defBlock {
			if x.def != nil && (a == x.def || !ab.IsBefore(x.def, a)) {
				v.addf(user, "operand %d (result of %s) does not dominate this use", i, x.def.Describe())
			}
			return
		}
		if !v.blockDominates(defBlock, ab) {
			v.addf(user, "operand %d is defined in a block that does not dominate this use", i)
		}
		return
	}
	v.addf(user, "operand %d is used outside the region that defines it", i)
}

// blockDominates computes dominators of a region's CFG (iteratively; regions
// here are small) and answers whether a dominates b.
func (v *verifier) blockDominates(a, b *Block) bool {
	r := a.parent
	dom, ok := v.doms[r]
	if !ok {
		dom = computeDominators(r)
		v.doms[r] = dom
	}
	return dom[b][a]
}

func computeDominators(r *Region) map[*Block]map[*Block]bool {
	preds := map[*Block][]*Block{}
	for _, b := range r.Blocks {
		if t := b.last; t != nil {
			for _, s := range t.Successors() {
				preds[s] = append(preds[s], b)
			}
		}
	}
	all := func() map[*Block]bool {
		s := map[*Block]bool{}
		for _, b := range r.Blocks {
			s[b] = true
		}
		return s
	}
	dom := map[*Block]map[*Block]bool{}
	for i, b := range r.Blocks {
		if i == 0 {
			dom[b] = map[*Block]bool{b: true}
		} else {
			dom[b] = all()
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range r.Blocks[1:] {
			var nd map[*Block]bool
			for _, p := range preds[b] {
				if nd == nil {
					nd = map[*Block]bool{}
					for k := range dom[p] {
						nd[k] = true
					}
					continue
				}
				for k := range nd {
					if !dom[p][k] {
						delete(nd, k)
					}
				}
			}
			if nd == nil { // unreachable: dominated by everything, as in MLIR
				continue
			}
			nd[b] = true
			if len(nd) != len(dom[b]) {
				dom[b] = nd
				changed = true
			}
		}
	}
	return dom
}

func (v *verifier) attrRefs(op *Operation, a Attr) {
	switch x := a.(type) {
	case *SymbolRefAttr:
		if _, ok := v.syms[x.Root]; !ok && !v.unknownSyms {
			v.addf(op, "symbol @%s is not defined in the module", x.Root)
		}
	case *DenseResourceAttr:
		r := v.resource(x.Key)
		switch {
		case r == nil:
			v.addf(op, "dense_resource<%s> has no entry in the module's resources", x.Key)
		case v.writable && r.Kind == BlobResource && r.Blob == nil:
			v.addf(op, "dense_resource<%s> has no data (its entry declares the key without bytes), and a model cannot be written without them", x.Key)
		}
	case *ArrayAttr:
		for _, e := range x.Elems {
			v.attrRefs(op, e)
		}
	case *DictAttr:
		if x == nil {
			return
		}
		for _, e := range x.Entries {
			v.attrRefs(op, e.Value)
		}
	}
}

// resource is m.Resource(key) from a map built on first use: a module has
// hundreds of weights and an op per weight refers to one.
func (v *verifier) resource(key string) *Resource {
	if v.res == nil {
		v.res = make(map[string]*Resource, len(v.m.Resources))
		for _, r := range v.m.Resources {
			if _, dup := v.res[r.Key]; !dup {
				v.res[r.Key] = r
			}
		}
	}
	return v.res[key]
}

// resourceTable reports a resource key declared twice for one owner.
func (v *verifier) resourceTable() {
	for _, rs := range [][]*Resource{v.m.Resources, v.m.ExternalResources} {
		seen := map[[2]string]bool{}
		for _, r := range rs {
			k := [2]string{r.Dialect, r.Key}
			if seen[k] {
				v.addf(nil, "resource %q of %s is declared twice", r.Key, r.Dialect)
			}
			seen[k] = true
		}
	}
}

func (v *verifier) call(op *Operation) {
	ref, ok := op.Inherent("callee").(*SymbolRefAttr)
	if !ok {
		if !HasOpaqueProps(op) {
			v.addf(op, "missing callee symbol reference")
		}
		return
	}
	target, ok := v.syms[ref.Root]
	if !ok || !IsGraphOp(target) {
		return // reported by attrRefs, or not a graph we can check
	}
	ft := (&Graph{Op: target}).FunctionType()
	if ft == nil {
		return
	}
	if len(ft.Inputs) != len(op.Operands()) || len(ft.Results) != len(op.Results()) {
		v.addf(op, "calls @%s with %d operands and %d results, but it takes %d and returns %d",
			ref.Root, len(op.Operands()), len(op.Results()), len(ft.Inputs), len(ft.Results))
		return
	}
	for i, x := range op.Operands() {
		if x != nil && !TypeEqual(x.typ, ft.Inputs[i]) {
			v.addf(op, "operand %d has type %s, but @%s's input %d is %s", i, x.typ, ref.Root, i, ft.Inputs[i])
		}
	}
	for i, r := range op.Results() {
		if !TypeEqual(r.typ, ft.Results[i]) {
			v.addf(op, "result %d has type %s, but @%s's output %d is %s", i, r.typ, ref.Root, i, ft.Results[i])
		}
	}
}

func (v *verifier) graph(g *Graph) {
	if HasOpaqueProps(g.Op) {
		why := g.Op.Props.(bytecodeOnly).BytecodeOnly()
		v.addf(g.Op, "%s, so anefix cannot read this graph's name or signature. anefix decodes the native layouts of func.func, func.call and builtin.module; "+
			"for this op the layout must be confirmed first (see README, Known limits), or the model exported as generic MLIR text by its exporter", why)
		return
	}
	ft := g.FunctionType()
	if ft == nil {
		v.addf(g.Op, "graph has no function_type")
		return
	}
	if g.Name() == "" {
		v.addf(g.Op, "graph has no sym_name")
	}
	b := g.Body()
	if b == nil {
		return // a declaration
	}
	if len(b.args) != len(ft.Inputs) {
		v.addf(g.Op, "graph @%s declares %d inputs but its block has %d arguments", g.Name(), len(ft.Inputs), len(b.args))
	} else {
		for i, a := range b.args {
			if !TypeEqual(a.typ, ft.Inputs[i]) {
				v.addf(g.Op, "graph @%s input %d is declared %s but its block argument is %s", g.Name(), i, ft.Inputs[i], a.typ)
			}
		}
	}
	term := g.Terminator()
	if term == nil {
		last := "nothing"
		if b.last != nil {
			last = b.last.Describe()
		}
		v.addf(g.Op, "graph @%s does not end in %s (it ends in %s)", g.Name(), TerminatorName(g.Op.Name), last)
		return
	}
	if len(term.Operands()) != len(ft.Results) {
		v.addf(term, "returns %d values but graph @%s declares %d results", len(term.Operands()), g.Name(), len(ft.Results))
		return
	}
	for i, x := range term.Operands() {
		if x != nil && !TypeEqual(x.typ, ft.Results[i]) {
			v.addf(term, "operand %d has type %s but graph @%s declares result %d as %s", i, x.typ, g.Name(), i, ft.Results[i])
		}
	}
	for o := b.first; o != nil; o = o.next {
		if o != term && o.Name == term.Name {
			v.addf(o, "%s in the middle of graph @%s", o.Name, g.Name())
		}
	}
}

// IsVerifyError reports whether err came from Verify.
func IsVerifyError(err error) bool {
	var ve *VerifyError
	return errors.As(err, &ve)
}
