package interp

import (
	"slices"
	"testing"
)

// TestConcatAxisOperand: coreai.concat's axis is its first operand (the op
// table, graph/coreaiop/table.go), whatever its data operands are. The
// cases where the data also holds one-element integer constants (a KV cache
// write's begin index [0, 0, pos, 0]) used to be read with the last
// constant as the axis: "concat: axis 0 out of range for rank 0".
// Expected values are written by hand.
func TestConcatAxisOperand(t *testing.T) {
	for _, c := range []struct {
		name, body, outType string
		wantI               []int64
		wantF               []float32
		wantShape           []int
	}{
		{name: "cache begin index, constants first and last", outType: "tensor<4xsi32>", body: `
    %ax = coreai.constant dense<0> : tensor<si32>
    %z = coreai.constant dense<0> : tensor<1xsi32>
    %p = coreai.constant dense<7> : tensor<1xsi32>
    %0 = coreai.concat %ax, %z, %z, %p, %z : (tensor<si32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<4xsi32>`,
			wantI: []int64{0, 0, 7, 0}, wantShape: []int{4}},
		{name: "two one-element integer constants", outType: "tensor<2xsi32>", body: `
    %ax = coreai.constant dense<0> : tensor<si32>
    %a = coreai.constant dense<3> : tensor<1xsi32>
    %b = coreai.constant dense<5> : tensor<1xsi32>
    %0 = coreai.concat %ax, %a, %b : (tensor<si32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<2xsi32>`,
			wantI: []int64{3, 5}, wantShape: []int{2}},
		{name: "axis 1 of float data", outType: "tensor<1x3xf32>", body: `
    %ax = coreai.constant dense<1> : tensor<1xsi32>
    %a = coreai.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
    %b = coreai.constant dense<[[3.0]]> : tensor<1x1xf32>
    %0 = coreai.concat %ax, %a, %b : (tensor<1xsi32>, tensor<1x2xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>`,
			wantF: []float32{1, 2, 3}, wantShape: []int{1, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "module {\n  coreai.graph @main() -> (" + c.outType + ` {coreai.name = "y"}) {` + c.body + `
    coreai.output %0 : ` + c.outType + "\n  }\n}\n"
			got := runIR(t, c.name, src)[0]
			if !slices.Equal(got.Shape, c.wantShape) {
				t.Fatalf("shape %v, want %v", got.Shape, c.wantShape)
			}
			if c.wantI != nil && !slices.Equal(got.I, c.wantI) {
				t.Errorf("got %v, want %v", got.I, c.wantI)
			}
			if c.wantF != nil && !slices.Equal(got.F, c.wantF) {
				t.Errorf("got %v, want %v", got.F, c.wantF)
			}
		})
	}
}
