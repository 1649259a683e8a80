// rec_state's new value has another shape and the user names the pair:
// refused, nothing written.
// set: states.pairs=rec_state=rec_state_out
module {
  coreai.graph @main(%r: tensor<1x4xf16> {coreai.name = "rec_state"}) -> (tensor<1x1x4xf16> {coreai.name = "rec_state_out"}) {
    %ax = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %0 = coreai.expand_dims %r, %ax : (tensor<1x4xf16>, tensor<1xsi32>) to tensor<1x1x4xf16> loc("unsqueeze"("m.py":3:0))
    coreai.output %0 : tensor<1x1x4xf16> loc("output"("m.py":4:0))
  }
}
