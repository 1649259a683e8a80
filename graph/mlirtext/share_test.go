package mlirtext

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// bodyOps returns m's ops without regions, in order.
func bodyOps(m *graph.Module) []*graph.Operation {
	var out []*graph.Operation
	m.Walk(func(op *graph.Operation) bool {
		if op != m.Op && len(op.Regions) == 0 {
			out = append(out, op)
		}
		return true
	})
	return out
}

// TestSharedLocations: every `loc(…)` spelled the same is one Loc, and so is
// a frame spelled the same inside different fused locations; different
// spellings are different locations, each printed back as written.
func TestSharedLocations(t *testing.T) {
	const meta = `#debuginfo.metadata<sources = [{identifiers = ["%s"], name = "torch"}]>`
	fused := func(id string, line int) string {
		return fmt.Sprintf(`fused<`+meta+`>["%s"("/m/q.py":%d:0), "/m/q.py":328:0, "/m/q.py":356:0]`, id, id, line)
	}
	locs := []string{
		fused("add", 10), fused("add", 10), // the same spelling twice in a row
		fused("mul", 11),                             // shares the frames "/m/q.py":328:0 and :356:0
		`"n"("a(b)\22c":1:2)`, `"n"("a(b)\22c":1:2)`, // parentheses and an escaped quote in a string
		`callsite("f" at "g.py":3:4)`, `callsite("f" at "g.py":3:4)`,
		`#debuginfo.location<src = loc("x.py":1:0), meta = {a -> b}>`, // '->' inside a dialect body
		fused("add", 10), // again, far from its first use
		`unknown`,
	}
	var b strings.Builder
	b.WriteString("module {\n")
	for i, l := range locs {
		fmt.Fprintf(&b, "  %%%d = \"t.c\"() : () -> i32 loc(%s)\n", i, l)
	}
	b.WriteString("}\n")
	text := b.String()
	m, _, err := Parse("s.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	ops := bodyOps(m)
	if len(ops) != len(locs) {
		t.Fatalf("%d ops, want %d", len(ops), len(locs))
	}
	for i, op := range ops {
		if got := op.Loc.String(); got != locs[i] {
			t.Errorf("op %d: location %s, want %s", i, got, locs[i])
		}
	}
	same := func(i, j int) bool { return ops[i].Loc == ops[j].Loc }
	for _, p := range [][2]int{{0, 1}, {0, 8}, {3, 4}, {5, 6}} {
		if !same(p[0], p[1]) {
			t.Errorf("ops %d and %d: the same spelling is two locations", p[0], p[1])
		}
	}
	if same(0, 2) || same(3, 5) {
		t.Error("different spellings share a location")
	}
	add, mul := ops[0].Loc.(*graph.FusedLoc), ops[2].Loc.(*graph.FusedLoc)
	if add.Locs[1] != mul.Locs[1] || add.Locs[2] != mul.Locs[2] {
		t.Error("a frame spelled the same in two fused locations is two locations")
	}
	if add.Locs[0] == mul.Locs[0] {
		t.Error("different name locations are shared")
	}
	// Printed back byte for byte.
	out, err := Format(m, FormGeneric)
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := Parse("s2.mlir", string(out))
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range bodyOps(m2) {
		if got := op.Loc.String(); got != locs[i] {
			t.Errorf("printed op %d: location %s, want %s", i, got, locs[i])
		}
	}
}

// TestSharedLocationErrors: a location that does not parse is refused at
// its own position whether or not one spelled like its start was seen
// before, and an alias it names must be defined where it is used, which
// sharing cannot change.
func TestSharedLocationErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"module {\n  %0 = \"t.c\"() : () -> i32 loc(\"a\":1:2)\n  %1 = \"t.c\"() : () -> i32 loc(\"a\":1:2 x)\n}\n", "s.mlir:3:"},
		{"module {\n  %0 = \"t.c\"() : () -> i32 loc(fused[#l1])\n}\n#l1 = loc(\"a\":1:2)\n", "undefined symbol alias id 'l1'"},
		{"module {\n  %0 = \"t.c\"() : () -> i32 loc(\"a\" // )\n  :1:2)\n}\n", ""}, // a comment inside: parsed, not shared
	}
	for _, c := range cases {
		_, _, err := Parse("s.mlir", c.text)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

// TestSharedLocationDepth: a location remembered from shallow nesting is
// not accepted where parsing it would pass the nesting bound.
func TestSharedLocationDepth(t *testing.T) {
	deep := strings.Repeat(`callsite("a" at `, 40) + `"z":1:1` + strings.Repeat(")", 40)
	op := `"t.c"() : () -> () loc(` + deep + ")\n"
	nested := func(n int) string {
		return strings.Repeat(`"t.r"() ({`+"\n", n) + op + strings.Repeat("}) : () -> ()\n", n)
	}
	fails := func(text string) bool {
		_, _, err := Parse("d.mlir", text)
		if err != nil && !strings.Contains(err.Error(), "nesting deeper than") {
			t.Fatalf("unexpected error: %v", err)
		}
		return err != nil
	}
	// The least region nesting at which the location itself passes the
	// bound (the op around it alone does not).
	n := 1
	for !fails("module {\n" + nested(n) + "}\n") {
		n++
	}
	if fails("module {\n"+nested(n-1)+"}\n") || !fails("module {\n"+nested(n)+"}\n") {
		t.Fatal("the bound is not where the search found it")
	}
	plain := strings.Repeat(`"t.r"() ({`+"\n", n) + `"t.c"() : () -> () loc("z":1:1)` + "\n" + strings.Repeat("}) : () -> ()\n", n)
	if fails("module {\n" + plain + "}\n") {
		t.Fatal("the nesting without the deep location fails too")
	}
	// With the same location seen first at the top, the deep one still fails.
	if !fails("module {\n" + op + nested(n) + "}\n") {
		t.Error("a location shared from shallow nesting was accepted past the nesting bound")
	}
}

// TestSharedSignaturesAndDicts: generic ops spelled with the same function
// type or the same property/attribute dictionary share one type or
// dictionary; the module prints back as written.
func TestSharedSignaturesAndDicts(t *testing.T) {
	text := `module {
  %0 = "t.c"() <{value = dense<1> : tensor<2xui32>}> : () -> tensor<2xui32>
  %1 = "t.c"() <{value = dense<1> : tensor<2xui32>}> : () -> tensor<2xui32>
  %2 = "t.c"() <{value = dense<2> : tensor<2xui32>}> : () -> tensor<2xui32>
  %3 = "t.add"(%0, %1) {tag = "x", n = 1 : i64} : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
  %4 = "t.add"(%1, %2) {tag = "x", n = 1 : i64} : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
  %5 = "t.add"(%3, %4) {n = 1 : i64, tag = "x"} : (tensor<2xui32>,tensor<2xui32>) -> tensor<2xui32>
}
`
	m, _, err := Parse("f.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	ops := bodyOps(m)
	if ops[0].Props != ops[1].Props || ops[0].Props == ops[2].Props {
		t.Error("properties: equal spellings not shared, or different ones shared")
	}
	if ops[3].Attrs != ops[4].Attrs || ops[3].Attrs == ops[5].Attrs {
		t.Error("attributes: equal spellings not shared, or different ones shared")
	}
	if ops[5].Attrs.String() != ops[3].Attrs.String() {
		t.Errorf("dictionaries %s and %s differ", ops[5].Attrs, ops[3].Attrs)
	}
	out, err := Format(m, FormGeneric)
	if err != nil {
		t.Fatal(err)
	}
	// The printer's spelling: sorted keys, one space after commas.
	want := strings.NewReplacer(`{tag = "x", n = 1 : i64}`, `{n = 1 : i64, tag = "x"}`,
		"(tensor<2xui32>,tensor<2xui32>)", "(tensor<2xui32>, tensor<2xui32>)").Replace(text)
	if got, want := opLines(string(out)), opLines(want); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
}

// opLines keeps the lines defining values, without the implicit
// locations the generic printer writes.
func opLines(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "%") {
			continue
		}
		if i := strings.LastIndex(line, " loc("); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
