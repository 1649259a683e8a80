// anefix rewrite --passes promote-states
// promote-states: removed 0, added 0
//   @main input conv_state: tensor<1x4xf16> -> tensor<1x4xf16> (became state conv_state (MutableBuffers.buffer_mutation = "conv_state"; paired by names))
//   @main output new_conv_state: tensor<1x4xf16> -> tensor<1x4xf16> (renamed to conv_state: the new value of state conv_state)
//   state @main conv_state <- new_conv_state
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "x"}, %arg1: tensor<1x4xf16> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}) -> (tensor<1x4xf16> {coreai.name = "y"}, tensor<1x4xf16> {coreai.name = "conv_state"}) {
    %0 = coreai.decomposable.broadcasting_add %arg0, %arg1 : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("add_1"("m.py":3:0))
    coreai.output %0, %arg0 : tensor<1x4xf16>, tensor<1x4xf16> loc("output"("m.py":4:0))
  }
}

