// anefix rewrite --passes fold-io-unsqueeze
// fold-io-unsqueeze: removed 2, added 0
//   @main input s: tensor<4xf16> -> tensor<1x4xf16> (folded coreai.expand_dims (unsqueeze at m.py:3))
//   @main output s: tensor<4xf16> -> tensor<1x4xf16> (folded coreai.shrink_dims (squeeze at m.py:5))
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}) -> (tensor<1x4xf16> {coreai.name = "s"}) {
    %0 = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %1 = coreai.sigmoid %arg0 : (tensor<1x4xf16>) -> tensor<1x4xf16> loc("sigmoid"("m.py":4:0))
    coreai.output %1 : tensor<1x4xf16> loc("output"("m.py":6:0))
  }
}

