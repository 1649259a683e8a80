package mlirtext

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// TestTextName: a coreai.constant is known by the SSA name the text gave
// it (graph.TextName, which the compression passes' weights= patterns
// match), in the pretty and the generic form, with or without a location;
// other ops get none (graph.Value.Loc says why); the
// name survives a clone and changes nothing printed.
func TestTextName(t *testing.T) {
	src := `module {
  %v13 = coreai.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %w = "coreai.constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf16>}> : () -> tensor<2xf16> loc("fx_name")
  %r:2 = "t.p"() : () -> (i32, i32)
  %s = coreai.exp %v13 : tensor<2xf16> -> tensor<2xf16>
  "t.use"(%s, %w, %r#1) : (tensor<2xf16>, tensor<2xf16>, i32) -> ()
}
`
	m, _, err := Parse("n.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	names := func(m *graph.Module) []string {
		var got []string
		for o := m.Body().First(); o != nil; o = o.Next() {
			got = append(got, graph.TextName(o))
		}
		return got
	}
	want := []string{"%v13", "%w", "", "", ""}
	for _, c := range []struct {
		what string
		m    *graph.Module
	}{{"parsed", m}, {"cloned", &graph.Module{Op: m.Op.Clone(nil)}}} {
		got := names(c.m)
		if len(got) != len(want) {
			t.Fatalf("%s: names %q, want %q", c.what, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: op %d: TextName %q, want %q", c.what, i, got[i], want[i])
			}
		}
	}
	for _, form := range []Form{FormGeneric, FormPretty} {
		out, err := Format(m, form)
		if err != nil {
			t.Fatal(err)
		}
		m0, _, err := Parse("n.mlir", src)
		if err != nil {
			t.Fatal(err)
		}
		for o := m0.Body().First(); o != nil; o = o.Next() {
			if o.NumResults() > 0 {
				o.Result(0).Loc = nil
			}
		}
		if out0, err := Format(m0, form); err != nil || string(out0) != string(out) {
			t.Errorf("%v: the SSA names change the printout (%v):\n%s", form, err, firstDiff(string(out0), string(out)))
		}
	}
}
