package ops

import (
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

func TestRankOnly(t *testing.T) {
	f16, T := graph.F16, graph.Tensor
	cases := []struct {
		a, b graph.Type
		want bool
	}{
		{T(f16, 4), T(f16, 1, 4), true},
		{T(f16, 1, 4, 1), T(f16, 4), true},
		{T(f16), T(f16, 1, 1), true},
		{T(f16, 2, 6), T(f16, 6, 2), false},
		{T(f16, 2, 6), T(f16, 12), false},
		{T(f16, 256, 1, 32), T(f16, 1, 256, 32), false}, // same rank: not a rank change
		{T(f16, 4), T(graph.F32, 1, 4), false},
		{T(f16, graph.Dynamic), T(f16, 1, graph.Dynamic), false},
		{&graph.OpaqueType{Text: "!coreai.token"}, T(f16, 1), false},
	}
	for _, c := range cases {
		if got := RankOnly(c.a, c.b); got != c.want {
			t.Errorf("RankOnly(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// TestConstStyle: a new constant copies how the module's constants hold
// their value (property or attribute, and its name); ConstInProps always
// uses a "value" property.
func TestConstStyle(t *testing.T) {
	for _, c := range []struct {
		name, src, attr string
		props           bool
	}{
		{"no constants", `module {}`, "value", false},
		{"attribute", `module { %0 = "coreai.constant"() {val = dense<1> : tensor<1xsi32>} : () -> tensor<1xsi32> }`, "val", false},
		{"property", `module { %0 = "coreai.constant"() <{value = dense<1> : tensor<1xsi32>}> : () -> tensor<1xsi32> }`, "value", true},
	} {
		m, _, err := mlirtext.Parse(c.name+".mlir", c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		a := IntDense(graph.UI32, []int64{2}, []int64{3, 4})
		op := Const(m, a, PassLoc("test", nil))
		where := op.Attrs
		if c.props {
			where, _ = op.Props.(*graph.DictAttr)
		}
		if where == nil || where.Len() != 1 || where.Entries[0].Name != c.attr || where.Entries[0].Value != graph.Attr(a) {
			t.Errorf("%s: attrs %v props %v, want %s in props=%v", c.name, op.Attrs, op.Props, c.attr, c.props)
		}
		if n, ok := op.Loc.(*graph.NameLoc); !ok || n.Name != "anefix.test" || n.Child != graph.Unknown {
			t.Errorf("%s: loc %v", c.name, op.Loc)
		}
	}
	p := ConstInProps(IntDense(graph.SI32, nil, []int64{7}), graph.Unknown)
	if d, ok := p.Props.(*graph.DictAttr); !ok || d.Len() != 1 || d.Entries[0].Name != "value" || p.Attrs.Len() != 0 {
		t.Errorf("ConstInProps: attrs %v props %v", p.Attrs, p.Props)
	}
	r := Reshape(graph.NewModule(), nil, graph.Tensor(graph.F16, 1, 4), graph.Unknown)
	if len(r) != 2 || r[0].Name != "coreai.constant" || r[1].Name != "coreai.reshape" || r[1].Operand(1) != r[0].Result(0) {
		t.Errorf("Reshape = %v", r)
	}
}
