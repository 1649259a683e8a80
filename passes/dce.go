package passes

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/anefix/anefix/graph"
)

var dceAbout = About{
	Summary: "remove dead ops, constants, unused private graphs and unreferenced weight blobs",
	Doc: `Removes ops whose results nothing reads, repeatedly, so whole dead
chains go (constants included); then private graphs no op refers to any
more; then dense_resource blobs of the builtin dialect that no attribute
refers to (weights of deleted constants).

It is conservative about side effects: an op is removed only when it has
results, all of them unused, no regions, no !coreai.handle / !coreai.token
operand or result (state reads and writes), belongs to the coreai or arith
dialect, and is not a call (coreai.invoke, func.call) or an op whose name
says it mutates (mutable_*, write_*, read_*, create_token). Anything else —
ops of other dialects, ops with no results, ops with regions — stays. State
writes (slice_update feeding a state output) are live through the graph
output and so are never dead. Graph inputs and outputs are never removed.

If an op's properties are in an encoding anefix carries opaquely, the pass
cannot see which resources they name and keeps every resource (noted in the
report).

Numerics: none; dead code computes nothing anyone reads.

When not to use it: when you want to look at what the other passes left
dead, or keep composite graphs no op calls (graphs=false) or weight blobs
no op reads (resources=false) in the file.`,
}

// DCEOptions are dce's options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type DCEOptions struct {
	Graphs    bool
	Resources bool
}

func (o *DCEOptions) declare(d *Decls) {
	Declare(d, &o.Graphs, Option[bool]{Name: "graphs", Default: true, Doc: "also remove private graphs no op refers to"})
	Declare(d, &o.Resources, Option[bool]{Name: "resources", Default: true, Doc: "also remove builtin blob resources no attribute refers to"})
}

