package passes

// Hand-built graph helpers for the tests of fold-io-unsqueeze,
// promote-states and arm-d (prefix tb, to stay apart from other passes'
// test helpers in this package).

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/internal/ops"
)

type tbPort struct {
	name string
	typ  graph.Type
	mut  string // buffer_mutation target ("" = plain input)
}

type tbGraph struct {
	m *graph.Module
	g *graph.Graph
}

// tbModule makes a module with one empty public graph @name taking ins.
func tbModule(name string, ins ...tbPort) *tbGraph {
	m := graph.NewModule()
	tg := &tbGraph{m: m}
	tg.g = tbAddGraph(m, name, "", ins...)
	return tg
}

// tbAddGraph appends a graph (visibility "" or "private") with a bare
// terminator; outputs are added with out.
func tbAddGraph(m *graph.Module, name, vis string, ins ...tbPort) *graph.Graph {
	gi := make([]graph.GraphInput, len(ins))
	for i, p := range ins {
		gi[i] = graph.GraphInput{Name: p.name, Type: p.typ, State: p.mut}
	}
	g := graph.NewGraph(m, name, vis, gi...)
	g.Return(nil, nil)
	return g
}

func (tg *tbGraph) arg(i int) *graph.Value { return tg.g.Body().Arg(i) }

// op appends an op before the terminator; id is the FX node name ("" for
// none) and src an optional "file:line" source.
func tbOpIn(g *graph.Graph, name string, id, src string, operands []*graph.Value, results ...graph.Type) *graph.Operation {
	var loc graph.Loc = graph.Unknown
	var fl graph.Loc
	if src != "" {
		i := strings.LastIndexByte(src, ':')
		var line int
		fmt.Sscan(src[i+1:], &line)
		fl = &graph.FileLoc{File: src[:i], Line: line}
		loc = fl
	}
	if id != "" {
		loc = &graph.NameLoc{Name: id, Child: fl}
	}
	op := graph.NewOp(name, operands, results, nil, loc)
	op.InsertBefore(g.Terminator())
	return op
}

func (tg *tbGraph) op(name, id string, operands []*graph.Value, results ...graph.Type) *graph.Value {
	return tbOpIn(tg.g, name, id, "", operands, results...).Result(0)
}

// constI adds a 32-bit integer constant (rank 1, or rank 0 for one value
// with scalar=true).
func tbConstI(g *graph.Graph, m *graph.Module, elem *graph.IntegerType, vals ...int64) *graph.Value {
	op := ops.Const(m, ops.IntDense(elem, []int64{int64(len(vals))}, vals), graph.Unknown)
	op.InsertBefore(g.Terminator())
	return op.Result(0)
}

func (tg *tbGraph) constI(elem *graph.IntegerType, vals ...int64) *graph.Value {
	return tbConstI(tg.g, tg.m, elem, vals...)
}

func tbOut(g *graph.Graph, v *graph.Value, name string) {
	if err := g.AddOutput(v, graph.Dict(graph.NamedAttr{Name: graph.AttrName, Value: graph.Str(name)})); err != nil {
		panic(err)
	}
}

func (tg *tbGraph) out(v *graph.Value, name string) { tbOut(tg.g, v, name) }

func tbT(elem graph.Type, dims ...int64) *graph.TensorType { return graph.Tensor(elem, dims...) }

// tbDump prints a module compactly and deterministically: enough to compare
// IR before and after a pass (the text printer is another package's job).
func tbDump(m *graph.Module) string {
	var b strings.Builder
	ids := map[*graph.Value]string{}
	name := func(v *graph.Value) string {
		if s, ok := ids[v]; ok {
			return s
		}
		s := fmt.Sprintf("%%%d", len(ids))
		ids[v] = s
		return s
	}
	for _, g := range m.Graphs() {
		fmt.Fprintf(&b, "graph @%s vis=%q\n", g.Name(), g.Visibility())
		for _, p := range g.Inputs() {
			fmt.Fprintf(&b, "  in %s %s: %s attrs=%s\n", name(g.Body().Arg(p.Index)), p.Name, p.Type, p.Attrs)
		}
		for _, p := range g.Outputs() {
			fmt.Fprintf(&b, "  out %s: %s attrs=%s\n", p.Name, p.Type, p.Attrs)
		}
		g.Op.Walk(func(op *graph.Operation) bool {
			if op == g.Op {
				return true
			}
			var ops, res []string
			for _, v := range op.Operands() {
				ops = append(ops, name(v)+":"+v.Type().String())
			}
			for _, v := range op.Results() {
				res = append(res, name(v)+":"+v.Type().String())
			}
			fmt.Fprintf(&b, "  %s = %s(%s) attrs=%s loc=%s\n", strings.Join(res, ","), op.Name, strings.Join(ops, ", "), op.Attrs, op.Loc)
			return true
		})
	}
	return b.String()
}

func tbVerify(t *testing.T, m *graph.Module, when string) {
	t.Helper()
	if err := graph.Verify(m); err != nil {
		t.Fatalf("%s: %v\n%s", when, err, tbDump(m))
	}
}

func tbCount(m *graph.Module, name string) int {
	n := 0
	m.Walk(func(op *graph.Operation) bool {
		if op.Name == name {
			n++
		}
		return true
	})
	return n
}

// tbRun runs a pass of the table by name with options (nil: its defaults).
func tbRun(t *testing.T, pass string, m *graph.Module, opts Options) (*Change, error) {
	t.Helper()
	return tbRunIn(t, nil, pass, m, opts)
}

// withStates returns a context whose state settings are the defaults
// changed by f.
func withStates(f func(*StateSettings)) *Context {
	ctx := defaultContext()
	f(&ctx.Settings.States)
	return ctx
}

// tbRunIn is tbRun under ctx's settings (nil: the defaults).
func tbRunIn(t *testing.T, ctx *Context, pass string, m *graph.Module, opts Options) (*Change, error) {
	t.Helper()
	p, ok := Lookup(pass)
	if !ok {
		t.Fatalf("pass %s not in the table", pass)
	}
	if opts == nil {
		d, err := p.Defaults()
		if err != nil {
			t.Fatal(err)
		}
		opts = d
	}
	return p.RunIn(ctx, m, opts)
}

// with returns the default options O changed by f. It sets fields
// directly, bypassing the options' Check, so a test can reach a pass's own
// guard against a bad value.
func with[O any](f func(*O)) *O {
	o := Defaults[O]()
	f(o)
	return o
}
