package graph_test

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

const editSrc = `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.sigmoid %x : tensor<4xf16> -> tensor<4xf16>
    %1 = coreai.broadcasting_add %0, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    coreai.output %1 : tensor<4xf16>
  }
}`

// TestOpAccessors walks a parsed graph through the accessors passes use and
// checks each against the text.
func TestOpAccessors(t *testing.T) {
	m := parse(t, editSrc)
	g := m.Graph("main")
	if g == nil || m.Graph("absent") != nil {
		t.Fatal("Graph lookup by name")
	}
	b := g.Body()
	x := b.Args()[0]
	if blk, i, ok := x.BlockArg(); !ok || blk != b || i != 0 || x.DefiningOp() != nil || x.ResultIndex() != -1 {
		t.Errorf("block argument: %v %d %v", blk, i, ok)
	}
	if b.Len() != 3 || len(b.Ops()) != 3 || b.Parent().ParentOp() != g.Op || b.ParentOp() != g.Op || b.Parent().Index(b) != 0 {
		t.Fatalf("block shape: len %d", b.Len())
	}
	sig, add, out := b.Ops()[0], b.Ops()[1], b.Ops()[2]
	if sig.Dialect() != "coreai" || sig.Block() != b || sig.ParentOp() != g.Op || sig.Prev() != nil || add.Prev() != sig || sig.Next() != add {
		t.Error("op position accessors")
	}
	if add.NumOperands() != 2 || add.Operand(0) != sig.Result(0) || add.Operands()[1] != x || add.NumResults() != 1 || add.Results()[0].DefiningOp() != add || add.Results()[0].ResultIndex() != 0 {
		t.Error("operand/result accessors")
	}
	if out != g.Terminator() || graph.TerminatorName(g.Op.Name) != "coreai.output" || graph.TerminatorName("func.func") != "func.return" {
		t.Error("terminator")
	}
	if (&graph.Operation{Name: "noprefix"}).Dialect() != "" {
		t.Error("an op name without a dot has no dialect")
	}
	if len(sig.Successors()) != 0 {
		t.Error("sigmoid has successors")
	}
	sig.SetSuccessors([]*graph.Block{b})
	if len(sig.Successors()) != 1 {
		t.Error("SetSuccessors")
	}
	sig.SetSuccessors(nil)
	sig.SetAttr("note", graph.Str("n"))
	if a := sig.Attr("note"); a == nil || a.String() != `"n"` {
		t.Errorf("Attr after SetAttr: %v", a)
	}
	sig.SetAttr("note", nil)
	if sig.Attr("note") != nil {
		t.Error("SetAttr(nil) must remove the attribute")
	}
	if err := graph.Verify(m); err != nil {
		t.Fatal(err)
	}
}

// TestEdits: inserting, erasing and result removal keep use lists right
// (Verify checks them) or refuse with the op named.
func TestEdits(t *testing.T) {
	m := parse(t, editSrc)
	g := m.Graph("main")
	b := g.Body()
	x := b.Args()[0]
	sig, add := b.Ops()[0], b.Ops()[1]

	// An op with a result still used cannot be erased, nor can its result.
	if err := sig.Erase(); err == nil || !strings.Contains(err.Error(), "result 0 is used by coreai.broadcasting_add") {
		t.Errorf("Erase of a used op: %v", err)
	}
	if err := sig.EraseResult(0); err == nil || !strings.Contains(err.Error(), "still has 1 uses") {
		t.Errorf("EraseResult of a used result: %v", err)
	}

	// A new first op and an op after sigmoid, then rewire add through them.
	neg := graph.NewOp("coreai.negative", []*graph.Value{x}, []graph.Type{x.Type()}, nil, &graph.NameLoc{Name: "neg"})
	b.Prepend(neg)
	abs := graph.NewOp("coreai.abs", []*graph.Value{neg.Result(0)}, []graph.Type{x.Type()}, nil, &graph.NameLoc{Name: "abs"})
	abs.InsertAfter(sig)
	add.SetOperand(0, abs.Result(0))
	if b.Ops()[0] != neg || b.Ops()[2] != abs || b.Len() != 5 {
		t.Fatalf("order after Prepend/InsertAfter: %v", opNames(b))
	}
	if sig.Result(0).HasUses() {
		t.Fatal("sigmoid is still used after SetOperand")
	}
	// A spare result can be added and dropped again.
	extra := sig.AddResult(x.Type())
	if extra.ResultIndex() != 1 || sig.EraseResult(1) != nil || sig.NumResults() != 1 {
		t.Error("AddResult/EraseResult")
	}
	if err := sig.Erase(); err != nil {
		t.Fatal(err)
	}
	if !sig.IsErased() || b.Len() != 4 {
		t.Errorf("after Erase: erased %v, %v", sig.IsErased(), opNames(b))
	}
	if err := graph.Verify(m); err != nil {
		t.Fatalf("edited module does not verify: %v", err)
	}

	// A use of an erased op's result is what the verifier reports.
	m2 := parse(t, editSrc)
	b2 := m2.Graph("main").Body()
	s2 := b2.Ops()[0]
	s2.Remove()
	if err := graph.Verify(m2); err == nil || !strings.Contains(err.Error(), "operand 0 is a value that is not in the IR") {
		t.Errorf("Verify after removing a used op: %v", err)
	}
}

