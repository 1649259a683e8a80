// anefix's own test module (synthetic): a -inf mask in f32 added to an f32
// graph input. The f32 port is a blocker (check exits 3); the mask is also an
// fp16 hazard, which the advisory section lists without changing that verdict.
module {
  coreai.graph @main(%arg0: tensor<2x2xf32> {coreai.name = "scores"}) -> (tensor<2x2xf32> {coreai.name = "masked"}) {
    %0 = coreai.constant dense<"0x00000000000080FF0000000000000000"> : tensor<2x2xf32> loc("causal_mask")
    %1 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc("add_mask")
    coreai.output %1 : tensor<2x2xf32>
  }
}
