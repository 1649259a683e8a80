package passes

import (
	"fmt"
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

// removeDeadGraphs erases private graphs that no op outside them refers to.
func removeDeadGraphs(m *graph.Module) []string {
	var removed []string
	for _, g := range m.Graphs() {
		if g.Visibility() != "private" {
			continue
		}
		name := g.Name()
		used := false
		m.Walk(func(op *graph.Operation) bool {
			if used || op == g.Op {
				return false
			}
			if attrMentionsSymbol(op.Attrs, name) || attrMentionsSymbol(op.Props, name) {
				used = true
			}
			return !used
		})
		if !used {
			if err := g.Op.Erase(); err == nil {
				removed = append(removed, name)
			}
		}
	}
	return removed
}

// attrMentionsSymbol reports whether a refers to @name; attributes kept as
// text, or of a type anefix does not model, count as referring when unsure.
func attrMentionsSymbol(a graph.Attr, name string) bool {
	switch x := a.(type) {
	case nil:
		return false
	case *graph.SymbolRefAttr:
		return x.Root == name
	case *graph.ArrayAttr:
		for _, e := range x.Elems {
			if attrMentionsSymbol(e, name) {
				return true
			}
		}
		return false
	case *graph.DictAttr:
		if x == nil {
			return false
		}
		for _, e := range x.Entries {
			if attrMentionsSymbol(e.Value, name) {
				return true
			}
		}
		return false
	case *graph.OpaqueAttr, *graph.RawAttr:
		return strings.Contains(x.String(), name)
	case *graph.IntegerAttr, *graph.FloatAttr, *graph.StringAttr, *graph.BoolAttr, *graph.UnitAttr,
		*graph.TypeAttr, *graph.DenseElementsAttr, *graph.DenseResourceAttr, *graph.DenseArrayAttr, *graph.LocAttr:
		return false
	}
	return true
}
