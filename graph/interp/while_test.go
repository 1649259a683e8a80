package interp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop/zoo"
	"github.com/anefix/anefix/graph/mlirtext"
)

// coreai.while against numpy (testdata/numpy/gen.py: add 1 while the sum
// stays below 10): the committed module testdata/mlir/coreai/while.mlir in
// f32, and the op zoo's f16 form of the same loop.
func TestWhileAgainstNumpy(t *testing.T) {
	f := loadVecs(t, "ops2.vec.gz")
	text, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mlir", "coreai", "while.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	var f16Text []byte
	for _, m := range zoo.Modules() {
		if m.Name == "coreai.while/f16" {
			f16Text = m.Text
		}
	}
	if f16Text == nil {
		t.Fatal("the op zoo has no coreai.while/f16 module")
	}
	for _, c := range []struct {
		dt   string
		text []byte
	}{{"f32", text}, {"f16", f16Text}} {
		t.Run(c.dt, func(t *testing.T) {
			m, _, err := mlirtext.Parse("while.mlir", string(c.text))
			if err != nil {
				t.Fatal(err)
			}
			in := vecIn(t, f, "while/"+c.dt, "in0")
			want := vecIn(t, f, "while/"+c.dt, "out")
			if equalF(in.Floats(), want.Floats()) {
				t.Fatal("the numpy case does not iterate")
			}
			outs, err := New(m, Options{}).Run("main", []*Tensor{in})
			if err != nil {
				t.Fatal(err)
			}
			compareTensors(t, "while/"+c.dt, outs[0], want, 0)
		})
	}
}

