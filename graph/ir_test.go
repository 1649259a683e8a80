package graph

import (
	"strings"
	"testing"
)

// buildGraph makes @main(x: tensor<2xf16>, s: tensor<2xf32> {state}) -> (y, s_new):
// a cast to f32, an add, a cast back.
func buildGraph(t *testing.T) (*Module, *Graph) {
	t.Helper()
	m := NewModule()
	in := []Type{Tensor(F16, 2), Tensor(F32, 2)}
	out := []Type{Tensor(F16, 2), Tensor(F32, 2)}
	props := Dict(
		NamedAttr{AttrSymName, Str("main")},
		NamedAttr{AttrFunctionType, &TypeAttr{&FunctionType{in, out}}},
		NamedAttr{AttrArgAttrs, &ArrayAttr{Elems: []Attr{
			Dict(NamedAttr{AttrName, Str("x")}),
			Dict(NamedAttr{AttrName, Str("s")}, NamedAttr{AttrBufMutation, Str("s")}),
		}}},
		NamedAttr{AttrResAttrs, &ArrayAttr{Elems: []Attr{
			Dict(NamedAttr{AttrName, Str("y")}),
			Dict(NamedAttr{AttrName, Str("s")}),
		}}},
	)
	gop := NewOp("coreai.graph", nil, nil, nil, Unknown)
	gop.Props = props
	b := gop.AddRegion().AddBlock(in, nil)
	m.Body().Append(gop)
	loc := &NameLoc{Name: "_to_copy_1", Child: &FileLoc{File: "/x/models/macos/qwen3_5.py", Line: 199, Col: 0}}
	c := NewOp("coreai.cast", []*Value{b.Arg(0)}, []Type{Tensor(F32, 2)}, nil, loc)
	b.Append(c)
	add := NewOp("coreai.broadcasting_add", []*Value{c.Result(0), b.Arg(1)}, []Type{Tensor(F32, 2)}, nil, &NameLoc{Name: "add_3"})
	b.Append(add)
	back := NewOp("coreai.cast", []*Value{add.Result(0)}, []Type{Tensor(F16, 2)}, nil, &NameLoc{Name: "_to_copy_2"})
	b.Append(back)
	b.Append(NewOp("coreai.output", []*Value{back.Result(0), add.Result(0)}, nil, nil, Unknown))
	g := m.Graphs()[0]
	if err := Verify(m); err != nil {
		t.Fatalf("fresh graph does not verify: %v", err)
	}
	return m, g
}

func TestGraphView(t *testing.T) {
	_, g := buildGraph(t)
	if g.Name() != "main" {
		t.Errorf("name = %q", g.Name())
	}
	ins, outs := g.Inputs(), g.Outputs()
	if len(ins) != 2 || ins[0].Name != "x" || ins[0].IsState || !ins[1].IsState || ins[1].StateOutput != "s" {
		t.Errorf("inputs = %+v", ins)
	}
	if len(outs) != 2 || outs[0].IsState || !outs[1].IsState {
		t.Errorf("outputs = %+v", outs)
	}
	c := g.Body().First()
	if c.OpID() != "_to_copy_1" || c.Source() != "/x/models/macos/qwen3_5.py:199" || ShortSource(c.Loc) != "macos/qwen3_5.py:199" {
		t.Errorf("op id %q source %q", c.OpID(), c.Source())
	}
}

