// anefix rewrite --passes promote-states
// promote-states: removed 0, added 0
//   @main input conv_state_0: tensor<1x4xf16> -> tensor<1x4xf16> (became state conv_state_0 (MutableBuffers.buffer_mutation = "conv_state_0"; paired by names))
//   @main output new_conv_state_0: tensor<1x4xf16> -> tensor<1x4xf16> (renamed to conv_state_0: the new value of state conv_state_0)
//   @main input convState1: tensor<1x4xf16> -> tensor<1x4xf16> (became state convState1 (MutableBuffers.buffer_mutation = "convState1"; paired by names))
//   @main output convState1Out: tensor<1x4xf16> -> tensor<1x4xf16> (renamed to convState1: the new value of state convState1)
//   state @main conv_state_0 <- new_conv_state_0
//   state @main convState1 <- convState1Out
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "x"}, %arg1: tensor<1x4xf16> {MutableBuffers.buffer_mutation = "conv_state_0", coreai.name = "conv_state_0"}, %arg2: tensor<1x4xf16> {MutableBuffers.buffer_mutation = "convState1", coreai.name = "convState1"}, %arg3: tensor<1x4xf16> {coreai.name = "key_cache"}) -> (tensor<1x4xf16> {coreai.name = "y"}, tensor<1x4xf16> {coreai.name = "conv_state_0"}, tensor<1x4xf16> {coreai.name = "convState1"}, tensor<1x4xf16> {coreai.name = "new_k_cache"}) {
    %0 = coreai.decomposable.broadcasting_add %arg0, %arg1 : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("add"("m.py":3:0))
    %1 = coreai.decomposable.broadcasting_add %0, %arg2 : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("add_1"("m.py":4:0))
    coreai.output %1, %arg0, %0, %arg3 : tensor<1x4xf16>, tensor<1x4xf16>, tensor<1x4xf16>, tensor<1x4xf16> loc("output"("m.py":5:0))
  }
}