// A loop whose condition never turns false is an error naming the op, not a
// hang: the bound is lowered here so the test counts work, not time.
func TestWhileBound(t *testing.T) {
	defer func(n int) { maxIterations = n }(maxIterations)
	maxIterations = 50
	text := `module {
  coreai.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %t = coreai.constant dense<true> : tensor<i1>
    %y = coreai.while %x {
    ^bb0(%a: tensor<2xf32>):
      coreai.condition %t, %a : tensor<i1>, tensor<2xf32>
    } do {
    ^bb0(%b: tensor<2xf32>):
      coreai.yield %b : tensor<2xf32>
    } : tensor<2xf32> -> tensor<2xf32>
    coreai.output %y : tensor<2xf32>
  }
}
`
	m, _, err := mlirtext.Parse("t.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(m, Options{}).Run("main", []*Tensor{Zeros(F32, []int{2})})
	if err == nil || !strings.Contains(err.Error(), "coreai.while ran 50 iterations") {
		t.Fatalf("error %v, want the iteration bound", err)
	}
}

// What the interpreter refuses among the ops it runs, each with an error
// that says why (the operand or attribute at fault).
func TestNewOpRefusals(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"non_zero with a dynamic result", `
    %y = coreai.non_zero %x : tensor<4xf32> -> tensor<?x1xsi32>
    %z = coreai.constant dense<0.000000e+00> : tensor<4xf32>`, "is not a static tensor: non_zero's row count depends on the data"},
		{"scan with its flag set", `
    %a = coreai.constant dense<0> : tensor<ui32>
    %f = coreai.constant dense<true> : tensor<i1>
    %z = coreai.scan %x, %a, %f combiner = <sum> : (tensor<4xf32>, tensor<ui32>, tensor<i1>) -> tensor<4xf32>`, "what true means"},
		{"pad in a mode coreai-torch does not emit", `
    %p = coreai.constant dense<0> : tensor<2xui32>
    %v = coreai.constant dense<0.000000e+00> : tensor<f32>
    %z = coreai.pad %x, %p, %v mode = <circular> : (tensor<4xf32>, tensor<2xui32>, tensor<f32>) -> tensor<4xf32>`, `mode "circular"`},
		{"reflect padding as large as the axis", `
    %p = coreai.constant dense<[4, 0]> : tensor<2xui32>
    %v = coreai.constant dense<0.000000e+00> : tensor<f32>
    %y = coreai.pad %x, %p, %v mode = <reflect> : (tensor<4xf32>, tensor<2xui32>, tensor<f32>) -> tensor<8xf32>
    %z = coreai.constant dense<0.000000e+00> : tensor<4xf32>`, "must be smaller than its size"},
		{"tile whose repetitions disagree with the declared result", `
    %r = coreai.constant dense<1000000000> : tensor<1xui32>
    %z = coreai.tile %x, %r : (tensor<4xf32>, tensor<1xui32>) -> tensor<4xf32>`, "computed shape [4000000000] but the op declares [4]"},
		{"gather_along_axis out of range", `
    %i = coreai.constant dense<[0, 1, 2, 4]> : tensor<4xsi32>
    %a = coreai.constant dense<0> : tensor<si32>
    %z = coreai.gather_along_axis %x at %i along %a : (tensor<4xf32>, tensor<4xsi32>, tensor<si32>) to tensor<4xf32>`, "index 4 out of range [0, 4)"},
		{"scatter_along_axis in an unknown mode", `
    %i = coreai.constant dense<[0, 1, 2, 3]> : tensor<4xsi32>
    %a = coreai.constant dense<0> : tensor<si32>
    %z = coreai.scatter_along_axis %x, %i, %x, %a scatter_mode = <max> : (tensor<4xf32>, tensor<4xsi32>, tensor<4xf32>, tensor<si32>) -> tensor<4xf32>`, `scatter_mode "max"`},
		{"metal4_kernel", `
    %g = coreai.constant dense<[4, 1, 1]> : tensor<3xui32>
    %z = coreai.metal4_kernel kernel_args(%x), threads_per_grid %g, threads_per_thread_group %g, result_shapes(%g) {kernel_name = "k", kernel_source = "kernel void k() {}"} : (tensor<4xf32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> tensor<4xf32>`, "Metal shader source"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := "module {\n  coreai.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {" + c.body + "\n    coreai.output %z : tensor<4xf32>\n  }\n}\n"
			m, _, err := mlirtext.Parse("t.mlir", text)
			if err != nil {
				t.Fatal(err)
			}
			_, err = New(m, Options{}).Run("main", []*Tensor{NewFloat(F32, []int{4}, []float32{1, 0, -2, 3})})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// zooLimits are the interpreter's documented limits (README "Known
// limits"): a zoo module may fail only with one of these.
var zooLimits = []string{
	"is not supported by the interpreter", // complex element types
	"is not a static tensor",              // dynamic shapes, non_zero's data-dependent count
	"has no body (a declaration)",         // a call to a graph that is not in the module
	"Metal shader source",                 // metal4_kernel
}

// Every module of the op zoo (graph/coreaiop/zoo: each op of the op table
// in its three forms) runs through the interpreter on seeded inputs, or
// fails with a documented limit; the count is logged.
func TestZooModulesRun(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ran, limited := 0, map[string][]string{}
	for _, zm := range zoo.Modules() {
		m, _, err := mlirtext.Parse(zm.Name+".mlir", string(zm.Text))
		if err != nil {
			t.Fatal(err)
		}
		g := m.Graph("main")
		var args []*Tensor
		for _, p := range g.Inputs() {
			tt, ok := graph.AsTensor(p.Type)
			var el Elem
			var shape []int
			if ok && tt.IsStatic() {
				if el, err = ElemOf(tt.Elem); err == nil {
					shape, err = ShapeOf(tt)
				}
			} else {
				err = fmt.Errorf("input type %s is not a static tensor", p.Type)
			}
			if err != nil {
				break
			}
			a := Zeros(el, shape)
			for i := range a.F {
				a.F[i] = el.round(float32(r.NormFloat64()))
			}
			args = append(args, a)
		}
		if err == nil {
			_, err = New(m, Options{}).Run("main", args)
		}
		if err == nil {
			ran++
			continue
		}
		known := ""
		for _, l := range zooLimits {
			if strings.Contains(err.Error(), l) {
				known = l
			}
		}
		if known == "" {
			t.Errorf("%s: %v", zm.Name, err)
			continue
		}
		limited[known] = append(limited[known], zm.Name)
	}
	t.Logf("%d of %d zoo modules run", ran, len(zoo.Modules()))
	for _, l := range zooLimits {
		t.Logf("refused, %s: %d (%s)", l, len(limited[l]), strings.Join(limited[l], " "))
	}
}