func TestEditsKeepUseLists(t *testing.T) {
	m, g := buildGraph(t)
	b := g.Body()
	cast := b.First()
	add := cast.Next()
	// Strip the first cast: retype x's consumer chain by hand.
	cast.Result(0).ReplaceAllUsesWith(b.Arg(0))
	if err := cast.Erase(); err != nil {
		t.Fatal(err)
	}
	if len(b.Arg(0).Uses()) != 1 || b.Arg(0).Uses()[0].Op != add {
		t.Fatalf("uses of x = %+v", b.Arg(0).Uses())
	}
	// Now add mixes f16 and f32 operands: the verifier does not check op
	// semantics, but the terminator and signature still agree.
	if err := Verify(m); err != nil {
		t.Fatalf("verify after erase: %v", err)
	}
	// Retype an output without syncing the signature: must be caught.
	add.Result(0).SetType(Tensor(F16, 2))
	err := Verify(m)
	if err == nil || !strings.Contains(err.Error(), "declares result 1 as tensor<2xf32>") {
		t.Fatalf("want result type mismatch, got %v", err)
	}
	g.SyncOutputTypes()
	if err := Verify(m); err != nil {
		t.Fatal(err)
	}
}

func TestVerifierFindsProblems(t *testing.T) {
	cases := []struct {
		name string
		edit func(m *Module, g *Graph)
		want string
	}{
		{"use before def", func(m *Module, g *Graph) {
			b := g.Body()
			first := b.First()
			add := first.Next()
			add.Remove()
			add.InsertBefore(first)
		}, "does not dominate"},
		{"erase in use", func(m *Module, g *Graph) {
			if err := g.Body().First().Erase(); err == nil {
				t.Fatal("erasing a used op must fail")
			}
			g.Body().First().erase() // force it, as a buggy pass would
		}, "erased op"},
		{"missing terminator", func(m *Module, g *Graph) {
			g.Body().Last().Remove()
		}, "does not end in coreai.output"},
		{"bad symbol", func(m *Module, g *Graph) {
			g.Body().First().SetAttr("callee", &SymbolRefAttr{Root: "nowhere"})
		}, "symbol @nowhere is not defined"},
		{"bad resource", func(m *Module, g *Graph) {
			g.Body().First().SetAttr("value", &DenseResourceAttr{Key: "w", Type: Tensor(F16, 2)})
		}, "dense_resource<w> has no entry"},
		{"arg type", func(m *Module, g *Graph) {
			g.Body().Arg(0).SetType(Tensor(F32, 2))
		}, "input 0 is declared tensor<2xf16> but its block argument is tensor<2xf32>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, g := buildGraph(t)
			c.edit(m, g)
			err := Verify(m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want %q, got %v", c.want, err)
			}
		})
	}
}

func TestInvokeSignature(t *testing.T) {
	m, g := buildGraph(t)
	callee := NewOp("coreai.graph", nil, nil, nil, Unknown)
	callee.Props = Dict(NamedAttr{AttrSymName, Str("norm.rms_norm")},
		NamedAttr{AttrVisibility, Str("private")},
		NamedAttr{AttrFunctionType, &TypeAttr{&FunctionType{[]Type{Tensor(F32, 2)}, []Type{Tensor(F32, 2)}}}})
	cb := callee.AddRegion().AddBlock([]Type{Tensor(F32, 2)}, nil)
	cb.Append(NewOp("coreai.output", []*Value{cb.Arg(0)}, nil, nil, Unknown))
	m.Body().Append(callee)
	b := g.Body()
	inv := NewOp("coreai.invoke", []*Value{b.Arg(0)}, []Type{Tensor(F32, 2)},
		Dict(NamedAttr{"callee", &SymbolRefAttr{Root: "norm.rms_norm"}}), Unknown)
	inv.InsertBefore(b.Last())
	err := Verify(m)
	if err == nil || !strings.Contains(err.Error(), "operand 0 has type tensor<2xf16>, but @norm.rms_norm's input 0 is tensor<2xf32>") {
		t.Fatalf("got %v", err)
	}
	if got := g.Composites(); len(got) != 1 || got[0] != "norm.rms_norm" {
		t.Errorf("composites = %v", got)
	}
}

