package graph

import (
	"reflect"
	"strings"
	"testing"
)

func isF32Value(v *Value) bool { return IsFloat(ElementType(v.Type()), "f32") }

// islandGroups names each island by its values' labels, islands in the
// order of their first value.
func islandGroups(is *Islands, label map[*Value]string) []string {
	var order []*Value
	groups := map[*Value][]string{}
	for _, v := range is.Values {
		r := is.Root(v)
		if _, ok := groups[r]; !ok {
			order = append(order, r)
		}
		groups[r] = append(groups[r], label[v])
	}
	var out []string
	for i, r := range order {
		if is.Index(r) != i {
			return []string{"Index out of first-value order"}
		}
		out = append(out, strings.Join(groups[r], " "))
	}
	if is.Count() != len(order) {
		return []string{"Count is not the number of islands"}
	}
	return out
}

func addGraph(m *Module, name, vis string, in, out []Type, argAttrs, resAttrs []Attr) *Block {
	op := NewOp("coreai.graph", nil, nil, nil, Unknown)
	attrs := []NamedAttr{{AttrSymName, Str(name)}, {AttrFunctionType, &TypeAttr{&FunctionType{in, out}}}}
	if vis != "" {
		attrs = append(attrs, NamedAttr{AttrVisibility, Str(vis)})
	}
	if argAttrs != nil {
		attrs = append(attrs, NamedAttr{AttrArgAttrs, &ArrayAttr{Elems: argAttrs}}, NamedAttr{AttrResAttrs, &ArrayAttr{Elems: resAttrs}})
	}
	op.Props = Dict(attrs...)
	m.Body().Append(op)
	return op.AddRegion().AddBlock(in, nil)
}

// TestFloatIslands: one graph where every option changes the answer:
// a0 + c, cast(a1) * c, a f32→f32 cast of the product, both returned.
func TestFloatIslands(t *testing.T) {
	m := NewModule()
	f16, f32 := Tensor(F16, 2), Tensor(F32, 2)
	b := addGraph(m, "main", "", []Type{f32, f16}, []Type{f32, f32}, nil, nil)
	label := map[*Value]string{b.Arg(0): "a0", b.Arg(1): "a1"}
	emit := func(name, opName string, operands ...*Value) *Value {
		op := NewOp(opName, operands, []Type{f32}, nil, Unknown)
		b.Append(op)
		label[op.Result(0)] = name
		return op.Result(0)
	}
	c := emit("c", "coreai.constant")
	op1 := emit("op1", "coreai.add", b.Arg(0), c)
	cast1 := emit("cast1", "coreai.cast", b.Arg(1))
	op2 := emit("op2", "coreai.mul", cast1, c)
	cast2 := emit("cast2", "coreai.cast", op2)
	b.Append(NewOp("coreai.output", []*Value{op1, cast2}, nil, nil, Unknown))
	tests := []struct {
		name string
		o    IslandOptions
		want []string
	}{
		{"shared constant welds, casts and outputs are shores", IslandOptions{}, []string{"a0 c op1 cast1 op2", "cast2"}},
		{"CastsJoin", IslandOptions{CastsJoin: true}, []string{"a0 c op1 cast1 op2 cast2"}},
		{"ConstantsApart: c joins its first user", IslandOptions{ConstantsApart: true}, []string{"a0 c op1", "cast1 op2", "cast2"}},
		{"SkipOperand", IslandOptions{SkipOperand: func(op *Operation, i int) bool { return op.Name == "coreai.mul" && i == 1 }},
			[]string{"a0 c op1", "cast1 op2", "cast2"}},
		{"Seed orders values", IslandOptions{Seed: []*Value{cast2, b.Arg(1)}}, []string{"cast2", "a0 c op1 cast1 op2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Member = isF32Value
			if got := islandGroups(FloatIslands(m.Graphs(), tc.o), label); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("islands = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFloatIslandsCallsAndStates: Callee joins a call's values with the
// callee's, States joins a state input with its output.
func TestFloatIslandsCallsAndStates(t *testing.T) {
	m := NewModule()
	f32 := Tensor(F32, 2)
	fb := addGraph(m, "f", "private", []Type{f32}, []Type{f32}, nil, nil)
	k := NewOp("coreai.constant", nil, []Type{f32}, nil, Unknown)
	fb.Append(k)
	fb.Append(NewOp("coreai.output", []*Value{k.Result(0)}, nil, nil, Unknown))
	mb := addGraph(m, "main", "", []Type{f32}, []Type{f32},
		[]Attr{Dict(NamedAttr{AttrName, Str("s")}, NamedAttr{AttrBufMutation, Str("s")})}, []Attr{Dict(NamedAttr{AttrName, Str("s")})})
	inv := NewOp("coreai.invoke", []*Value{mb.Arg(0)}, []Type{f32}, Dict(NamedAttr{"callee", &SymbolRefAttr{Root: "f"}}), Unknown)
	mb.Append(inv)
	mb.Append(NewOp("coreai.output", []*Value{inv.Result(0)}, nil, nil, Unknown))
	label := map[*Value]string{fb.Arg(0): "farg", k.Result(0): "k", mb.Arg(0): "s", inv.Result(0): "r"}
	callee := func(op *Operation) *Graph {
		if n, ok := Callee(op); ok {
			return m.Graph(n)
		}
		return nil
	}
	tests := []struct {
		name string
		o    IslandOptions
		want []string
	}{
		{"a call joins its own values", IslandOptions{}, []string{"farg", "k", "s r"}},
		{"Callee", IslandOptions{Callee: callee}, []string{"farg s", "k r"}},
		{"Callee and States", IslandOptions{Callee: callee, States: NewStateScope(StateOptions{}).States}, []string{"farg k s r"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Member = isF32Value
			if got := islandGroups(FloatIslands(m.Graphs(), tc.o), label); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("islands = %q, want %q", got, tc.want)
			}
		})
	}
}