// TestUseBeforeDefinition: the verifier names an operand whose definition
// comes later in the block.
func TestUseBeforeDefinition(t *testing.T) {
	m := parse(t, editSrc)
	b := m.Graph("main").Body()
	sig, add := b.Ops()[0], b.Ops()[1]
	sig.Remove()
	sig.InsertAfter(add)
	err := graph.Verify(m)
	if err == nil || !strings.Contains(err.Error(), "does not dominate this use") {
		t.Errorf("Verify: %v", err)
	}
}

func opNames(b *graph.Block) []string {
	var s []string
	for _, o := range b.Ops() {
		s = append(s, o.Name)
	}
	return s
}

// TestLocStrings: every location kind prints in MLIR's syntax, and the op id
// and source are found through nesting.
func TestLocStrings(t *testing.T) {
	file := &graph.FileLoc{File: "/src/m.py", Line: 12, Col: 3}
	cases := []struct {
		loc            graph.Loc
		print, id, src string
	}{
		{graph.Unknown, "unknown", "", ""},
		{file, `"/src/m.py":12:3`, "", "/src/m.py:12"},
		{&graph.NameLoc{Name: "add_1", Child: file}, `"add_1"("/src/m.py":12:3)`, "add_1", "/src/m.py:12"},
		{&graph.NameLoc{Name: "n", Child: graph.Unknown}, `"n"`, "n", ""},
		{&graph.FusedLoc{Locs: []graph.Loc{&graph.NameLoc{Name: "a"}, file}}, `fused["a", "/src/m.py":12:3]`, "a", "/src/m.py:12"},
		{&graph.FusedLoc{Metadata: graph.Str("m"), Locs: []graph.Loc{file}}, `fused<"m">["/src/m.py":12:3]`, "", "/src/m.py:12"},
		{&graph.CallSiteLoc{Callee: &graph.NameLoc{Name: "inner"}, Caller: file}, `callsite("inner" at "/src/m.py":12:3)`, "inner", "/src/m.py:12"},
	}
	for _, c := range cases {
		if got := c.loc.String(); got != c.print {
			t.Errorf("String() = %q, want %q", got, c.print)
		}
		if got := graph.OpID(c.loc); got != c.id {
			t.Errorf("%s: OpID = %q, want %q", c.print, got, c.id)
		}
		if got := graph.Source(c.loc); got != c.src {
			t.Errorf("%s: Source = %q, want %q", c.print, got, c.src)
		}
	}
}

// TestOpNumberThroughNesting: coreai-torch's op_id is found inside name,
// fused and call-site locations; the "coreai" stage wins over others.
func TestOpNumberThroughNesting(t *testing.T) {
	dl := func(s string) graph.Loc { return &graph.DialectLoc{Attr: &graph.OpaqueAttr{Text: s}} }
	both := dl(`#debuginfo.location<metadata = {op_id = [{type = "fx", value = 3 : ui64}, {type = "coreai", value = 9 : ui64}]}>`)
	fxOnly := dl(`#debuginfo.location<metadata = {op_id = [{type = "fx", value = 4 : ui64}]}>`)
	cases := []struct {
		name string
		loc  graph.Loc
		n    uint64
		ok   bool
	}{
		{"coreai stage wins", both, 9, true},
		{"first of another stage", fxOnly, 4, true},
		{"none", dl(`#debuginfo.location<"f.py":1:0>`), 0, false},
		{"nil attribute", &graph.DialectLoc{}, 0, false},
		{"inside a name", &graph.NameLoc{Name: "x", Child: both}, 9, true},
		{"inside fused", &graph.FusedLoc{Locs: []graph.Loc{graph.Unknown, fxOnly}}, 4, true},
		{"callee first", &graph.CallSiteLoc{Callee: both, Caller: fxOnly}, 9, true},
		{"then caller", &graph.CallSiteLoc{Callee: graph.Unknown, Caller: fxOnly}, 4, true},
		{"file", &graph.FileLoc{File: "f", Line: 1}, 0, false},
	}
	for _, c := range cases {
		if n, ok := graph.OpNumber(c.loc); n != c.n || ok != c.ok {
			t.Errorf("%s: OpNumber = %d, %v; want %d, %v", c.name, n, ok, c.n, c.ok)
		}
	}
}
