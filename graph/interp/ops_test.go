package interp

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/graph/mlirtext"
)

// notRun are the coreai ops of graph/coreaiop's table that have no row in
// opRows, and why (README "Known limits").
var notRun = map[string]string{
	"coreai.output":                       "a terminator: the graph runner returns its operands",
	"coreai.yield":                        "a terminator: the region runner returns its operands",
	"coreai.condition":                    "a terminator: the region runner returns its operands",
	"coreai.create_complex":               "complex element types are not supported by the interpreter",
	"coreai.real_part":                    "complex element types are not supported by the interpreter",
	"coreai.imaginary_part":               "complex element types are not supported by the interpreter",
	"coreai.build_sparse_with_bitmask":    "its sparse type is not public",
	"coreai.sparse_with_bitmask_to_dense": "its sparse type is not public",
	"coreai.clip":                         "a name only anefix's earlier lists had; its operands are a guess",
	"coreai.log_softmax":                  "a name only anefix's earlier lists had; its operands are a guess",
	"coreai.cumsum":                       "a name only anefix's earlier lists had (coreai-torch emits coreai.scan)",
	"coreai.flip":                         "a name only anefix's earlier lists had (coreai-torch emits coreai.reverse)",
}

// onlyHere are the rows of opRows that no op of graph/coreaiop's table runs
// under: spellings other exporters and older IR use.
var onlyHere = map[string]string{
	"mod":           "numpy's remainder; coreai-torch lowers it to floor_divide",
	"less":          "a comparison coreai-torch writes with greater",
	"less_equal":    "a comparison coreai-torch writes with greater and not",
	"greater_equal": "a comparison coreai-torch writes with greater and equal",
	"gelu_tanh":     "gelu's tanh form under its own name",
	"softplus":      "an activation of other exporters",
	"flatten":       "a reshape of other exporters",
	"gather":        "torch.index_select's form (coreai-torch emits gather_nd and gather_along_axis)",
}

// The op table (graph/coreaiop) and the interpreter's rows list the same
// ops: a coreai op has a row, or a reason here not to; a row runs a coreai
// op, or is a spelling listed here. Adding an op to one table and not the
// other fails.
func TestOpRowsMatchCoreaiop(t *testing.T) {
	covered := map[*opRow]bool{}
	for _, o := range coreaiop.All() {
		r := refOf(o.Name).row
		if o.Decomposable {
			if rd := refOf(strings.Replace(o.Name, "coreai.", "coreai.decomposable.", 1)).row; rd != r {
				t.Errorf("%s: its decomposable spelling runs another row", o.Name)
			}
		}
		switch why, listed := notRun[o.Name]; {
		case r != nil && listed:
			t.Errorf("%s has a row (%s) and a reason not to run (%s)", o.Name, r.name, why)
		case r == nil && !listed:
			t.Errorf("%s (graph/coreaiop) has no row in opRows (ops.go) and no reason in notRun", o.Name)
		case r != nil:
			covered[r] = true
		}
	}
	for n := range notRun {
		if coreaiop.Lookup(n) == nil {
			t.Errorf("notRun lists %s, which graph/coreaiop does not", n)
		}
	}
	for _, r := range opRows {
		if _, listed := onlyHere[r.name]; covered[r] == listed {
			t.Errorf("row %s: runs a graph/coreaiop op %v, listed in onlyHere %v", r.name, covered[r], listed)
		}
	}
}