// mutatingName marks op names that may touch state even with results.
func mutatingName(name string) bool {
	n := name[strings.LastIndexByte(name, '.')+1:]
	for _, p := range []string{"mutable_", "write_", "read_", "create_token"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// isDeadOp reports whether op can be removed without changing what the
// module computes or does.
func isDeadOp(op *graph.Operation) bool {
	if op.NumResults() == 0 || len(op.Regions) > 0 || op.IsErased() {
		return false
	}
	if d := op.Dialect(); d != "coreai" && d != "arith" {
		return false
	}
	switch op.Name {
	case "coreai.invoke", "coreai.graph", "coreai.output", "coreai.if", "coreai.yield":
		return false
	}
	if mutatingName(op.Name) {
		return false
	}
	for _, r := range op.Results() {
		if r.HasUses() || graph.IsHandleType(r.Type()) {
			return false
		}
	}
	for _, v := range op.Operands() {
		if v != nil && graph.IsHandleType(v.Type()) {
			return false
		}
	}
	return true
}

func dce(m *graph.Module, opts *DCEOptions) (*Change, error) {
	ch := &Change{}
	for {
		n := removeDeadOps(m)
		ch.OpsRemoved += n
		g := 0
		if opts.Graphs {
			removed := removeDeadGraphs(m)
			for _, name := range removed {
				ch.Notes = append(ch.Notes, fmt.Sprintf("removed private graph @%s (no op calls it)", name))
			}
			g = len(removed)
		}
		if n == 0 && g == 0 {
			break
		}
	}
	if opts.Resources {
		refs, ok := m.ResourceRefs()
		if !ok {
			ch.Notes = append(ch.Notes, "kept every resource: some op properties are in an opaque encoding, so references cannot be seen")
			return ch, nil
		}
		var keep []*graph.Resource
		for _, r := range m.Resources {
			if r.Dialect == "builtin" && r.Kind == graph.BlobResource && refs[r.Key] == 0 {
				ch.Notes = append(ch.Notes, fmt.Sprintf("removed resource %q (%d bytes, unreferenced)", r.Key, r.Size()))
				continue
			}
			keep = append(keep, r)
		}
		m.Resources = keep
	}
	return ch, nil
}

// removeDeadOps erases dead ops until none is left and returns how many.
func removeDeadOps(m *graph.Module) int {
	total := 0
	for {
		var ops []*graph.Operation
		m.Walk(func(op *graph.Operation) bool { ops = append(ops, op); return true })
		n := 0
		// Users follow their definitions in a block, so walking backwards
		// frees a whole dead chain in one sweep.
		for i := len(ops) - 1; i >= 0; i-- {
			if isDeadOp(ops[i]) {
				if err := ops[i].Erase(); err == nil {
					n++
				}
			}
		}
		total += n
		if n == 0 {
			return total
		}
	}
}

// removeDeadGraphs erases private graphs that no op outside them refers
// to, until none is left (a graph that only removed graphs referred to goes
// too), and returns their names in removal order. It walks the module once,
// keeping per symbol the top-level ops whose attributes name it, so its
// time is linear in the module (TestDCEWorkLinearInGraphs); only attribute
// text anefix cannot read (opaque, or a kind it does not model) counts as
// naming every private graph whose name it contains: it is searched once,
// for all of them (graph.NameFinder; per private graph, the search was
// quadratic, TestDCEWorkLinearInOpaqueText).
func removeDeadGraphs(m *graph.Module) []string {
	var private []*graph.Graph
	byName := map[string][]*graph.Graph{}
	for _, g := range m.Graphs() {
		if g.Visibility() == "private" {
			private = append(private, g)
			byName[g.Name()] = append(byName[g.Name()], g)
		}
	}
	var finder *graph.NameFinder // made at the first text to search
	// exact[name][owner]: how many attributes of ops under the top-level op
	// owner (nil: the module op) refer to @name, or contain name in text.
	exact := map[string]map[*graph.Operation]int{}
	mentions := map[*graph.Operation][]string{} // owner → names it refers to
	// anything[owner] counts the attributes under owner of a kind not
	// modelled, which may refer to any graph; anyTotal is their sum.
	anything := map[*graph.Operation]int{}
	anyTotal := 0
	collect := func(owner *graph.Operation, op *graph.Operation) {
		mention := func(name string) {
			c := exact[name]
			if c == nil {
				c = map[*graph.Operation]int{}
				exact[name] = c
			}
			if c[owner] == 0 {
				mentions[owner] = append(mentions[owner], name)
			}
			c[owner]++
		}
		for _, a := range []graph.Attr{op.Attrs, op.Props} {
			symbolMentions(a, mention, func(text string, all bool) {
				if all {
					anything[owner]++
					anyTotal++
					return
				}
				if finder == nil {
					finder = graph.NewNameFinder(slices.Sorted(maps.Keys(byName)))
				}
				finder.Find(text, mention)
			})
		}
	}
	collect(nil, m.Op)
	for _, top := range m.Body().Ops() {
		top.Walk(func(op *graph.Operation) bool { collect(top, op); return true })
	}
	erased := map[*graph.Operation]bool{}
	used := func(g *graph.Graph) bool {
		for owner := range exact[g.Name()] {
			if owner != g.Op {
				return true
			}
		}
		return anyTotal > anything[g.Op]
	}
	var removed []string
	queue := private
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		if erased[g.Op] || used(g) || g.Op.Erase() != nil {
			continue
		}
		erased[g.Op] = true
		removed = append(removed, g.Name())
		// What g referred to may be unreferenced now.
		for _, name := range mentions[g.Op] {
			delete(exact[name], g.Op)
			if len(exact[name]) <= 1 {
				queue = append(queue, byName[name]...)
			}
		}
		if k := anything[g.Op]; k > 0 {
			anyTotal -= k
			queue = append(queue, private...) // rare: an attribute not modelled in a removed graph
		}
	}
	return removed
}

// symbolMentions reports to exact each symbol a refers to by a symbol
// reference, and to fuzzy the text of each attribute it cannot read
// (opaque or raw attributes, which refer to @name when they contain it)
// or, with all set, an attribute of a kind it does not model (which may
// refer to anything).
func symbolMentions(a graph.Attr, exact func(name string), fuzzy func(text string, all bool)) {
	switch x := a.(type) {
	case nil:
	case *graph.SymbolRefAttr:
		exact(x.Root)
	case *graph.ArrayAttr:
		for _, e := range x.Elems {
			symbolMentions(e, exact, fuzzy)
		}
	case *graph.DictAttr:
		if x == nil {
			return
		}
		for _, e := range x.Entries {
			symbolMentions(e.Value, exact, fuzzy)
		}
	case *graph.OpaqueAttr, *graph.RawAttr:
		fuzzy(x.String(), false)
	case *graph.IntegerAttr, *graph.FloatAttr, *graph.StringAttr, *graph.BoolAttr, *graph.UnitAttr,
		*graph.TypeAttr, *graph.DenseElementsAttr, *graph.DenseResourceAttr, *graph.DenseArrayAttr, *graph.LocAttr:
	default:
		fuzzy("", true)
	}
}
