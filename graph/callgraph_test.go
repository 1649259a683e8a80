package graph

import (
	"reflect"
	"testing"
)

// callModule builds @main calling @priv and @pubcalled, plus an uncalled
// private @orphan, an uncalled nested @nest and a body-less @decl: one graph
// for each case where the entry rules can disagree.
func callModule(t *testing.T) *Module {
	t.Helper()
	m := NewModule()
	ty := Tensor(F16, 2)
	add := func(name, vis string, body bool, calls ...string) {
		op := NewOp("coreai.graph", nil, nil, nil, Unknown)
		attrs := []NamedAttr{{AttrSymName, Str(name)}, {AttrFunctionType, &TypeAttr{&FunctionType{[]Type{ty}, []Type{ty}}}}}
		if vis != "" {
			attrs = append(attrs, NamedAttr{AttrVisibility, Str(vis)})
		}
		op.Props = Dict(attrs...)
		m.Body().Append(op)
		if !body {
			return
		}
		b := op.AddRegion().AddBlock([]Type{ty}, nil)
		v := b.Arg(0)
		for i, c := range calls {
			opName := "coreai.invoke"
			if i%2 == 1 {
				opName = "func.call"
			}
			call := NewOp(opName, []*Value{v}, []Type{ty}, Dict(NamedAttr{"callee", &SymbolRefAttr{Root: c}}), Unknown)
			b.Append(call)
			v = call.Result(0)
		}
		b.Append(NewOp("coreai.output", []*Value{v}, nil, nil, Unknown))
	}
	add("main", "", true, "priv", "pubcalled", "priv")
	add("priv", "private", true)
	add("pubcalled", "public", true)
	add("orphan", "private", true)
	add("nest", "nested", true)
	add("decl", "", false)
	return m
}

func TestEntryGraphs(t *testing.T) {
	m := callModule(t)
	tests := []struct {
		rule entryRule
		want []string
	}{
		{EntryNotPrivate, []string{"main", "nest"}},
		{EntryPublic, []string{"main"}},
		{EntryUnlessPrivateCallee, []string{"main", "pubcalled", "orphan", "nest"}},
	}
	for _, tc := range tests {
		var got []string
		for _, g := range EntryGraphs(m, tc.rule) {
			got = append(got, g.Name())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("rule %d: entries = %v, want %v", tc.rule, got, tc.want)
		}
	}
}

