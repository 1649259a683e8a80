package ane

import (
	"testing"
)

func TestHazardRange(t *testing.T) {
	testRule(t, HazardRange, []ruleCase{
		{name: "-inf mask", file: "hazards/mask_neg_inf.mlir", want: []string{"coreai.constant: op_id 1: 1 × -inf; range [-inf, 0] over 4 element(s); used by add_mask (op_id 2) [fix finite-masks]"}},
		{name: "-1e9 mask", file: "hazards/mask_neg_1e9.mlir", want: []string{"coreai.constant: op_id 1: 1 finite beyond ±65504 (first -1e+09; 1 of them round to ±inf in fp16); range [-1e+09, 0] over 4 element(s); used by mask_to_half (op_id 2) [fix finite-masks]"}},
		{name: "safe constants", file: "hazards/safe.mlir", want: nil},
		{name: "+inf is out of range but no mask", text: `module {
  coreai.graph @main(%arg0: tensor<2xf16> {coreai.name = "x"}) -> (tensor<2xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<"0x0000007C"> : tensor<2xf16>
    %1 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
    coreai.output %1 : tensor<2xf16>
  }
}`, want: []string{"coreai.constant: 1 × +inf; range [0, +inf] over 2 element(s); used by coreai.decomposable.broadcasting_add"}},
	})
}
