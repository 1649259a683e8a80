package interp

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
)

// nestedLoops is the 1.2 KB hang (issue 28, item 4): two nested
// coreai.while loops of 10^6 iterations each, each under maxIterations,
// 10^12 iterations in all.
var nestedLoops = readTestdata("hostile/nested_loops.mlir")

// emptyLoops nests two loops whose regions run no op at all (a flag from
// the enclosing graph, always true, and a bare yield): only the
// iterations themselves can be counted.
const emptyLoops = `module {
  coreai.graph @main(%x: tensor<f32>) -> tensor<f32> {
    %t = coreai.constant dense<true> : tensor<i1>
    %y = coreai.while %x {
    ^bb0(%a: tensor<f32>):
      coreai.condition %t, %a : tensor<i1>, tensor<f32>
    } do {
    ^bb0(%b: tensor<f32>):
      %z = coreai.while %b {
      ^bb0(%a2: tensor<f32>):
        coreai.condition %t, %a2 : tensor<i1>, tensor<f32>
      } do {
      ^bb0(%b2: tensor<f32>):
        coreai.yield %b2 : tensor<f32>
      } : tensor<f32> -> tensor<f32> loc("inner"("/m.py":9:0))
      coreai.yield %z : tensor<f32>
    } : tensor<f32> -> tensor<f32> loc("outer"("/m.py":4:0))
    coreai.output %y : tensor<f32>
  }
}
`

