// anefix rewrite --passes promote-states
// promote-states: removed 0, added 0
//   note: @main input rec_state (tensor<1x4xf16>) and output rec_state_out (tensor<1x1x4xf16>) are named as one state but differ in type; a state keeps one type, so they are not paired
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "rec_state"}) -> (tensor<1x1x4xf16> {coreai.name = "rec_state_out"}) {
    %0 = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %1 = coreai.expand_dims %arg0, %0 : (tensor<1x4xf16>, tensor<1xsi32>) to tensor<1x1x4xf16> loc("unsqueeze"("m.py":3:0))
    coreai.output %1 : tensor<1x1x4xf16> loc("output"("m.py":4:0))
  }
}

