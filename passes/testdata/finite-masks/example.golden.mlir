// anefix rewrite --passes finite-masks
// finite-masks: removed 0, added 0
//   note: @main: coreai.constant (at passes/finite-masks.mlir:6): 1 element(s) below -65504 set to -40000
module {
  coreai.graph @main(%arg0: tensor<2x2xf16> {coreai.name = "scores"}) -> (tensor<2x2xf16> {coreai.name = "probs"}) {
    %0 = coreai.constant dense<[[0.000000e+00, -4.000000e+04], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
    %1 = coreai.cast %0 : tensor<2x2xf32> to tensor<2x2xf16>
    %2 = coreai.decomposable.broadcasting_add %arg0, %1 : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
    %3 = coreai.constant dense<-1> : tensor<si32>
    %4 = coreai.softmax %2, %3 : (tensor<2x2xf16>, tensor<si32>) -> tensor<2x2xf16>
    coreai.output %4 : tensor<2x2xf16>
  }
}

