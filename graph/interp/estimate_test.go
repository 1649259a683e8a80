package interp_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/modelio"
)

func TestEstimateMemory(t *testing.T) {
	const head = "module {\n  coreai.graph @main(%arg0: tensor<4xf32> {coreai.name = \"x\"}) -> (tensor<4xf32> {coreai.name = \"y\"}) {\n"
	cases := []struct {
		name, body string
		want       int64
	}{
		// input 16 + add result 16, alive together
		{"elementwise", "    %0 = coreai.decomposable.broadcasting_add %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n    coreai.output %0 : tensor<4xf32>\n", 32},
		// a dense constant is materialized: 1e10 floats
		{"huge constant", "    %0 = coreai.constant dense<1.0> : tensor<1x100000x100000xf32>\n    %1 = coreai.decomposable.broadcasting_add %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n    coreai.output %1 : tensor<4xf32>\n", 4e10 + 32},
		// integers are int64 in the interpreter
		{"int constant", "    %0 = coreai.constant dense<1> : tensor<1000xsi8>\n    coreai.output %arg0 : tensor<4xf32>\n", 8000 + 16},
		// a declared result shape past int64 saturates
		{"overflow", "    %0 = coreai.constant dense<1.0> : tensor<9223372036854775807x9223372036854775807xf32>\n    coreai.output %arg0 : tensor<4xf32>\n", math.MaxInt64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := mlirtext.Parse("t.mlir", head+c.body+"  }\n}\n")
			if err != nil {
				t.Fatal(err)
			}
			if got := interp.EstimateMemory(m, "main"); got != c.want {
				t.Errorf("estimate %d, want %d", got, c.want)
			}
		})
	}
}

// File-backed f16 weights are read in place: armA's estimate is far below
// its weight bytes' float32 size.
func TestEstimateMappedWeightsFree(t *testing.T) {
	ld, err := modelio.Load(filepath.Join("..", "..", "testdata", "synth", "armA.aimodel"), modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	var weights int64
	for _, r := range ld.Module.Resources {
		if r.Blob != nil {
			weights += r.Blob.Size()
		}
	}
	got := interp.EstimateMemory(ld.Module, "main")
	t.Logf("armA (tiny): estimate %d bytes, weights %d bytes", got, weights)
	if got <= 0 || got >= 2*weights {
		t.Errorf("estimate %d with %d bytes of weights", got, weights)
	}
}

// RunLanes computes a lane-invariant value (here a transposed weight) once
// for all lanes, so the estimate counts it once; the input and the
// matmul's result are per lane, and the matmul on the shared weight runs
// once on the lanes' inputs and results stacked. By hand, in bytes: the
// constants w (8×4 f32) 128 and the permutation (2 × int64) 16; x 16 per
// lane; wᵀ 128; y 32 per lane. One lane: peak at the matmul, x + wᵀ + y =
// 176. Eight lanes: at the matmul, wᵀ once + 8 × (x + y) + 8 × (x + y)
// stacked = 128 + 384 + 384 = 896 (counting wᵀ per lane gave 8 × 176).
func TestEstimateLanesMemorySharesInvariants(t *testing.T) {
	src := `module {
  coreai.graph @main(%x: tensor<1x4xf32> {coreai.name = "x"}) -> (tensor<1x8xf32> {coreai.name = "y"}) {
    %w = coreai.constant dense<1.0> : tensor<8x4xf32>
    %p = coreai.constant dense<[1, 0]> : tensor<2xui32>
    %wt = "coreai.transpose"(%w, %p) : (tensor<8x4xf32>, tensor<2xui32>) -> tensor<4x8xf32>
    %y = "coreai.matmul"(%x, %wt) : (tensor<1x4xf32>, tensor<4x8xf32>) -> tensor<1x8xf32>
    coreai.output %y : tensor<1x8xf32>
  }
}
`
	m, _, err := mlirtext.Parse("t.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lanes int
		want  int64
	}{{1, 144 + 176}, {8, 144 + 896}} {
		if got := interp.EstimateLanesMemory(m, "main", c.lanes); got != c.want {
			t.Errorf("%d lanes: estimate %d, want %d", c.lanes, got, c.want)
		}
	}
}
