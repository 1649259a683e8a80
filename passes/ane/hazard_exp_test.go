package ane

import (
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

func TestHazardExp(t *testing.T) {
	testRule(t, hazardExp, []ruleCase{
		{name: "exp of x clamped to [-4, 12]", file: "hazards/exp_bounded.mlir", want: []string{"coreai.exp: op_id 5: input range [-4, 12] from minimum of maximum of constant lo (op_id 1) [-4, -4] [-4, ?] and constant hi (op_id 2) [12, 12]: exp(12) = 162755, above ln(65504) ≈ 11.0899, so the result is +inf in fp16"}},
		{name: "exp of an unbounded input", build: func() *graph.Module {
			g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
			g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4)), "y")
			return g.m
		}, want: nil},
		{name: "exp of a clamp below ln(65504)", text: `module {
  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<1.000000e+01> : tensor<f16>
    %1 = coreai.decomposable.broadcasting_minimum %arg0, %0 : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>
    %2 = coreai.exp %1 : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}`, want: nil},
	})
}

// TestBoundShared: the interval proof over 40 maximums that each read the
// previous one twice visits each (value, depth) once; before bounds were
// remembered it made 2^32 calls (check did not return).
func TestBoundShared(t *testing.T) {
	m := loadHazardModule(t, "max_chain.mlir")
	g := m.Graphs()[0]
	var exp *graph.Operation
	n := 0
	for _, op := range g.Body().Ops() {
		n++
		if op.Name == "coreai.exp" {
			exp = op
		}
	}
	bd := &bounder{scan: anefacts.NewScan(m)}
	if iv := bd.bound(exp.Operand(0), 0); !iv.loOpen || !iv.hiOpen {
		t.Errorf("bound %v, want nothing proven", iv)
	}
	if bd.proved > 2*n {
		t.Errorf("%d values proven for a graph of %d ops", bd.proved, n)
	}
	if got := runRuleAlone(t, hazardExp, m); len(got) != 0 {
		t.Errorf("findings %q", got)
	}
}
