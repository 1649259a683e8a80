// input_ids unsqueezed before the embedding gather, logits squeezed before
// the output: both rank changes sit on the graph boundary.
module {
  coreai.graph @main(%ids: tensor<1x1xsi32> {coreai.name = "input_ids"}, %table: tensor<8x4xf16> {coreai.name = "table"}) -> (tensor<1x4xf16> {coreai.name = "logits"}) {
    %axis = coreai.constant dense<2> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %0 = coreai.expand_dims %ids, %axis : (tensor<1x1xsi32>, tensor<1xsi32>) to tensor<1x1x1xsi32> loc("unsqueeze_3"("m.py":3:0))
    %1 = coreai.gather_nd %table at %0 : (tensor<8x4xf16>, tensor<1x1x1xsi32>) -> tensor<1x1x4xf16> loc("embedding"("m.py":4:0))
    %ax0 = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant1"("m.py":5:0))
    %2 = coreai.shrink_dims %1, %ax0 : (tensor<1x1x4xf16>, tensor<1xsi32>) to tensor<1x4xf16> loc("squeeze_1"("m.py":5:0))
    coreai.output %2 : tensor<1x4xf16> loc("output"("m.py":6:0))
  }
}
