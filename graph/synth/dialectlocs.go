package synth

import (
	"fmt"
	"strings"

	"github.com/anefix/anefix/graph"
)

// Location forms. coreai-torch writes every op location as a
// `#debuginfo.location<…>` dialect attribute (coreai_torch/_debug_locations.py
// builds it from file locations, a scope and metadata: sources with the FX
// node names as identifiers, op_id, output_maps, call_stack, as the real
// exports' builtin locations hold them). Its printed body is not public: LocDebugInfo writes the spelling
// testdata/mlir/coreai/debuginfo_locs.mlir documents as anefix's guess, the
// one graph/mlirtext reads. locBuiltin (the default, what testdata/synth
// ships) keeps MLIR's builtin fused locations.
const (
	locBuiltin   = "builtin"
	LocDebugInfo = "debuginfo"
)

// toDialectLocs rewrites each op's fused location (FX name, file line,
// caller frames, as the builder makes them) into a #debuginfo.location
// with the FX name in a sources entry and the op's position in IR order
// (per module, from 1) as its coreai op_id. Ops without a location stay
// unknown.
func toDialectLocs(m *graph.Module) {
	opID := 0
	nodes := map[string]int{} // FX name -> sources id, in first-use order
	m.Walk(func(op *graph.Operation) bool {
		if op == m.Op || graph.IsGraphOp(op) {
			return true
		}
		f, ok := op.Loc.(*graph.FusedLoc)
		if !ok || len(f.Locs) == 0 {
			return true
		}
		n, ok := f.Locs[0].(*graph.NameLoc)
		if !ok {
			return true
		}
		src, ok := n.Child.(*graph.FileLoc)
		if !ok {
			return true
		}
		opID++
		id, seen := nodes[n.Name]
		if !seen {
			id = len(nodes) + 1
			nodes[n.Name] = id
		}
		var b strings.Builder
		fmt.Fprintf(&b, "#debuginfo.location<src = loc(%s), scope = unit", src)
		if len(f.Locs) > 1 {
			b.WriteString(", fused_with = [")
			for i, c := range f.Locs[1:] {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "#debuginfo.location<src = loc(%s), scope = unit>", c)
			}
			b.WriteString("]")
		}
		fmt.Fprintf(&b, `, metadata = [#debuginfo.metadata<name = "sources", data = [{id = %d : ui64, identifiers = [%s], name = "torch"}]>, #debuginfo.metadata<name = "op_id", data = {type = "coreai", value = %d : ui64}>]>`,
			id, graph.QuoteString(n.Name), opID)
		op.Loc = &graph.DialectLoc{Attr: &graph.OpaqueAttr{Text: b.String()}}
		return true
	})
}
