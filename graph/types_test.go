package graph_test

import (
	"bytes"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// TestParseSimpleType: every accepted spelling prints back as MLIR spells it,
// with the rank, static-ness, element count and bit width MLIR gives it;
// malformed spellings are refused with the text named.
func TestSimpleTypeSpellings(t *testing.T) {
	cases := []struct {
		in, want string
		rank     int
		static   bool
		elems    int64
		bits     int // BitWidth of the element type
	}{
		{"f16", "f16", 0, false, 0, 16},
		{" bf16 ", "bf16", 0, false, 0, 16},
		{"f32", "f32", 0, false, 0, 32},
		{"f64", "f64", 0, false, 0, 64},
		{"si32", "si32", 0, false, 0, 32},
		{"ui4", "ui4", 0, false, 0, 4},
		{"i1", "i1", 0, false, 0, 1},
		{"index", "index", 0, false, 0, 64},
		{"tensor<2x3xf16>", "tensor<2x3xf16>", 2, true, 6, 16},
		{"tensor<f32>", "tensor<f32>", 0, true, 1, 32},
		{"tensor<?x4xsi8>", "tensor<?x4xsi8>", 2, false, -1, 8},
		{"tensor<*xf32>", "tensor<*xf32>", -1, false, -1, 32},
		{"tensor<1x2xf8E4M3FN>", "tensor<1x2xf8E4M3FN>", 2, true, 2, 8},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			ty, err := graph.ParseSimpleType(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if ty.String() != c.want {
				t.Errorf("String() = %q, want %q", ty, c.want)
			}
			if got := graph.BitWidth(graph.ElementType(ty)); got != c.bits {
				t.Errorf("BitWidth = %d, want %d", got, c.bits)
			}
			tt, ok := graph.AsTensor(ty)
			if !ok {
				if strings.HasPrefix(c.in, "tensor") {
					t.Fatal("AsTensor refused a tensor")
				}
				return
			}
			if tt.Rank() != c.rank || tt.IsStatic() != c.static || tt.NumElements() != c.elems {
				t.Errorf("rank %d static %v elements %d, want %d %v %d", tt.Rank(), tt.IsStatic(), tt.NumElements(), c.rank, c.static, c.elems)
			}
		})
	}
	for _, bad := range []string{"", "f17", "i0", "i01", "si", "tensor<2xq8>", "tensor<*xq>", "tensor<2x>", "tensor<axf16>", "vector<2xf16>", "tensor<2xf16"} {
		if ty, err := graph.ParseSimpleType(bad); err == nil {
			t.Errorf("ParseSimpleType(%q) = %v, want an error", bad, ty)
		}
	}
	if !graph.IsFloatKeyword("bf16") || graph.IsFloatKeyword("si32") {
		t.Error("IsFloatKeyword: bf16 is a float keyword, si32 is not")
	}
}