func TestSignatureEdits(t *testing.T) {
	m, g := buildGraph(t)
	v := g.AddInput(Tensor(SI32, 1), Dict(NamedAttr{AttrName, Str("in_step")}), Unknown)
	if err := g.AddOutput(v, Dict(NamedAttr{AttrName, Str("step_out")})); err != nil {
		t.Fatal(err)
	}
	if err := Verify(m); err != nil {
		t.Fatal(err)
	}
	if ins := g.Inputs(); len(ins) != 3 || ins[2].Name != "in_step" {
		t.Fatalf("inputs %+v", ins)
	}
	if err := g.RemoveInput(2); err == nil {
		t.Fatal("removing a used input must fail")
	}
	if err := g.RemoveOutput(2); err != nil {
		t.Fatal(err)
	}
	if err := g.RemoveInput(2); err != nil {
		t.Fatal(err)
	}
	if err := Verify(m); err != nil {
		t.Fatal(err)
	}
	g.SetInputType(0, Tensor(F16, 1, 2))
	if ft := g.FunctionType(); ft.Inputs[0].String() != "tensor<1x2xf16>" || g.Body().Arg(0).Type().String() != "tensor<1x2xf16>" {
		t.Fatalf("retype failed: %s", ft)
	}
}

func TestClone(t *testing.T) {
	m, g := buildGraph(t)
	c := g.Op.Clone(nil)
	c.Props = c.Props.(*DictAttr).With(AttrSymName, Str("copy"))
	m.Body().Append(c)
	if err := Verify(m); err != nil {
		t.Fatal(err)
	}
	if m.NumOps() != 10 {
		t.Fatalf("ops = %d", m.NumOps())
	}
}

