// set: fold-io-unsqueeze.other-users=skip
// x is unsqueezed for one user and read as-is by another: the other user
// gets a reshape back to x's old shape.
module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "a"}, tensor<4xf16> {coreai.name = "b"}) {
    %ax = coreai.constant dense<0> : tensor<1xsi32> loc("_tensor_constant0"("m.py":3:0))
    %0 = coreai.expand_dims %x, %ax : (tensor<4xf16>, tensor<1xsi32>) to tensor<1x4xf16> loc("unsqueeze_3"("m.py":3:0))
    %1 = coreai.sigmoid %0 : tensor<1x4xf16> -> tensor<1x4xf16> loc("sigmoid"("m.py":4:0))
    %2 = coreai.sigmoid %x : tensor<4xf16> -> tensor<4xf16> loc("sigmoid_1"("m.py":5:0))
    coreai.output %1, %2 : tensor<1x4xf16>, tensor<4xf16> loc("output"("m.py":6:0))
  }
}