func mustType(t *testing.T, s string) graph.Type {
	t.Helper()
	ty, err := graph.ParseSimpleType(s)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// TestTypeEqual compares types structurally (two parses of one spelling are
// distinct pointers) and tells apart what MLIR tells apart.
func TestTypeEqual(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"f16", "f16", true},
		{"f16", "bf16", false},
		{"si32", "si32", true},
		{"si32", "i32", false},
		{"si32", "ui32", false},
		{"tensor<2x3xf16>", "tensor<2x3xf16>", true},
		{"tensor<2x3xf16>", "tensor<3x2xf16>", false},
		{"tensor<2x3xf16>", "tensor<2x3xf32>", false},
		{"tensor<2xf16>", "tensor<2x1xf16>", false},
		{"tensor<*xf16>", "tensor<f16>", false},
		{"tensor<2xf16>", "f16", false},
		{"index", "index", true},
		{"index", "i64", false},
	}
	for _, c := range cases {
		if got := graph.TypeEqual(mustType(t, c.a), mustType(t, c.b)); got != c.want {
			t.Errorf("TypeEqual(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if graph.TypeEqual(nil, mustType(t, "f16")) || !graph.TypeEqual(nil, nil) {
		t.Error("TypeEqual with nil: only nil equals nil")
	}
	enc := &graph.TensorType{Shape: []int64{2}, Elem: graph.F16, Encoding: graph.Str("e")}
	if graph.TypeEqual(enc, graph.Tensor(graph.F16, 2)) || !graph.TypeEqual(enc, &graph.TensorType{Shape: []int64{2}, Elem: graph.F16, Encoding: graph.Str("e")}) {
		t.Error("TypeEqual must compare tensor encodings")
	}
	if s := enc.String(); s != `tensor<2xf16, "e">` {
		t.Errorf("encoded tensor prints %q", s)
	}
	ft := &graph.FunctionType{Inputs: []graph.Type{graph.F16}, Results: []graph.Type{graph.F32, graph.F16}}
	if ft.String() != "(f16) -> (f32, f16)" || !graph.TypeEqual(ft, &graph.FunctionType{Inputs: []graph.Type{graph.F16}, Results: []graph.Type{graph.F32, graph.F16}}) {
		t.Errorf("function type prints %q", ft)
	}
}

// TestTensorCopies: WithElem and WithShape return copies; the original is
// unchanged (passes retype values through them).
func TestTensorCopies(t *testing.T) {
	orig := graph.Tensor(graph.F32, 2, 3)
	h := orig.WithElem(graph.F16)
	r := orig.WithShape([]int64{6})
	h.Shape[0] = 9
	if orig.String() != "tensor<2x3xf32>" || h.String() != "tensor<9x3xf16>" || r.String() != "tensor<6xf32>" {
		t.Errorf("orig %s, WithElem %s, WithShape %s", orig, h, r)
	}
	un := &graph.TensorType{Unranked: true, Elem: graph.F16}
	if got := un.WithShape([]int64{4}); got.Rank() != 1 || got.Unranked {
		t.Errorf("WithShape on an unranked tensor: %s", got)
	}
}

// TestHandles: !coreai.handle<tensor> is a shaped type whose element type is
// the tensor's; a handle of no tensor (a token) is not a handle.
func TestHandles(t *testing.T) {
	tt := graph.Tensor(graph.F16, 1, 8)
	h := graph.HandleOf(tt)
	if h.String() != "!coreai.handle<tensor<1x8xf16>>" {
		t.Fatalf("HandleOf prints %s", h)
	}
	if !graph.IsHandle(h) || graph.IsToken(h) || graph.IsHandle(tt) {
		t.Error("IsHandle/IsToken misclassify a handle or a tensor")
	}
	if e := graph.ElementType(h); !graph.IsFloat(e, "f16") {
		t.Errorf("ElementType(handle) = %v", e)
	}
	if in, ok := graph.AsTensor(h); !ok || !graph.TypeEqual(in, tt) {
		t.Errorf("AsTensor(handle) = %v, %v", in, ok)
	}
	if _, ok := graph.AsTensor(graph.F16); ok {
		t.Error("AsTensor(f16) must fail")
	}
	if graph.ElementType(graph.F32) != graph.F32 {
		t.Error("ElementType of a scalar is the scalar")
	}
}

func TestBitWidth(t *testing.T) {
	for _, c := range []struct {
		ty   graph.Type
		want int
	}{
		{graph.F16, 16}, {&graph.FloatType{Name: "bf16"}, 16}, {graph.F32, 32}, {&graph.FloatType{Name: "tf32"}, 32},
		{&graph.FloatType{Name: "f64"}, 64}, {&graph.FloatType{Name: "f8E5M2"}, 8}, {&graph.FloatType{Name: "f4E2M1FN"}, 4},
		{&graph.FloatType{Name: "f6E3M2FN"}, 6}, {&graph.FloatType{Name: "f80"}, 80}, {&graph.FloatType{Name: "f128"}, 128},
		{graph.Index, 64}, {&graph.IntegerType{Width: 4, Signedness: graph.Unsigned}, 4}, {graph.None, 0}, {graph.Tensor(graph.F16, 2), 0},
	} {
		if got := graph.BitWidth(c.ty); got != c.want {
			t.Errorf("BitWidth(%s) = %d, want %d", c.ty, got, c.want)
		}
	}
}

// TestDenseElements decodes constants the parser read from text, element by
// element, and prints them back as MLIR does.
func TestDenseElements(t *testing.T) {
	cases := []struct {
		attr   string
		floats []float64
		ints   []int64
		print  string
	}{
		{"dense<[1.5, -2.0]> : tensor<2xf16>", []float64{1.5, -2}, nil, "dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf16>"},
		{"dense<0.25> : tensor<3xf32>", []float64{0.25, 0.25, 0.25}, nil, "dense<2.500000e-01> : tensor<3xf32>"},
		{"dense<[-1, 7]> : tensor<2xsi8>", []float64{-1, 7}, []int64{-1, 7}, "dense<[-1, 7]> : tensor<2xsi8>"},
		{"dense<[255, 1]> : tensor<2xui8>", []float64{255, 1}, []int64{255, 1}, "dense<[255, 1]> : tensor<2xui8>"},
		{"dense<[3, -4]> : tensor<2xi32>", []float64{3, -4}, []int64{3, -4}, "dense<[3, -4]> : tensor<2xi32>"},
		{"dense<[true, false]> : tensor<2xi1>", []float64{1, 0}, []int64{-1, 0}, "dense<[true, false]> : tensor<2xi1>"},
		{"dense<1.0> : tensor<2xbf16>", []float64{1, 1}, nil, "dense<1.000000e+00> : tensor<2xbf16>"},
	}
	for _, c := range cases {
		t.Run(c.attr, func(t *testing.T) {
			a := constantValue(t, c.attr)
			d, ok := a.(*graph.DenseElementsAttr)
			if !ok {
				t.Fatalf("parsed %T, want *DenseElementsAttr", a)
			}
			if d.NumElements() != int64(len(c.floats)) {
				t.Fatalf("NumElements %d, want %d", d.NumElements(), len(c.floats))
			}
			for i, want := range c.floats {
				if got := d.Float64At(int64(i)); got != want {
					t.Errorf("Float64At(%d) = %g, want %g", i, got, want)
				}
			}
			for i, want := range c.ints {
				if got := d.Int64At(int64(i)); got != want && !(want == -1 && got == 1) {
					t.Errorf("Int64At(%d) = %d, want %d", i, got, want)
				}
			}
			if d.String() != c.print {
				t.Errorf("String() = %q, want %q", d, c.print)
			}
			if !graph.AttrEqual(d, constantValue(t, c.attr)) || graph.AttrEqual(d, nil) {
				t.Error("AttrEqual: two parses of one attribute must be equal, and unequal to nil")
			}
		})
	}
}

// constantValue parses one coreai.constant and returns its value attribute.
func constantValue(t *testing.T, attr string) graph.Attr {
	t.Helper()
	ty := attr[strings.LastIndex(attr, ": ")+2:]
	m := parse(t, "module {\n  coreai.graph @main() -> "+ty+" {\n    %0 = coreai.constant "+attr+"\n    coreai.output %0 : "+ty+"\n  }\n}\n")
	op := m.Graphs()[0].Body().First()
	for _, name := range []string{"value", "val"} {
		if a := op.Inherent(name); a != nil {
			return a
		}
	}
	t.Fatalf("constant has no value attribute: %s", op.Describe())
	return nil
}

// TestScalarAttrs: scalar attributes print as MLIR prints them and decode.
func TestScalarAttrs(t *testing.T) {
	f := graph.Float(0.5, graph.F16)
	if v, ok := f.Float64(); !ok || v != 0.5 || f.String() != "5.000000e-01 : f16" {
		t.Errorf("Float(0.5, f16): %v %v %q", v, ok, f)
	}
	if _, ok := (&graph.FloatAttr{Type: graph.Index}).Float64(); ok {
		t.Error("a float attribute of a non-float type must not decode")
	}
	inf := graph.Float(math.Inf(-1), graph.F32)
	if v, _ := inf.Float64(); !math.IsInf(v, -1) {
		t.Errorf("-inf decodes as %v", v)
	}
	for _, c := range []struct {
		a    graph.Attr
		want string
	}{
		{graph.Int(-3, &graph.IntegerType{Width: 32, Signedness: graph.Signed}), "-3 : si32"},
		{graph.Int(1, &graph.IntegerType{Width: 1}), "true"},
		{graph.Str("a\"b\n"), `"a\22b\0A"`}, // MLIR escapes '"' in hex too
		{&graph.BoolAttr{Value: true}, "true"},
		{&graph.BoolAttr{}, "false"},
		{&graph.UnitAttr{}, "unit"},
		{&graph.TypeAttr{Type: graph.Tensor(graph.F16, 2)}, "tensor<2xf16>"},
		{&graph.ArrayAttr{Elems: []graph.Attr{graph.Str("x"), &graph.UnitAttr{}}}, `["x", unit]`},
		{graph.Dict(graph.NamedAttr{Name: "b", Value: graph.Str("2")}, graph.NamedAttr{Name: "a", Value: &graph.UnitAttr{}}), `{a, b = "2"}`},
		{&graph.SymbolRefAttr{Root: "f"}, "@f"},
		{&graph.SymbolRefAttr{Root: "a b"}, `@"a b"`},
		{&graph.DenseResourceAttr{Key: "w", Type: graph.Tensor(graph.F16, 2)}, "dense_resource<w> : tensor<2xf16>"},
		{&graph.OpaqueAttr{Text: "#x.y<1>"}, "#x.y<1>"},
		{&graph.LocAttr{Loc: &graph.NameLoc{Name: "n"}}, `loc("n")`},
	} {
		if got := c.a.String(); got != c.want {
			t.Errorf("%T prints %q, want %q", c.a, got, c.want)
		}
	}
}

// TestDict: entries stay sorted, With replaces and removes without touching
// the original, and a nil dict reads as empty.
func TestDict(t *testing.T) {
	d := graph.Dict(graph.NamedAttr{Name: "b", Value: graph.Str("1")}, graph.NamedAttr{Name: "a", Value: graph.Str("2")}, graph.NamedAttr{Name: "b", Value: graph.Str("3")})
	if d.Len() != 2 || d.String() != `{a = "2", b = "3"}` {
		t.Fatalf("Dict = %s (len %d)", d, d.Len())
	}
	d2 := d.With("a", nil).With("c", graph.Str("4"))
	if d2.String() != `{b = "3", c = "4"}` || d.String() != `{a = "2", b = "3"}` {
		t.Errorf("With: %s, original now %s", d2, d)
	}
	var none *graph.DictAttr
	if none.Len() != 0 || none.Get("a") != nil || none.With("a", graph.Str("x")).Len() != 1 {
		t.Error("a nil dict must read as empty")
	}
	if d.Get("zz") != nil || d.Get("a") == nil {
		t.Error("Get")
	}
}

// TestResources: keys are made unique, blobs read whole, through a reader
// and from a section of a larger file, and removal drops only the key.
func TestResources(t *testing.T) {
	m := graph.NewModule()
	r := m.AddResource(m.UniqueResourceKey("w"), 8, graph.MemBlob("abcd"))
	k2 := m.UniqueResourceKey("w")
	file := bytes.NewReader([]byte("0123456789"))
	r2 := m.AddResource(k2, 16, &graph.SectionBlob{R: file, Offset: 3, N: 4})
	if r.Key != "w" || k2 != "w_1" || m.UniqueResourceKey("w") != "w_2" {
		t.Errorf("keys %q %q, next %q", r.Key, k2, m.UniqueResourceKey("w"))
	}
	if b, err := r2.Bytes(); err != nil || string(b) != "3456" || r2.Size() != 4 {
		t.Errorf("section blob: %q %v size %d", b, err, r2.Size())
	}
	if b, err := io.ReadAll(r.Reader()); err != nil || string(b) != "abcd" {
		t.Errorf("Reader: %q %v", b, err)
	}
	if m.Resource("w_1") != r2 || m.Resource("nope") != nil {
		t.Error("Resource lookup")
	}
	m.RemoveResource("w")
	m.RemoveResource("absent")
	if len(m.Resources) != 1 || m.Resources[0] != r2 {
		t.Errorf("after RemoveResource: %d resources", len(m.Resources))
	}
	empty := &graph.Resource{Key: "e"}
	if _, err := empty.Bytes(); err == nil || !strings.Contains(err.Error(), `"e"`) || empty.Size() != 0 {
		t.Errorf("a resource without a blob: %v", err)
	}
}

// TestValueSets: union-find over values; the first value of a union stays
// its representative.
func TestValueSets(t *testing.T) {
	m := parse(t, `module {
  coreai.graph @main(%a: tensor<2xf16>, %b: tensor<2xf16>, %c: tensor<2xf16>, %d: tensor<2xf16>) -> tensor<2xf16> {
    coreai.output %a : tensor<2xf16>
  }
}`)
	args := m.Graphs()[0].Body().Args()
	a, b, c, d := args[0], args[1], args[2], args[3]
	s := graph.NewValueSets()
	if s.Has(a) {
		t.Fatal("empty sets have a member")
	}
	s.Add(a)
	s.Union(b, c)
	s.Union(a, c)
	if !s.Has(a) || !s.Has(b) || s.Has(d) {
		t.Error("Has")
	}
	if s.Find(c) != a || s.Find(b) != a {
		t.Errorf("representative of {a, b, c} is not a")
	}
	if s.Find(d) != d || !s.Has(d) {
		t.Error("Find adds a new value as its own set")
	}
	s.Union(a, b) // already joined: no change
	if s.Find(b) != a {
		t.Error("a second union changed the representative")
	}
}
