// A state read through unsqueeze and written through squeeze: both sides
// fold to tensor<1x4xf16>, so the state keeps one type.
module {
  coreai.graph @main(%s: tensor<4xf16> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}) -> (tensor<4xf16> {coreai.name = "s"}) {
    %ax = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %0 = coreai.expand_dims %s, %ax : (tensor<4xf16>, tensor<1xsi32>) to tensor<1x4xf16> loc("unsqueeze"("m.py":3:0))
    %1 = coreai.sigmoid %0 : tensor<1x4xf16> -> tensor<1x4xf16> loc("sigmoid"("m.py":4:0))
    %2 = coreai.shrink_dims %1, %ax : (tensor<1x4xf16>, tensor<1xsi32>) to tensor<4xf16> loc("squeeze"("m.py":5:0))
    coreai.output %2 : tensor<4xf16> loc("output"("m.py":6:0))
  }
}
