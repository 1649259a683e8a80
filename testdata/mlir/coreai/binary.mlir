// Binary and n-ary ops with functional types; `to` signatures of cast.
module {
  coreai.graph @main(%arg0: tensor<2x3xf32> {coreai.name = "x"}, %arg1: tensor<3xf32> {coreai.name = "y"}, %arg2: tensor<2x3xi1> {coreai.name = "c"}) -> (tensor<2x3xf32> {coreai.name = "where"}, tensor<2x3xi1> {coreai.name = "gt"}, tensor<2x3xsi32> {coreai.name = "i"}) {
    %0 = coreai.decomposable.broadcasting_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = coreai.decomposable.broadcasting_greater %0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %2 = coreai.decomposable.broadcasting_and %1, %arg2 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
    %3 = coreai.decomposable.broadcasting_where %2, %0, %arg0 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = coreai.cast %3 : tensor<2x3xf32> to tensor<2x3xsi32>
    %5 = coreai.cast %4 : tensor<2x3xsi32> to tensor<?x3xsi32>
    %6 = coreai.cast %5 : tensor<?x3xsi32> to tensor<2x3xsi32>
    coreai.output %3, %1, %6 : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xsi32>
  }
}
