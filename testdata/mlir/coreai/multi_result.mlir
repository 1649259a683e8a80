// Multi-result ops with results named one by one, and uses of each.
module {
  coreai.graph @main(%arg0: tensor<4x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "a"}, tensor<2x3xf32> {coreai.name = "b"}) {
    %0 = coreai.constant dense<2> : tensor<2xui32>
    %1 = coreai.constant dense<0> : tensor<si32>
    %2, %3 = coreai.split %arg0, %0, %1 : (tensor<4x3xf32>, tensor<2xui32>, tensor<si32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    coreai.output %3, %2 : tensor<2x3xf32>, tensor<2x3xf32>
  }
}
