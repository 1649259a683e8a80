package ane

// Small hand-built graphs for the rule tests.

import (
	"github.com/anefix/anefix/graph"
)

type port struct {
	name string
	typ  graph.Type
	mut  string // buffer_mutation target ("" = plain input)
}

type tg struct {
	m *graph.Module
	g *graph.Graph
	n int
}

func tensor(e graph.Type, dims ...int64) *graph.TensorType { return graph.Tensor(e, dims...) }

// newGraph makes a module with one graph @name (visibility "" or "private").
func newGraph(m *graph.Module, name, vis string, ins ...port) *tg {
	if m == nil {
		m = graph.NewModule()
	}
	gi := make([]graph.GraphInput, len(ins))
	for i, p := range ins {
		gi[i] = graph.GraphInput{Name: p.name, Type: p.typ, State: p.mut}
	}
	g := graph.NewGraph(m, name, vis, gi...)
	g.Return(nil, nil)
	return &tg{m: m, g: g}
}

func (t *tg) arg(i int) *graph.Value { return t.g.Body().Arg(i) }

// op appends an op with FX id `id` at "model.py:<line>" before the
// terminator and returns its first result (nil when it has none).
func (t *tg) op(name, id string, line int, operands []*graph.Value, results ...graph.Type) *graph.Value {
	var loc graph.Loc = graph.Unknown
	if id != "" || line > 0 {
		var child graph.Loc
		if line > 0 {
			child = &graph.FileLoc{File: "/src/models/model.py", Line: line}
		}
		loc = &graph.NameLoc{Name: id, Child: child}
		if id == "" {
			loc = child
		}
	}
	o := graph.NewOp(name, operands, results, nil, loc)
	o.InsertBefore(t.g.Terminator())
	if len(results) == 0 {
		return nil
	}
	return o.Result(0)
}

// constant appends a coreai.constant with a splat of zeros.
func (t *tg) constant(typ *graph.TensorType) *graph.Value {
	attrs := graph.Dict(graph.NamedAttr{Name: "value", Value: &graph.DenseElementsAttr{Type: typ, Splat: true,
		Raw: make([]byte, graph.ElemBytes(typ.Elem))}})
	o := graph.NewOp("coreai.constant", nil, []graph.Type{typ}, attrs, graph.Unknown)
	o.InsertBefore(t.g.Terminator())
	return o.Result(0)
}

// out adds v as an output named name.
func (t *tg) out(v *graph.Value, name string) {
	if err := t.g.AddOutput(v, graph.Dict(graph.NamedAttr{Name: graph.AttrName, Value: graph.Str(name)})); err != nil {
		panic(err)
	}
}

func (t *tg) invoke(callee string, args []*graph.Value, results ...graph.Type) *graph.Value {
	o := graph.NewOp("coreai.invoke", args, results,
		graph.Dict(graph.NamedAttr{Name: "callee", Value: &graph.SymbolRefAttr{Root: callee}}), graph.Unknown)
	o.InsertBefore(t.g.Terminator())
	return o.Result(0)
}
