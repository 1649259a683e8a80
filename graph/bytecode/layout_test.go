package bytecode

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
)

var layoutsFile = filepath.Join("testdata", "layouts.mlir")

// TestNativeLayoutsMlirOpt: the func.func, func.call and builtin.module
// properties each mlir-opt release writes are decoded with the layout
// confirmed for that release (6 func.func fields in MLIR 22, 5 in MLIR 19),
// written back byte-identical, and after a change (a rename and a dropped
// no_inline, re-encoded in the input's layout) and a re-encode at versions 5
// and 4, read by the same mlir-opt as the same IR as its own bytecode of the
// edited text.
func TestNativeLayoutsMlirOpt(t *testing.T) {
	text, err := os.ReadFile(layoutsFile)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer("@callee", "@target", "{no_inline} : (tensor<4xf16>)", ": (tensor<4xf16>)").Replace(string(text))
	editedPath := filepath.Join(t.TempDir(), "edited.mlir")
	if err := os.WriteFile(editedPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	oracle.EachMlirOpt(t, func(t *testing.T, tl oracle.MlirOptTool) {
		major := producerMLIRMajor(tl.Producer)
		data := emitBytecode(t, tl, layoutsFile, 6)
		m, src := read(t, data)
		var calls []*graph.Operation
		m.Walk(func(op *graph.Operation) bool {
			switch op.Name {
			case "func.func", "func.call", "builtin.module":
				rec := src.recordOf(op)
				if rec.layout == nil || !rec.layout.forMLIR(major) {
					t.Errorf("%s: properties %T not decoded with the MLIR %d layout (%+v)", op.Describe(), op.Props, major, rec.layout)
				}
			}
			if op.Name == "func.call" {
				calls = append(calls, op)
			}
			return true
		})
		if got := write(t, m, WriteOptions{Source: src}); !bytes.Equal(got, data) {
			t.Fatalf("unchanged rewrite is not byte-identical")
		}
		callee := m.Graph("callee")
		if callee == nil || len(calls) != 2 {
			t.Fatalf("callee %v, %d calls", callee, len(calls))
		}
		// MLIR 22 holds no_inline in the properties, MLIR 19 among the
		// discardable attributes.
		inProps := func(op *graph.Operation) bool {
			d, _ := op.Props.(*graph.DictAttr)
			return d.Get("no_inline") != nil
		}
		if want := major >= 22; inProps(callee.Op) != want || inProps(calls[0]) != want || callee.Op.Inherent("no_inline") == nil {
			t.Errorf("no_inline in properties: func %v call %v, want %v", inProps(callee.Op), inProps(calls[0]), want)
		}

		callee.Op.SetInherent(graph.AttrSymName, graph.Str("target"))
		for _, c := range calls {
			c.SetInherent("callee", &graph.SymbolRefAttr{Root: "target"})
		}
		calls[0].SetInherent("no_inline", nil)
		for _, v := range []int{6, 5, 4} {
			out := write(t, m, WriteOptions{Source: src, Version: v})
			want := strings.ReplaceAll(canonical(t, tl, emitBytecode(t, tl, editedPath, v)), editedPath, layoutsFile)
			if got := canonical(t, tl, out); got != want {
				t.Errorf("v%d: mlir-opt printout differs from its own bytecode of the edited text\n%s", v, diffLines(want, got))
			}
		}
	})
}

// withProducer replaces a producer string by another of the same length, so
// that every offset in the file stays valid.
func withProducer(t *testing.T, data []byte, from, to string) []byte {
	t.Helper()
	if len(from) != len(to) || bytes.Count(data, []byte(from+"\x00")) != 1 {
		t.Fatalf("cannot replace producer %q by %q", from, to)
	}
	return bytes.Replace(data, []byte(from+"\x00"), []byte(to+"\x00"), 1)
}

// TestNativeLayoutInferred: for a producer whose MLIR release has no
// confirmed layout (20, 21, or a writer that is not MLIR), or one that names
// the wrong release, the layout is inferred from the blob: the one known
// layout that fits it completely with every field of the right kind.
func TestNativeLayoutInferred(t *testing.T) {
	tl := oracle.MlirOpts[1]
	data := emitBytecode(t, tl, layoutsFile, 6)
	for _, producer := range []string{"MLIR20.0.0", "MLIR19.1.7", "NotMLIR123"} {
		t.Run(producer, func(t *testing.T) {
			d := withProducer(t, data, tl.Producer, producer)
			m, src := read(t, d)
			fn := findOp(m, "func.func")
			if rec := src.recordOf(fn); rec.layout == nil || !rec.layout.forMLIR(22) {
				t.Fatalf("func.func decoded with %+v, want the MLIR 22 layout", rec.layout)
			}
			if got := write(t, m, WriteOptions{Source: src}); !bytes.Equal(got, d) {
				t.Errorf("unchanged rewrite is not byte-identical")
			}
		})
	}
}

// TestNativeLayoutNoMatch: a func.func blob that fits no known layout (its
// function_type field names a string) is carried opaquely, marked with the
// reason; the file still round-trips, and the verifier and the text printer
// say why they cannot go on.
func TestNativeLayoutNoMatch(t *testing.T) {
	tl := oracle.MlirOpts[1]
	data := bytes.Clone(emitBytecode(t, tl, layoutsFile, 6))
	m, src := read(t, data)
	fn := m.Graph("main").Op
	rec := src.recordOf(fn)
	blob := src.f.props[rec.propIdx]
	// main has no arg_attrs, no_inline, res_attrs or sym_visibility: its
	// blob is 0, function_type, 0, 0, sym_name, 0, one byte each.
	if len(blob.data) != 6 {
		t.Fatalf("main's blob is %x, want 6 one-byte fields", blob.data)
	}
	data[blob.off+1] = blob.data[4] // function_type := sym_name's index
	m, src = read(t, data)
	fn = findOp(m, "func.func")
	for fn != nil && src.recordOf(fn).propIdx != rec.propIdx {
		fn = fn.Next()
	}
	np, ok := fn.Props.(*NativeProps)
	if !ok {
		t.Fatalf("properties %T, want *NativeProps", fn.Props)
	}
	if !strings.Contains(np.BytecodeOnly(), "match no layout anefix knows for func.func") || !strings.Contains(np.BytecodeOnly(), "function_type must be a function type") {
		t.Errorf("reason = %q", np.BytecodeOnly())
	}
	if got := write(t, m, WriteOptions{Source: src}); !bytes.Equal(got, data) {
		t.Errorf("unchanged rewrite is not byte-identical")
	}
	if err := graph.Verify(m); err == nil || !strings.Contains(err.Error(), "match no layout") {
		t.Errorf("Verify = %v, want the reason", err)
	}
	if _, err := mlirtext.Format(m, mlirtext.FormGeneric); err == nil || !strings.Contains(err.Error(), "only be written as bytecode") {
		t.Errorf("text printer = %v, want a refusal", err)
	}
}

func TestProducerMLIRMajor(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{{"MLIR19.1.7", 19}, {"MLIR22.0.0git", 22}, {"MLIR22.1.8", 22}, {"anefix", 0}, {"MLIR", 0}, {"MLIRx.1", 0}, {"MLIR99999999999999999999.0", 0}} {
		if got := producerMLIRMajor(c.in); got != c.want {
			t.Errorf("ProducerMLIRMajor(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
