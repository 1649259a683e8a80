package bytecode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/oracle"
)

// findOp returns the first op with the given name.
func findOp(m *graph.Module, name string) *graph.Operation {
	var found *graph.Operation
	m.Walk(func(op *graph.Operation) bool {
		if found == nil && op.Name == name {
			found = op
		}
		return found == nil
	})
	return found
}

// TestFuncSignatureChange retypes a func.func input (its native properties
// must be re-encoded), adds an op with new strings, attributes, types and
// locations (tables are appended to), and checks mlir-opt prints the result
// exactly as it prints the same change made to the text.
func TestFuncSignatureChange(t *testing.T) {
	src := filepath.Join("testdata", "func.mlir")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer(
		`%arg1: tensor<4xf16> {coreai.name = "w"}`, `%arg1: tensor<4xf32> {coreai.name = "w"}`,
		`"coreai.cast"(%arg1) : (tensor<4xf16>) -> tensor<4xf32> loc("cast_1")`,
		`"coreai.cast"(%arg1) : (tensor<4xf32>) -> tensor<4xf32> loc("cast_1")`+
			` %n = "coreai.identity"(%0) {tag = "fresh", n = 5 : si64} : (tensor<4xf32>) -> tensor<4x1xbf16> loc("new.py"(fused["q", "new.py":7:7]))`,
	).Replace(string(text))
	if edited == string(text) {
		t.Fatal("test edit did not apply")
	}
	editedPath := filepath.Join(t.TempDir(), "edited.mlir")
	if err := os.WriteFile(editedPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	oracle.EachMlirOpt(t, func(t *testing.T, tl oracle.MlirOptTool) {
		for _, v := range []int{1, 4, 5, 6} {
			data := emitBytecode(t, tl, src, v)
			m, source := read(t, data)
			g := m.Graph("main")
			if g == nil {
				t.Fatal("no @main")
			}
			g.SetInputType(1, graph.Tensor(graph.F32, 4))
			cast := findOp(m, "coreai.cast")
			id := graph.NewOp("coreai.identity", []*graph.Value{cast.Result(0)}, []graph.Type{graph.Tensor(graph.BF16, 4, 1)},
				graph.Dict(graph.NamedAttr{Name: "tag", Value: graph.Str("fresh")}, graph.NamedAttr{Name: "n", Value: graph.Int(5, graph.SI64)}),
				&graph.NameLoc{Name: "new.py", Child: &graph.FusedLoc{Locs: []graph.Loc{&graph.NameLoc{Name: "q"}, &graph.FileLoc{File: "new.py", Line: 7, Col: 7}}}})
			id.InsertAfter(cast)
			out := write(t, m, WriteOptions{Source: source})
			// Same lines and columns; only the file name of implicit locations differs.
			want := strings.ReplaceAll(canonical(t, tl, emitBytecode(t, tl, editedPath, v)), editedPath, src)
			if got := canonical(t, tl, out); got != want {
				t.Errorf("v%d: mlir-opt printout differs from the edited text's\n%s", v, diffLines(want, got))
			}
		}
	})
}

// TestNativePropsChangedOp: an op whose native properties anefix carries
// opaquely (arith.addi's, in mlir-opt 19 and 22) must not be written after a
// pass changed it; the error names the op and says what to do.
func TestNativePropsChangedOp(t *testing.T) {
	oracle.EachMlirOpt(t, func(t *testing.T, tl oracle.MlirOptTool) {
		data := emitBytecode(t, tl, filepath.Join("testdata", "uselist.mlir"), 6, "--cse")
		m, src := read(t, data)
		add := findOp(m, "arith.addi")
		if _, ok := add.Props.(*NativeProps); !ok {
			t.Fatalf("arith.addi properties are %T, want *NativeProps", add.Props)
		}
		add.SetOperands(add.Operands()[:1])
		err := Write(&bytes.Buffer{}, m, WriteOptions{Source: src})
		if !errors.Is(err, errNeedsGeneric) || !strings.Contains(err.Error(), "arith.addi") || !strings.Contains(err.Error(), "generic") {
			t.Fatalf("got %v, want ErrNeedsGeneric naming arith.addi and generic text", err)
		}
	})
}

// TestBuiltModule writes a module built with the graph API alone (no
// source file) and checks mlir-opt reads it and prints the expected IR.
func TestBuiltModule(t *testing.T) {
	m := synthModule(2, 64)
	data := write(t, m, WriteOptions{})
	oracle.EachMlirOpt(t, func(t *testing.T, tl oracle.MlirOptTool) {
		got := canonical(t, tl, data)
		for _, want := range []string{
			`"coreai.graph"()`, `dense_resource<w1> : tensor<32xf16>`, `"coreai.matmul"`, `sym_name = "main"`,
			`loc("layer_1"(#loc`, `w0: "0x10000000`,
		} {
			if !strings.Contains(got, want) {
				t.Errorf("mlir-opt printout lacks %q:\n%s", want, got)
			}
		}
	})
	// Reading our own output and writing it unchanged is byte-identical.
	m2, src := read(t, data)
	if again := write(t, m2, WriteOptions{Source: src}); !bytes.Equal(again, data) {
		t.Errorf("rewrite of anefix's own bytecode is not byte-identical")
	}
}

// TestUseListOrders: mlir-opt's use-list orders (after --cse) are read and
// re-emitted unchanged; when a pass changes a value's uses its order is
// dropped, and mlir-opt still reads the file (it rejects invalid orders).
func TestUseListOrders(t *testing.T) {
	oracle.EachMlirOpt(t, func(t *testing.T, tl oracle.MlirOptTool) {
		data := emitBytecode(t, tl, filepath.Join("testdata", "uselist.mlir"), 6, "--cse")
		m, src := read(t, data)
		if len(src.uses) == 0 {
			t.Fatal("mlir-opt wrote no use-list orders; the test input no longer exercises them")
		}
		var v *graph.Value
		for x := range src.uses {
			if len(x.Uses()) > 1 {
				v = x
			}
		}
		if v == nil {
			t.Fatal("no recorded value with several uses")
		}
		// Redirect one use of v to the function's first argument.
		u := v.Uses()[0]
		arg := m.Graph("f").Body().Arg(0)
		u.Op.SetOperand(u.Index, arg)
		out := write(t, m, WriteOptions{Source: src})
		if bytes.Equal(out, data) {
			t.Fatal("changed module wrote the same bytes")
		}
		got := canonical(t, tl, out)
		if !strings.Contains(got, "arith.muli") {
			t.Errorf("unexpected printout:\n%s", got)
		}
	})
}

// TestRegisterNativeLayout: with func.call's layout withdrawn its blob is
// opaque and Describe exposes its references, which is how the layout (one
// required attribute, callee) was confirmed; registered again, a changed
// call is re-encoded and mlir-opt, which verifies func.call, prints it.
// mlir-opt 19 only: the one-field layout registered here is MLIR 19's.
func TestRegisterNativeLayout(t *testing.T) {
	tl := oracle.MlirOpts[0]
	data := emitBytecode(t, tl, filepath.Join("testdata", "func.mlir"), 6)
	known := layoutsOf("func.call")
	RegisterNativeLayout("func.call", nil)
	defer func() {
		layoutMu.Lock()
		nativeLayouts["func.call"] = known
		layoutMu.Unlock()
	}()
	m, _ := read(t, data)
	np, ok := findOp(m, "func.call").Props.(*NativeProps)
	if !ok {
		t.Fatal("func.call properties are not opaque")
	}
	if d := np.Describe(); !strings.Contains(d, "as attribute") || !strings.Contains(d, "@norm") {
		t.Errorf("Describe does not show the callee:\n%s", d)
	}

	RegisterNativeLayout("func.call", []propField{{Name: "callee"}})
	m, src := read(t, data)
	call := findOp(m, "func.call")
	props, ok := call.Props.(*graph.DictAttr)
	if !ok || props.Get("callee").String() != "@norm" {
		t.Fatalf("func.call properties = %v, want {callee = @norm}", call.Props)
	}
	// Feed the call from a new op: the call changed, its layout is known,
	// so the write succeeds and mlir-opt (which verifies func.call) sees it.
	cast := findOp(m, "coreai.cast")
	fresh := graph.NewOp("coreai.cast2", []*graph.Value{cast.Operand(0)}, []graph.Type{call.Operand(1).Type()}, nil, nil)
	fresh.InsertAfter(cast)
	call.SetOperand(1, fresh.Result(0))
	call.Props = props.With("callee", &graph.SymbolRefAttr{Root: "norm"})
	got := canonical(t, tl, write(t, m, WriteOptions{Source: src}))
	if !strings.Contains(got, `%3 = "func.call"(%arg2, %2) <{callee = @norm}>`) {
		t.Errorf("mlir-opt printout lacks the changed call:\n%s", got)
	}
}
