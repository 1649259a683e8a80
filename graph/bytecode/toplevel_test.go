package bytecode

import (
	"bytes"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
)

// TestTopLevelOps: the format allows any number of top-level ops, though
// MLIR's writer always writes one. A file with one module-shaped op keeps it
// as the module whatever its name; other shapes (several ops, or one without
// a region) are read into an implicit module and written back bare,
// byte-identical, and mlir-opt, which wraps such ops in a builtin.module as
// its parser does, prints them.
func TestTopLevelOps(t *testing.T) {
	cases := []struct {
		name, text string
		implicit   bool
		top        []string
	}{
		{"named module-like op", `"mps.module"() ({ "mps.func"() ({}) : () -> () }) : () -> ()`, false, []string{"mps.module"}},
		{"two ops", `module { "a.first"() : () -> () ` + "\n" + ` "b.second"() ({ "b.inner"() : () -> () }) : () -> () }`, true, []string{"a.first", "b.second"}},
		{"one op without a region", `module { "a.only"() {k = 1 : i32} : () -> () }`, true, []string{"a.only"}},
		{"no op", `module {}`, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := mlirtext.Parse("top.mlir", c.text)
			if err != nil {
				t.Fatal(err)
			}
			if !c.implicit {
				// The text parser wraps the op in a builtin.module; make it
				// the module itself.
				op := m.Body().First()
				op.Remove()
				m.Op = op
			}
			data := write(t, m, WriteOptions{})
			if c.implicit {
				// Write the module's body as the top-level ops.
				m1, src := read(t, data)
				src.bareTop = m1.Op
				m1.Implicit = true
				data = write(t, m1, WriteOptions{Source: src})
			}
			m2, src2 := read(t, data)
			var top []string
			if c.implicit {
				if !m2.Implicit || src2.bareTop != m2.Op {
					t.Fatalf("module not implicit")
				}
				for o := m2.Body().First(); o != nil; o = o.Next() {
					top = append(top, o.Name)
				}
			} else {
				top = []string{m2.Op.Name}
			}
			if strings.Join(top, ",") != strings.Join(c.top, ",") {
				t.Fatalf("top-level ops %v, want %v", top, c.top)
			}
			if err := graph.Verify(m2); err != nil {
				t.Errorf("Verify: %v", err)
			}
			if again := write(t, m2, WriteOptions{Source: src2}); !bytes.Equal(again, data) {
				t.Errorf("rewrite is not byte-identical")
			}
			oracle.EachMlirOpt(t, func(t *testing.T, tl oracle.MlirOptTool) {
				got := canonical(t, tl, data)
				for _, name := range c.top {
					if !strings.Contains(got, `"`+name+`"()`) {
						t.Errorf("mlir-opt printout lacks %s:\n%s", name, got)
					}
				}
				if c.implicit && !strings.HasPrefix(got, `"builtin.module"() ({`) {
					t.Errorf("mlir-opt did not wrap the ops in a module:\n%s", got)
				}
			})
		})
	}
}