// doublingCalls is the other hang: n graphs, each calling the
// next twice (2^n calls of the last).
func doublingCalls(n int) string {
	var b strings.Builder
	b.WriteString("module {\n")
	b.WriteString("  coreai.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n    %0 = coreai.invoke @g1(%x) : (tensor<2xf32>) -> tensor<2xf32> loc(\"call_main\"(\"/m.py\":1:0))\n    coreai.output %0 : tensor<2xf32>\n  }\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, `  coreai.graph private @g%[1]d(%%x: tensor<2xf32>) -> tensor<2xf32> {
    %%0 = coreai.invoke @g%[2]d(%%x) : (tensor<2xf32>) -> tensor<2xf32> loc("call_%[1]d_a"("/m.py":%[1]d:0))
    %%1 = coreai.invoke @g%[2]d(%%0) : (tensor<2xf32>) -> tensor<2xf32> loc("call_%[1]d_b"("/m.py":%[1]d:0))
    coreai.output %%1 : tensor<2xf32>
  }
`, i, i+1)
	}
	fmt.Fprintf(&b, "  coreai.graph private @g%d(%%x: tensor<2xf32>) -> tensor<2xf32> {\n    coreai.output %%x : tensor<2xf32>\n  }\n}\n", n)
	return b.String()
}

// The graphs that never ended under the per-loop and depth caps end at
// the work bound, with an error naming the op (its op id) and the bound,
// once (not once per level of calls it sits in). The bound is lowered so
// that the test counts work rather than waiting; the work done is within
// one op's cost of it.
func TestWorkBoundEndsHostileGraphs(t *testing.T) {
	const bound = 1 << 24
	for _, c := range []struct {
		name, text string
		arg        *Tensor
		ops        []string // the op ids the error may name
	}{
		{"nested loops", nestedLoops, Zeros(F32, nil), []string{"inner", "outer", "broadcasting_"}},
		{"nested empty loops", emptyLoops, Zeros(F32, nil), []string{"(inner at m.py:9)"}},
		{"40 graphs calling the next twice", doublingCalls(40), Zeros(F32, []int{2}), []string{"coreai.invoke (call_"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := mlirtext.Parse("hostile.mlir", c.text)
			if err != nil {
				t.Fatal(err)
			}
			in := New(m, Options{MaxWork: bound})
			defer in.Close()
			_, err = in.Run("main", []*Tensor{c.arg})
			var we *workError
			if !errors.As(err, &we) {
				t.Fatalf("error %v, want the work bound", err)
			}
			msg := err.Error()
			named := false
			for _, id := range c.ops {
				named = named || strings.Contains(msg, id)
			}
			if !named || !strings.Contains(msg, fmt.Sprint(bound)) || !strings.Contains(msg, "--max-work") || strings.Count(msg, "interp:") != 1 {
				t.Errorf("error %q: want one message naming the op (%v), the bound %d and --max-work", msg, c.ops, bound)
			}
			if we.Bound != bound || we.Done > bound || we.Done <= bound-(OpWork+callWork) || in.Work() != we.Done {
				t.Errorf("stopped at work %d (Work() %d) for the bound %d", we.Done, in.Work(), bound)
			}
		})
	}
}

// The cost model on a hand-counted graph: three constants (OpWork each),
// an add of two 2×3 tensors (reads 12 elements, writes 6: 12), a matmul of
// the 2×3 sum by a 3×4 constant (writes 8; 8 outputs of 3 terms, 24/8 =
// 3: 8), one of a 32×16 input by a 16×32 constant (writes 1024; 1024
// outputs of 16 terms, 16384/8 = 2048: 2048), and a while loop
// doubling 0.5 while it is below 3 (1, 2, 4: the op, then 4 iterations at
// OpWork each, the 4th's condition ending it; the greater, reading 2
// elements, 4 times; the add, reading 2, 3 times).
func TestWorkCounts(t *testing.T) {
	const text = `module {
  coreai.graph @main(%x: tensor<2x3xf32>, %v: tensor<f32>, %p: tensor<32x16xf32>) -> (tensor<2x4xf32>, tensor<f32>, tensor<32x32xf32>) {
    %w = coreai.constant dense<1.000000e+00> : tensor<3x4xf32>
    %lim = coreai.constant dense<3.000000e+00> : tensor<f32>
    %q = coreai.constant dense<1.000000e+00> : tensor<16x32xf32>
    %s = coreai.decomposable.broadcasting_add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %y = coreai.decomposable.broadcasting_batch_matmul %s, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %pq = coreai.decomposable.broadcasting_batch_matmul %p, %q : (tensor<32x16xf32>, tensor<16x32xf32>) -> tensor<32x32xf32>
    %r = coreai.while %v {
    ^bb0(%a: tensor<f32>):
      %c = coreai.decomposable.broadcasting_greater %lim, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      coreai.condition %c, %a : tensor<i1>, tensor<f32>
    } do {
    ^bb0(%b: tensor<f32>):
      %n = coreai.decomposable.broadcasting_add %b, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
      coreai.yield %n : tensor<f32>
    } : tensor<f32> -> tensor<f32>
    coreai.output %y, %r, %pq : tensor<2x4xf32>, tensor<f32>, tensor<32x32xf32>
  }
}
`
	m, _, err := mlirtext.Parse("count.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	in := New(m, Options{})
	defer in.Close()
	// %v = 0.5 doubles to 1, 2, 4: three iterations, the condition runs 4 times.
	if _, err := in.Run("main", []*Tensor{Zeros(F32, []int{2, 3}), NewFloat(F32, nil, []float32{0.5}), Zeros(F32, []int{32, 16})}); err != nil {
		t.Fatal(err)
	}
	want := int64(3*OpWork + // constants
		OpWork + 12 + // add
		OpWork + 8 + // the small matmul
		OpWork + 2048 + // the 32×16 by 16×32 one
		OpWork + 4*OpWork + // the while op and its iterations
		4*(OpWork+2) + // the greater of the condition
		3*(OpWork+2)) // the add of the body
	if got := in.Work(); got != want {
		t.Errorf("work %d, want %d", got, want)
	}
}

// A decode step of the synth arms (tiny: the committed test models'
// dims) is far below DefaultMaxWork; the figures are logged.
func TestWorkOfDecodeSteps(t *testing.T) {
	for _, o := range []synth.Options{{Arm: synth.ArmA}, {Arm: synth.ArmB, StateForm: synth.StateHandle}, {Arm: synth.ArmE}} {
		m, err := synth.Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		g := m.Graph("main")
		if g == nil {
			g = m.Graphs()[0]
		}
		r := rand.New(rand.NewPCG(5, uint64(o.Arm)))
		var args []*Tensor
		for _, p := range g.Inputs() {
			a := zerosOf(t, p.Type)
			for k := range a.F {
				a.F[k] = a.Elem.round(float32(r.NormFloat64()))
			}
			args = append(args, a)
		}
		in := New(m, Options{})
		if _, err := in.Run(g.Name(), args); err != nil {
			t.Fatal(err)
		}
		ops := 0
		g.Op.Walk(func(*graph.Operation) bool { ops++; return true })
		t.Logf("arm %c (@%s, %d ops): work %d, %.2g of DefaultMaxWork", o.Arm, g.Name(), ops, in.Work(), float64(in.Work())/float64(DefaultMaxWork))
		if in.Work() > DefaultMaxWork/1000 {
			t.Errorf("arm %c: a tiny decode step costs %d, over a thousandth of the default bound", o.Arm, in.Work())
		}
		in.Close()
	}
}

// readTestdata reads a file under the repository's testdata/ (shared with
// cmd/anefix's TestVerifyMaxWork), panicking at init if it is missing.
func readTestdata(name string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}
