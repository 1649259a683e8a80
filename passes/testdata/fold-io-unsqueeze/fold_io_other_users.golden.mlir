// anefix rewrite --passes fold-io-unsqueeze
// fold-io-unsqueeze: removed 1, added 2
//   @main input x: tensor<4xf16> -> tensor<1x4xf16> (folded coreai.expand_dims (unsqueeze_3 at m.py:3); 1 other users read a coreai.reshape back to tensor<4xf16>)
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "a"}, tensor<4xf16> {coreai.name = "b"}) {
    %0 = coreai.constant dense<4> : tensor<1xui32> loc("anefix.fold-io-unsqueeze"("unsqueeze_3"("m.py":3:0)))
    %1 = coreai.reshape %arg0, %0 : (tensor<1x4xf16>, tensor<1xui32>) -> tensor<4xf16> loc("anefix.fold-io-unsqueeze"("unsqueeze_3"("m.py":3:0)))
    %2 = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %3 = coreai.sigmoid %arg0 : (tensor<1x4xf16>) -> tensor<1x4xf16> loc("sigmoid"("m.py":4:0))
    %4 = coreai.sigmoid %1 : (tensor<4xf16>) -> tensor<4xf16> loc("sigmoid_1"("m.py":5:0))
    coreai.output %3, %4 : tensor<1x4xf16>, tensor<4xf16> loc("output"("m.py":6:0))
  }
}

