// anefix's own test module (synthetic): a recurrent state rec_state in the
// attribute form, added to the input; scale-state stores it × 2^-1.
module {
  coreai.graph @main(%s: tensor<1x4xf16> {MutableBuffers.buffer_mutation = "rec_state", coreai.name = "rec_state"}, %x: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "logits"}, tensor<1x4xf16> {coreai.name = "rec_state"}) {
    %0 = coreai.decomposable.broadcasting_add %s, %x : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
    coreai.output %0, %0 : tensor<1x4xf16>, tensor<1x4xf16>
  }
}
