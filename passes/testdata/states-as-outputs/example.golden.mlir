// anefix rewrite --passes states-as-outputs
// states-as-outputs: removed 3, added 0
//   @main input conv_state: !coreai.handle<tensor<2x4xf16>> -> tensor<2x4xf16> (no longer a state (was the handle form): a plain input; feed it output conv_state_out of the previous step)
//   @main output conv_state_out: !coreai.token -> tensor<2x4xf16> (the new value of conv_state, returned instead of written to the state)
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "x"}, %arg1: tensor<2x4xf16> {coreai.name = "conv_state"}) -> (tensor<1x4xf16> {coreai.name = "y"}, tensor<2x4xf16> {coreai.name = "conv_state_out"}) {
    %0 = coreai.constant dense<[1, 0]> : tensor<2xsi32> loc("slice_update"("m.py":4:0))
    %1 = coreai.slice_update %arg1 with %arg0 at (%0) : (tensor<2x4xf16>, tensor<1x4xf16>, tensor<2xsi32>) to tensor<2x4xf16> loc("slice_update"("m.py":4:0))
    coreai.output %arg0, %1 : tensor<1x4xf16>, tensor<2x4xf16> loc("output"("m.py":6:0))
  }
}

