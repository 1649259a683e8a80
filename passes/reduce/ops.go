package reduce

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/bisect"
)

// target is one thing a step may act on: a graph (drop-graph) or an op.
type target struct {
	graph *graph.Graph
	op    *graph.Operation
}

func (t target) name(i int) string {
	if t.graph != nil {
		return "@" + t.graph.Name()
	}
	if id := t.op.OpID(); id != "" {
		return id
	}
	return fmt.Sprintf("#%d %s", i, t.op.Name)
}

// targets lists, in graph and op order (the same on every load of the same
// bytes, so indices name the same targets), what kind may act on in m.
func targets(m *graph.Module, kind string) []target {
	var out []target
	graphs := m.Graphs()
	if kind == kindDropGraph {
		public := 0
		for _, g := range graphs {
			if g.Visibility() == "" {
				public++
			}
		}
		if public < 2 {
			return nil // the last entry graph stays
		}
		for _, g := range graphs {
			if g.Visibility() == "" {
				out = append(out, target{graph: g})
			}
		}
		return out
	}
	for _, g := range graphs {
		body := g.Body()
		if body == nil {
			continue
		}
		term := g.Terminator()
		for _, op := range body.Ops() {
			if op == term || graph.IsGraphOp(op) {
				continue
			}
			if ok := eligibleOp(op, kind); ok {
				out = append(out, target{op: op})
			}
		}
	}
	return out
}

// zeroable reports whether every result of op is a static tensor of
// integers or floats, so a splat zero constant can stand in for it.
func zeroable(op *graph.Operation) bool {
	for _, r := range op.Results() {
		if zeroAttr(r.Type()) == nil {
			return false
		}
	}
	return true
}

func zeroAttr(t graph.Type) *graph.DenseElementsAttr {
	tt, ok := t.(*graph.TensorType)
	if !ok || !tt.IsStatic() {
		return nil
	}
	switch tt.Elem.(type) {
	case *graph.IntegerType, *graph.FloatType:
	default:
		return nil
	}
	n := graph.ElemBytes(tt.Elem)
	if n == 0 {
		return nil
	}
	return &graph.DenseElementsAttr{Type: tt, Raw: make([]byte, n), Splat: true}
}

// passThrough returns, per result of op, an operand of exactly its type, or
// nil when a result has none.
func passThrough(op *graph.Operation) []*graph.Value {
	out := make([]*graph.Value, op.NumResults())
	for i, r := range op.Results() {
		for _, v := range op.Operands() {
			if graph.TypeEqual(v.Type(), r.Type()) {
				out[i] = v
				break
			}
		}
		if out[i] == nil {
			return nil
		}
	}
	return out
}

func eligibleOp(op *graph.Operation, kind string) bool {
	isConst := op.Name == "coreai.constant"
	switch kind {
	case kindToConstant:
		return !isConst && zeroable(op)
	case kindPassThrough:
		return !isConst && op.NumResults() > 0 && passThrough(op) != nil
	case kindShrinkConstant:
		if !isConst || op.NumResults() != 1 || zeroAttr(op.Result(0).Type()) == nil {
			return false
		}
		v := constValue(op)
		d, dense := v.(*graph.DenseElementsAttr)
		_, res := v.(*graph.DenseResourceAttr)
		return res || dense && !d.Splat && d.NumElements() > 1
	}
	return false
}

// constValue is a coreai.constant's value attribute (its only one).
func constValue(op *graph.Operation) graph.Attr {
	if d, ok := op.Props.(*graph.DictAttr); ok && d.Len() == 1 {
		return d.Entries[0].Value
	}
	if op.Attrs.Len() == 1 {
		return op.Attrs.Entries[0].Value
	}
	return nil
}

// apply opens cur, applies kind to the targets with the given indices, runs
// dce, checks the module and saves it at path. It returns the targets'
// names and the op count written; bisect.ErrSkipCandidate when the result
// would change nothing or not verify.
func apply(cur bisect.Source, kind string, idx []int, path string) ([]string, int, error) {
	o, err := cur.Open()
	if err != nil {
		return nil, 0, err
	}
	defer o.Close()
	m := o.Module
	all := targets(m, kind)
	var names []string
	for _, i := range idx {
		if i < 0 || i >= len(all) {
			return nil, 0, fmt.Errorf("reduce: target %d of %d (a bug in anefix)", i, len(all))
		}
		t := all[i]
		names = append(names, t.name(i))
		if err := act(m, kind, t); err != nil {
			return nil, 0, bisect.ErrSkipCandidate
		}
	}
	if len(names) == 0 {
		return nil, 0, bisect.ErrSkipCandidate
	}
	dce, err := passes.Build(passes.Spec{Passes: []string{"dce"}})
	if err != nil {
		return nil, 0, err
	}
	if _, err := dce.Run(m, passes.RunOptions{}); err != nil {
		return nil, 0, err
	}
	if graph.Verify(m) != nil {
		return nil, 0, bisect.ErrSkipCandidate
	}
	n := m.NumOps()
	if err := o.Save(path); err != nil {
		return nil, 0, err
	}
	return names, n, nil
}

// act applies kind to one target.
func act(m *graph.Module, kind string, t target) error {
	if t.graph != nil {
		return t.graph.Op.Erase()
	}
	op := t.op
	switch kind {
	case kindToConstant, kindShrinkConstant:
		for _, r := range op.Results() {
			c := passes.NewConstantOp(m, zeroAttr(r.Type()), op.Loc)
			c.InsertBefore(op)
			r.ReplaceAllUsesWith(c.Result(0))
		}
	case kindPassThrough:
		for i, v := range passThrough(op) {
			op.Result(i).ReplaceAllUsesWith(v)
		}
	}
	return op.Erase()
}

// eligible lists the target indices of kind in the model at cur.
func eligible(cur bisect.Source, kind string) ([]int, error) {
	o, err := cur.Open()
	if err != nil {
		return nil, err
	}
	defer o.Close()
	n := len(targets(o.Module, kind))
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out, nil
}