// Each spelling runs the kernel the old canonical() switch mapped it to
// (its cases, copied by hand), through every prefix.
func TestCanonicalSpellings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"coreai.decomposable.broadcasting_subtract", "sub"},
		{"coreai.broadcasting_multiply", "mul"},
		{"div", "divide"}, {"real_div", "divide"}, {"coreai.decomposable.broadcasting_divide", "divide"},
		{"max", "maximum"}, {"min", "minimum"},
		{"coreai.reduce_prod", "reduce_product"},
		{"squeeze", "shrink_dims"}, {"unsqueeze", "expand_dims"},
		{"slice_", "slice"}, {"select", "where"},
		{"coreai.batch_matmul", "matmul"}, {"matmul", "matmul"},
		{"conv", "conv"}, {"coreai.conv2d", "conv"}, {"conv1d", "conv"},
		{"negative", "neg"}, {"power", "pow"}, {"coreai.decomposable.broadcasting_pow", "pow"},
		{"coreai.decomposable.broadcasting_and", "logical_and"}, {"coreai.broadcasting_or", "logical_or"},
		{"xor", "logical_xor"}, {"coreai.not", "logical_not"},
		{"coreai.sin", "sin"}, {"coreai.no_such_op", "no_such_op"},
	} {
		if got := canonical(c.in); got != c.want {
			t.Errorf("canonical(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// isConstant knows every spelling of the constant row.
	if r := opKeys["constant"]; !isConstant("coreai."+r.name) || !slices.ContainsFunc(r.aliases, isConstant) || slices.ContainsFunc(r.aliases, func(n string) bool { return !isConstant(n) }) {
		t.Errorf("isConstant and the constant row's spellings (coreai.%s, %v) disagree", r.name, r.aliases)
	}
	// Constants, calls, regions and states run only under their exact
	// names (bind, lanes and the weight fold match those).
	for _, c := range []struct {
		name string
		runs bool
	}{
		{"coreai.constant", true}, {"arith.constant", true}, {"coreai.decomposable.constant", false},
		{"coreai.invoke", true}, {"func.call", true}, {"coreai.broadcasting_invoke", false},
		{"coreai.if", true}, {"if", false}, {"coreai.write_handle", true}, {"coreai.decomposable.write_handle", false},
	} {
		if r := refOf(c.name).row; (r != nil) != c.runs {
			t.Errorf("refOf(%q) found a row: %v, want %v", c.name, r != nil, c.runs)
		}
		if r := refOf(c.name).row; isConstant(c.name) != (r != nil && r.name == "constant") {
			t.Errorf("isConstant(%q) = %v, but its row is %v", c.name, isConstant(c.name), r)
		}
	}
}

// Each row has one way to run, and the elementwise kernels find their
// function in it; every rule a row names is a rule of the profile, whose
// Ops list the rows that name it (the ops each rule of aneRules changes).
func TestOpRowsWellFormed(t *testing.T) {
	same := func(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }
	for _, r := range opRows {
		ways := 0
		for _, set := range []bool{r.run != nil, r.runs != nil, r.refuse != ""} {
			if set {
				ways++
			}
		}
		if ways != 1 {
			t.Errorf("row %s: %d ways to run (run, runs, refuse), want 1", r.name, ways)
		}
		switch {
		case r.run == nil:
		case same(r.run, unaryOp) && r.unary == nil && r.name != "logical_not":
			t.Errorf("row %s: unaryOp without a unary function", r.name)
		case same(r.run, binaryOp) && r.binF == nil && r.binI == nil:
			t.Errorf("row %s: binaryOp without a binary function", r.name)
		case same(r.run, compareOp) && r.cmp == nil:
			t.Errorf("row %s: compareOp without a comparison", r.name)
		}
		if r.refuse == "" && !strings.Contains(supportedOps, r.name) {
			t.Errorf("row %s is missing from supportedOps", r.name)
		}
		for _, n := range r.rules {
			if !slices.ContainsFunc(aneRules, func(x rule) bool { return x.Name == n }) {
				t.Errorf("row %s names rule %s, which ANERules does not have", r.name, n)
			}
		}
	}
	want := map[string][]string{
		"fp16-operands-products": nil,
		"wide-accumulator":       {"matmul", "conv"},
		"narrow-reduce":          {"reduce_sum", "reduce_mean", "reduce_product"},
		"matmul-saturation":      {"matmul"},
		"slice-saturation":       {"slice"},
	}
	for _, r := range aneRules {
		if !slices.Equal(r.Ops, want[r.Name]) {
			t.Errorf("rule %s applies to %v, want %v", r.Name, r.Ops, want[r.Name])
		}
	}
}

// BenchmarkDispatch runs a graph of many tiny ops (2-element tensors), so
// that the time per op is the interpreter's dispatch (finding the kernel,
// binding the result), not the kernels' arithmetic. ns/op is one Run;
// cpu-ns/dispatch is the process's CPU time per op (less sensitive to
// other processes than ns/dispatch).
func BenchmarkDispatch(b *testing.B) {
	const n = 400
	ops := []string{"coreai.decomposable.broadcasting_add", "coreai.sin", "coreai.decomposable.broadcasting_maximum", "coreai.tanh"}
	var body strings.Builder
	prev := "%x"
	for i := range n {
		name := ops[i%len(ops)]
		if strings.Contains(name, "broadcasting") {
			fmt.Fprintf(&body, "    %%v%d = \"%s\"(%s, %%x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n", i, name, prev)
		} else {
			fmt.Fprintf(&body, "    %%v%d = \"%s\"(%s) : (tensor<2xf32>) -> tensor<2xf32>\n", i, name, prev)
		}
		prev = fmt.Sprintf("%%v%d", i)
	}
	text := "module {\n  coreai.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n" + body.String() +
		"    coreai.output " + prev + " : tensor<2xf32>\n  }\n}\n"
	m, _, err := mlirtext.Parse("dispatch.mlir", text)
	if err != nil {
		b.Fatal(err)
	}
	in := New(m, Options{})
	x := NewFloat(F32, []int{2}, []float32{0.5, -0.25})
	b.ReportAllocs()
	runtime.GC()
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := in.Run("main", []*Tensor{x}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/dispatch")
	b.ReportMetric((processCPU()-cpu0)*1e9/float64(b.N)/n, "cpu-ns/dispatch")
}
