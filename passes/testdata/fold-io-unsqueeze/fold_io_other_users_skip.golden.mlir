// anefix rewrite --passes fold-io-unsqueeze --set fold-io-unsqueeze.other-users=skip
// fold-io-unsqueeze: removed 0, added 0
//   note: @main input x: not folded (coreai.expand_dims (unsqueeze_3 at m.py:3)): 1 other users need its shape tensor<4xf16> and other-users=skip
module {
  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "a"}, tensor<4xf16> {coreai.name = "b"}) {
    %0 = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %1 = coreai.expand_dims %arg0, %0 : (tensor<4xf16>, tensor<1xsi32>) to tensor<1x4xf16> loc("unsqueeze_3"("m.py":3:0))
    %2 = coreai.sigmoid %1 : (tensor<1x4xf16>) -> tensor<1x4xf16> loc("sigmoid"("m.py":4:0))
    %3 = coreai.sigmoid %arg0 : (tensor<4xf16>) -> tensor<4xf16> loc("sigmoid_1"("m.py":5:0))
    coreai.output %2, %3 : tensor<1x4xf16>, tensor<4xf16> loc("output"("m.py":6:0))
  }
}