func TestCallees(t *testing.T) {
	m := callModule(t)
	if got, want := Callees(m.Op), map[string]bool{"priv": true, "pubcalled": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("Callees = %v, want %v", got, want)
	}
	if got := m.Graph("main").Composites(); !reflect.DeepEqual(got, []string{"priv", "pubcalled"}) {
		t.Errorf("Composites = %v", got)
	}
	for _, tc := range []struct {
		op   *Operation
		want string
		ok   bool
	}{
		{NewOp("coreai.invoke", nil, nil, Dict(NamedAttr{"callee", &SymbolRefAttr{Root: "a", Nested: []string{"b"}}}), Unknown), "a", true},
		{NewOp("func.call", nil, nil, Dict(NamedAttr{"callee", &SymbolRefAttr{Root: "f"}}), Unknown), "f", true},
		{NewOp("func.call", nil, nil, Dict(NamedAttr{"callee", Str("f")}), Unknown), "", false},
		{NewOp("coreai.add", nil, nil, Dict(NamedAttr{"callee", &SymbolRefAttr{Root: "f"}}), Unknown), "", false},
	} {
		if got, ok := Callee(tc.op); got != tc.want || ok != tc.ok {
			t.Errorf("Callee(%s) = %q, %v; want %q, %v", tc.op.Name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPortLabel(t *testing.T) {
	for _, tc := range []struct {
		p    Port
		want string
	}{
		{Port{Index: 3, Name: "logits"}, "logits"},
		{Port{Index: 3}, "#3"},
		{Port{Index: 0}, "#0"},
	} {
		if got := tc.p.Label(); got != tc.want {
			t.Errorf("%+v.Label() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestCompositeName(t *testing.T) {
	for _, tc := range []struct {
		name string
		decl Attr
		want string
		ok   bool
	}{
		{"plain", &OpaqueAttr{Text: `#coreai.composite_declaration<"rms_norm" = {version = 1 : si64}>`}, "rms_norm", true},
		{"escaped quote kept escaped", &OpaqueAttr{Text: `#coreai.composite_declaration< "a\"b" = {}>`}, `a\"b`, true},
		{"other attribute", &OpaqueAttr{Text: `#other.decl<"x">`}, "", false},
		{"no decl", nil, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := NewOp("coreai.graph", nil, nil, nil, Unknown)
			attrs := []NamedAttr{{AttrSymName, Str("g")}}
			if tc.decl != nil {
				attrs = append(attrs, NamedAttr{AttrCompositeDec, tc.decl})
			}
			op.Props = Dict(attrs...)
			got, ok := (&Graph{Op: op}).CompositeName()
			if got != tc.want || ok != tc.ok {
				t.Errorf("CompositeName = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestFileLocs(t *testing.T) {
	f := func(file string, line int) *FileLoc { return &FileLoc{File: file, Line: line} }
	dl := &DialectLoc{Attr: &OpaqueAttr{Text: `#debuginfo.location<src = loc("in\22.py":8:2), fused_with = [#debuginfo.location<src = loc("out.py":30:0)>]>`}}
	loc := &FusedLoc{Locs: []Loc{
		&NameLoc{Name: "n", Child: f("a.py", 1)},
		&CallSiteLoc{Callee: f("callee.py", 2), Caller: &NameLoc{Name: "bare"}},
		dl,
		Unknown,
	}}
	str := func(ls []*FileLoc) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.String())
		}
		return out
	}
	builtin := []string{f("a.py", 1).String(), f("callee.py", 2).String()}
	// MLIR's \22 escape is not Go syntax, so strconv.Unquote fails and the
	// file keeps its escaped text (the behaviour passes/ane had; SourceLoc
	// decodes it with unescapeMLIR).
	all := append(append([]string{}, builtin...), (&FileLoc{File: `in\22.py`, Line: 8, Col: 2}).String(), f("out.py", 30).String())
	if got := str(FileLocs(loc)); !reflect.DeepEqual(got, all) {
		t.Errorf("FileLocs = %v, want %v", got, all)
	}
	if got := str(BuiltinFileLocs(loc)); !reflect.DeepEqual(got, builtin) {
		t.Errorf("BuiltinFileLocs = %v, want %v", got, builtin)
	}
	if got := FileLocs(nil); got != nil {
		t.Errorf("FileLocs(nil) = %v", got)
	}
}

func TestFindPortAndLabels(t *testing.T) {
	ports := []Port{{Index: 0, Name: "x"}, {Index: 1}, {Index: 2, Name: "s"}, {Index: 3, Name: "s"}}
	for _, tc := range []struct {
		name      string
		wantIndex int
		wantN     int
	}{
		{"x", 0, 1},
		{"s", 3, 2}, // the last of two, and the count says it is ambiguous
		{"nope", 0, 0},
	} {
		p, n := FindPort(ports, tc.name)
		if n != tc.wantN || (n > 0 && p.Index != tc.wantIndex) {
			t.Errorf("FindPort(%q) = port %d, %d; want port %d, %d", tc.name, p.Index, n, tc.wantIndex, tc.wantN)
		}
	}
	if got, want := PortLabels(ports), "x, #1, s, s"; got != want {
		t.Errorf("PortLabels = %q, want %q", got, want)
	}
	if got := PortLabels(nil); got != "" {
		t.Errorf("PortLabels(nil) = %q, want empty", got)
	}
}
