// anefix rewrite --passes fold-io-unsqueeze
// fold-io-unsqueeze: removed 1, added 0
//   @main output logits: tensor<1x4xf16> -> tensor<1x1x4xf16> (folded coreai.shrink_dims (squeeze_1 at m.py:5))
//   note: @main input input_ids: coreai.expand_dims (unsqueeze_3 at m.py:3) only feeds index operands; not folded (index-inputs=true folds it)
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "input_ids"}, %arg1: tensor<8x4xf16> {coreai.name = "table"}) -> (tensor<1x1x4xf16> {coreai.name = "logits"}) {
    %0 = coreai.constant dense<2> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %1 = coreai.expand_dims %arg0, %0 : (tensor<1x1xsi32>, tensor<1xsi32>) to tensor<1x1x1xsi32> loc("unsqueeze_3"("m.py":3:0))
    %2 = coreai.gather_nd %arg1 at %1 : (tensor<8x4xf16>, tensor<1x1x1xsi32>) to tensor<1x1x4xf16> loc("embedding"("m.py":4:0))
    %3 = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant1"("m.py":5:0))
    coreai.output %2 : tensor<1x1x4xf16> loc("output"("m.py":6:0))
  }
}