func TestAttrPrinting(t *testing.T) {
	cases := []struct {
		a    Attr
		want string
	}{
		{Int(-3, SI32), "-3 : si32"},
		{Int(-1, UI8), "255 : ui8"},
		{Int(1, I1), "true"},
		{Float(0.1, F32), "1.000000e-01 : f32"}, // MLIR's spellings (graph/mlirfloat.go)
		{Float(1e-5, F32), "9.99999974E-6 : f32"},
		{Float(65504, F16), "6.550400e+04 : f16"},
		{&FloatAttr{Type: F32, Bits: 0x7f800000}, "0x7F800000 : f32"},
		{Str("a\"b\n"), `"a\22b\0A"`},
		{Dict(NamedAttr{"b", &UnitAttr{}}, NamedAttr{"a", Int(1, I64)}), "{a = 1 : i64, b}"},
		{&SymbolRefAttr{Root: "a.b", Nested: []string{"c d"}}, `@a.b::@"c d"`},
		{&DenseElementsAttr{Type: Tensor(SI32, 2), Raw: []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}}, "dense<[1, -1]> : tensor<2xsi32>"},
		{&DenseElementsAttr{Type: Tensor(F16, 2, 2), Raw: []byte{0, 0x3c}, Splat: true}, "dense<1.000000e+00> : tensor<2x2xf16>"},
		{IntArray(I64, 1, 2), "array<i64: 1, 2>"},
		{&DenseResourceAttr{Key: "w.0", Type: Tensor(F16, 4)}, "dense_resource<w.0> : tensor<4xf16>"},
	}
	for _, c := range cases {
		if got := c.a.String(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
}

func TestParseSimpleType(t *testing.T) {
	for _, s := range []string{"f16", "si32", "ui16", "i1", "index", "tensor<1x?x4xf8E4M3FN>", "tensor<*xbf16>", "tensor<f32>"} {
		ty, err := ParseSimpleType(s)
		if err != nil || ty.String() != s {
			t.Errorf("%s -> %v, %v", s, ty, err)
		}
	}
	for _, s := range []string{"tensor<2xq>", "i0x", "tensor<-1xf32>", "memref<2xf32>"} {
		if _, err := ParseSimpleType(s); err == nil {
			t.Errorf("%s parsed", s)
		}
	}
	h := &OpaqueType{Text: "!coreai.handle<tensor<1x8xf16>>"}
	if in := HandleInner(h); in == nil || in.String() != "tensor<1x8xf16>" || !IsHandleType(h) {
		t.Errorf("handle inner %v", in)
	}
}

func TestOpIDFromDebugInfoMetadata(t *testing.T) {
	meta := &OpaqueAttr{Text: `#debuginfo.metadata<sources = [{name = "torch", id = 12 : ui64, identifiers = ["_to_copy_12"]}]>`}
	l := &FusedLoc{Metadata: meta, Locs: []Loc{
		&FileLoc{File: "/m/models/macos/qwen3_5.py", Line: 199},
		&FileLoc{File: "/m/qwen3_5_ios.py", Line: 290},
	}}
	if got := OpID(l); got != "_to_copy_12" {
		t.Errorf("OpID = %q", got)
	}
	if got := ShortSource(l); got != "macos/qwen3_5.py:199" {
		t.Errorf("source = %q", got)
	}
	if got := OpID(&FusedLoc{Locs: []Loc{&FileLoc{File: "a"}, &NameLoc{Name: "add_3"}}}); got != "add_3" {
		t.Errorf("OpID without metadata = %q", got)
	}
	if got := OpID(&FusedLoc{Metadata: &OpaqueAttr{Text: `#x<identifiers = []>`}}); got != "" {
		t.Errorf("empty identifiers = %q", got)
	}
}

// A one-element literal prints the same whether it was built as a splat or
// not, so parse→print is a fixed point from the first print.
func TestOneElementDensePrintsAsSplat(t *testing.T) {
	raw := []byte{2, 0, 0, 0}
	a := &DenseElementsAttr{Type: Tensor(SI32, 1), Raw: raw, Splat: true}
	b := &DenseElementsAttr{Type: Tensor(SI32, 1), Raw: raw}
	if a.String() != "dense<2> : tensor<1xsi32>" || b.String() != a.String() {
		t.Errorf("%s vs %s", a, b)
	}
}

// fakeNative stands in for a codec's opaque native-properties blob.
type fakeNative struct{}

func (fakeNative) String() string { return "<native blob>" }
func (fakeNative) isAttr()        {}
func (fakeNative) BytecodeOnly() string {
	return "the native properties of coreai.graph are kept in their bytecode layout"
}

// A graph whose properties are opaque gets one clear problem, not a cascade
// of "no function_type" and unresolved-symbol errors.
func TestVerifyOpaqueGraphProps(t *testing.T) {
	m, g := buildGraph(t)
	g.Op.Props = fakeNative{}
	inv := NewOp("coreai.invoke", nil, nil, Dict(NamedAttr{"callee", &SymbolRefAttr{Root: "main"}}), Unknown)
	inv.InsertBefore(g.Body().Last())
	err := Verify(m)
	ve, ok := err.(*VerifyError)
	if !ok || len(ve.Problems) != 1 || !strings.Contains(ve.Problems[0], "cannot read this graph's name or signature") {
		t.Fatalf("got %v", err)
	}
	if op, why := FindBytecodeOnly(m); op != g.Op || !strings.Contains(why, "native properties") {
		t.Fatalf("FindBytecodeOnly = %v, %q", op, why)
	}
}

func TestNewGraphAndReturn(t *testing.T) {
	m := NewModule()
	g := NewGraph(m, "step", "private",
		GraphInput{Name: "x", Type: Tensor(F16, 4)},
		GraphInput{Name: "s", Type: Tensor(F16, 4), State: "s"})
	b := g.Body()
	add := NewOp("coreai.decomposable.broadcasting_add", []*Value{b.Arg(0), b.Arg(1)}, []Type{Tensor(F16, 4)}, nil, Unknown)
	b.Append(add)
	g.Return([]*Value{add.Result(0), add.Result(0)}, []string{"y", "s"})
	if err := Verify(m); err != nil {
		t.Fatal(err)
	}
	ins, outs := g.Inputs(), g.Outputs()
	if g.Name() != "step" || g.Visibility() != "private" || len(ins) != 2 || ins[0].Name != "x" || !ins[1].IsState ||
		len(outs) != 2 || outs[0].Name != "y" || !outs[1].IsState || g.FunctionType().String() != "(tensor<4xf16>, tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>)" {
		t.Fatalf("graph %s: ins %+v outs %+v", g.FunctionType(), ins, outs)
	}
	if _, ok := g.Op.Props.(*DictAttr); !ok || g.Op.Attrs != nil {
		t.Errorf("inherent attributes belong in properties: props %v attrs %v", g.Op.Props, g.Op.Attrs)
	}
}

func TestElementTypeCounts(t *testing.T) {
	m, g := buildGraph(t)
	// Inputs f16 and f32; results: cast f32, add f32, cast f16.
	got := ElementTypeCounts(g.Op)
	if len(got) != 2 || got["f16"] != 2 || got["f32"] != 3 {
		t.Errorf("graph census %v", got)
	}
	if mod := ElementTypeCounts(m.Op); mod["f16"] != 2 || mod["f32"] != 3 {
		t.Errorf("module census %v", mod)
	}
}

func TestDescribeInGraph(t *testing.T) {
	_, g := buildGraph(t)
	c := g.Body().First()
	if got := c.DescribeInGraph(); got != "@main: coreai.cast (_to_copy_1 at macos/qwen3_5.py:199)" {
		t.Errorf("op: %q", got)
	}
	if got := g.Op.DescribeInGraph(); got != "coreai.graph" {
		t.Errorf("graph op: %q", got)
	}
	// A coreai-torch dialect location: the FX name with the numeric op id.
	c.Loc = &DialectLoc{Attr: &OpaqueAttr{Text: `#debuginfo.location<src = loc("/w/macos/qwen3_5.py":199:0), scope = unit, metadata = [#debuginfo.metadata<name = "sources", data = [{id = 1 : ui64, identifiers = ["_to_copy_1"], name = "torch"}]>, #debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 7 : ui64}>]>`}}
	if got := c.DescribeInGraph(); got != "@main: coreai.cast (_to_copy_1 (op_id 7) at macos/qwen3_5.py:199)" {
		t.Errorf("op with a dialect location: %q", got)
	}
	var none *Operation
	if got := none.DescribeInGraph(); got != "(no op)" {
		t.Errorf("nil: %q", got)
	}
}

// A dialect location's op id is read from its textual form; one kept in a
// bytecode encoding has no text, so no id, and marks the module
// bytecode-only (text printers refuse it, naming the location).
func TestDialectLoc(t *testing.T) {
	readable := &DialectLoc{Attr: &OpaqueAttr{Text: `#debuginfo.location<sources = [{identifiers = ["_to_copy_3"]}]>`}}
	if got := OpID(readable); got != "_to_copy_3" {
		t.Errorf("OpID = %q", got)
	}
	encoded := &DialectLoc{Attr: fakeEncoded{}}
	if got := OpID(encoded); got != "" {
		t.Errorf("OpID of an encoded location = %q", got)
	}
	for _, c := range []struct {
		loc  Loc
		want string
	}{{readable, ""}, {encoded, "location attribute #aicode<4> is kept in its bytecode encoding"}, {&FusedLoc{Locs: []Loc{encoded}}, "location attribute"}} {
		m, g := buildGraph(t)
		g.Body().First().Loc = c.loc
		_, why := FindBytecodeOnly(m)
		if c.want == "" && why != "" || !strings.Contains(why, c.want) {
			t.Errorf("FindBytecodeOnly(%s) = %q, want %q", c.loc, why, c.want)
		}
	}
}

// fakeEncoded stands in for a codec's dialect attribute kept encoded.
type fakeEncoded struct{}

func (fakeEncoded) String() string { return "#aicode<4>" }
func (fakeEncoded) isAttr()        {}
func (fakeEncoded) BytecodeOnly() string {
	return "attribute #aicode<4> is kept in its bytecode encoding"
}
