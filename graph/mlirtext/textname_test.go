package mlirtext

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// TestTextName: an op the text wrote without a location is known by the
// SSA name of its first result group (graph.TextName, which the
// compression passes' weights= patterns match); an op with a location, or
// without results, has none; and the name changes nothing printed.
func TestTextName(t *testing.T) {
	src := `module {
  %v13 = "t.c"() : () -> i32
  %r:2 = "t.p"() : () -> (i32, i32)
  %named = "t.c"() : () -> i32 loc("fx_name")
  "t.use"(%v13, %r#1, %named) : (i32, i32, i32) -> ()
}
`
	m, _, err := Parse("n.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	m.Op.Walk(func(op *graph.Operation) bool {
		if op != m.Op {
			got = append(got, graph.TextName(op.Loc))
		}
		return true
	})
	want := []string{"%v13", "%r", "", ""}
	if len(got) != len(want) {
		t.Fatalf("names %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("op %d: TextName %q, want %q", i, got[i], want[i])
		}
	}
	for _, form := range []Form{FormGeneric, FormPretty} {
		out, err := Format(m, form)
		if err != nil {
			t.Fatal(err)
		}
		m0, _, err := parseUnshared("n.mlir", src)
		if err != nil {
			t.Fatal(err)
		}
		m0.Op.Walk(func(op *graph.Operation) bool {
			if f, ok := op.Loc.(*graph.FileLoc); ok {
				f.Result = ""
			}
			return true
		})
		if out0, err := Format(m0, form); err != nil || string(out0) != string(out) {
			t.Errorf("%v: the SSA names change the printout (%v):\n%s", form, err, firstDiff(string(out0), string(out)))
		}
	}
}
