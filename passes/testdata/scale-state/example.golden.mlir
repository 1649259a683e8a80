// anefix rewrite --passes scale-state
// scale-state: removed 0, added 4
//   note: @main state rec_state (attribute form) stored × 2^-1
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {MutableBuffers.buffer_mutation = "rec_state", coreai.name = "rec_state"}, %arg1: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "logits"}, tensor<1x4xf16> {coreai.name = "rec_state"}) {
    %0 = coreai.constant dense<2.000000e+00> : tensor<f16>
    %1 = coreai.decomposable.broadcasting_mul %arg0, %0 : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16>
    %2 = coreai.decomposable.broadcasting_add %1, %arg1 : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
    %3 = coreai.constant dense<5.000000e-01> : tensor<f16>
    %4 = coreai.decomposable.broadcasting_mul %2, %3 : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16>
    coreai.output %2, %4 : tensor<1x4xf16>, tensor<1x4xf16>
  }
}

