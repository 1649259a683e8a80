package interp

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

// Ops as coreai-torch emits them (operand orders from its lowering and
// printed tests), run through the interpreter's op dispatch; values worked
// out by hand. The kernels' numerics are checked against numpy in
// TestOpsAgainstNumpy.
func TestRealOps(t *testing.T) {
	cases := []struct {
		name string
		body string // ops of @main(%x: tensor<4xf32>), ending in coreai.output of a tensor<4xf32>
		x    []float32
		want []float32
	}{
		{"quantize then dequantize (si8, zero point)", `
    %s = coreai.constant dense<5.000000e-01> : tensor<f32>
    %zp = coreai.constant dense<3> : tensor<si8>
    %z = coreai.constant dense<0.000000e+00> : tensor<f32>
    %ax = coreai.constant dense<0> : tensor<si32>
    %q = "coreai.quantize"(%x, %s, %zp, %z, %ax) : (tensor<4xf32>, tensor<f32>, tensor<si8>, tensor<f32>, tensor<si32>) -> tensor<4xsi8>
    %y = "coreai.dequantize"(%q, %s, %zp, %z, %ax) : (tensor<4xsi8>, tensor<f32>, tensor<si8>, tensor<f32>, tensor<si32>) -> tensor<4xf32>
    coreai.output %y : tensor<4xf32>`,
			[]float32{1.2, -0.26, 100, 0.75}, []float32{1, -0.5, 62, 1}}, // 0.75/0.5 = 1.5 rounds to even 2; 100 clips to 127-3
		{"blockwise_shift_scale of si4 weights, two blocks", `
    %w = coreai.constant dense<[-8, 7, 1, 2]> : tensor<4xsi4>
    %s = coreai.constant dense<[1.000000e+00, 2.500000e-01]> : tensor<2xf32>
    %o1 = coreai.constant dense<[0, 2]> : tensor<2xsi4>
    %o2 = coreai.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
    %d = "coreai.blockwise_shift_scale"(%w, %s, %o1, %o2) : (tensor<4xsi4>, tensor<2xf32>, tensor<2xsi4>, tensor<2xf32>) -> tensor<4xf32>
    %y = coreai.decomposable.broadcasting_add %d, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    coreai.output %y : tensor<4xf32>`,
			[]float32{0, 0, 0, 0}, []float32{-8, 7, 0.75, 1}},
		{"blockwise_shift_scale of f8E4M3FN weights", `
    %w = coreai.constant dense<"0x38C07E01"> : tensor<4xf8E4M3FN>
    %s = coreai.constant dense<[5.000000e-01]> : tensor<1xf32>
    %d = "coreai.blockwise_shift_scale"(%w, %s) : (tensor<4xf8E4M3FN>, tensor<1xf32>) -> tensor<4xf32>
    coreai.output %d : tensor<4xf32>`,
			[]float32{0, 0, 0, 0}, []float32{0.5, -1, 224, 0.0009765625}}, // 1, -2, 448, 2^-9 times 0.5
		{"lut_to_dense of ui4 indices", `
    %i = coreai.constant dense<[3, 0, 1, 3]> : tensor<4xui4>
    %l = coreai.constant dense<[[[1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00]]]> : tensor<1x4x1xf32>
    %ax = coreai.constant dense<0> : tensor<si16>
    %d = "coreai.lut_to_dense"(%i, %l, %ax) : (tensor<4xui4>, tensor<1x4x1xf32>, tensor<si16>) -> tensor<4xf32>
    coreai.output %d : tensor<4xf32>`,
			[]float32{0, 0, 0, 0}, []float32{4, 1, 2, 4}},
		{"if takes the branch its condition picks", `
    %zero = coreai.constant dense<0.000000e+00> : tensor<f32>
    %one = coreai.constant dense<1.000000e+00> : tensor<f32>
    %r = coreai.constant dense<[0]> : tensor<1xsi32>
    %sum = "coreai.reduce_sum"(%x, %r) <{keep_dims = false}> : (tensor<4xf32>, tensor<1xsi32>) -> tensor<f32>
    %c = coreai.decomposable.broadcasting_greater %sum, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %y = "coreai.if"(%c) ({
      %a = coreai.decomposable.broadcasting_add %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      "coreai.yield"(%a) : (tensor<4xf32>) -> ()
    }, {
      %b = coreai.decomposable.broadcasting_sub %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      "coreai.yield"(%b) : (tensor<4xf32>) -> ()
    }) : (tensor<i1>) -> tensor<4xf32>
    %z = coreai.decomposable.broadcasting_mul %y, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    coreai.output %z : tensor<4xf32>`,
			[]float32{1, -2, 3, 0}, []float32{2, 2, 12, 0}}, // sum 2 > 0: (x+1)·x
		{"if, else branch", `
    %zero = coreai.constant dense<0.000000e+00> : tensor<f32>
    %one = coreai.constant dense<1.000000e+00> : tensor<f32>
    %r = coreai.constant dense<[0]> : tensor<1xsi32>
    %sum = "coreai.reduce_sum"(%x, %r) <{keep_dims = false}> : (tensor<4xf32>, tensor<1xsi32>) -> tensor<f32>
    %c = coreai.decomposable.broadcasting_greater %sum, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %y = "coreai.if"(%c) ({
      %a = coreai.decomposable.broadcasting_add %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      "coreai.yield"(%a) : (tensor<4xf32>) -> ()
    }, {
      %b = coreai.decomposable.broadcasting_sub %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      "coreai.yield"(%b) : (tensor<4xf32>) -> ()
    }) : (tensor<i1>) -> tensor<4xf32>
    coreai.output %y : tensor<4xf32>`,
			[]float32{-1, -2, 0, 0}, []float32{-2, -3, -1, -1}},
		{"scatter_nd (x, updates, indices), replacing combiner", `
    %u = coreai.constant dense<[[9.000000e+00], [8.000000e+00]]> : tensor<2x1xf32>
    %i = coreai.constant dense<[[2], [0]]> : tensor<2x1xsi32>
    %y = "coreai.scatter_nd"(%x, %u, %i) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      "coreai.yield"(%b) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<2x1xf32>, tensor<2x1xsi32>) -> tensor<4xf32>
    coreai.output %y : tensor<4xf32>`,
			[]float32{1, 2, 3, 4}, []float32{8, 2, 9, 4}},
		{"scatter_nd, adding combiner", `
    %u = coreai.constant dense<[[9.000000e+00], [8.000000e+00]]> : tensor<2x1xf32>
    %i = coreai.constant dense<[[2], [0]]> : tensor<2x1xsi32>
    %y = "coreai.scatter_nd"(%x, %u, %i) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = coreai.decomposable.broadcasting_add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "coreai.yield"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<2x1xf32>, tensor<2x1xsi32>) -> tensor<4xf32>
    coreai.output %y : tensor<4xf32>`,
			[]float32{1, 2, 3, 4}, []float32{9, 2, 12, 4}},
		{"conv2d (x, w, strides, dilations, groups)", `
    %r = coreai.constant dense<[1, 1, 1, 4]> : tensor<4xsi32>
    %x4 = coreai.reshape %x, %r : (tensor<4xf32>, tensor<4xsi32>) -> tensor<1x1x1x4xf32>
    %w = coreai.constant dense<[[[[1.000000e+00, -1.000000e+00]]]]> : tensor<1x1x1x2xf32>
    %st = coreai.constant dense<1> : tensor<2xui32>
    %g = coreai.constant dense<1> : tensor<ui32>
    %c = coreai.conv2d %x4, %w, %st, %st, %g : (tensor<1x1x1x4xf32>, tensor<1x1x1x2xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x1x1x3xf32>
    %z = coreai.constant dense<0.000000e+00> : tensor<1x1x1x1xf32>
    %p = "coreai.concat"(%a0, %c, %z) : (tensor<si32>, tensor<1x1x1x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x4xf32>
    %o = coreai.reshape %p, %r4 : (tensor<1x1x1x4xf32>, tensor<1xsi32>) -> tensor<4xf32>
    coreai.output %o : tensor<4xf32>`,
			[]float32{1, 3, 2, 5}, []float32{-2, 1, -3, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := c.body
			if strings.Contains(body, "%a0") {
				body = "\n    %a0 = coreai.constant dense<3> : tensor<si32>\n    %r4 = coreai.constant dense<[4]> : tensor<1xsi32>" + body
			}
			text := "module {\n  coreai.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {" + body + "\n  }\n}\n"
			m, _, err := mlirtext.Parse("t.mlir", text)
			if err != nil {
				t.Fatal(err)
			}
			outs, err := New(m, Options{}).Run("main", []*Tensor{NewFloat(F32, []int{4}, c.x)})
			if err != nil {
				t.Fatal(err)
			}
			if got := outs[0].Floats(); !equalF(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
