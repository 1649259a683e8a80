// coreai.if with then/else regions ending in coreai.yield; the signature
// `tensor<i1> -> T` follows the regions.
module {
  coreai.graph @main(%arg0: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "cond"}) {
    %0 = coreai.constant dense<> : tensor<0xui32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %3 = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %4 = coreai.reduce_sum %arg0, %3 : (tensor<2x3xf32>, tensor<2xsi32>) -> tensor<1x1xf32>
    %5 = coreai.decomposable.broadcasting_greater %4, %1 : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xi1>
    %6 = coreai.reshape %5, %0 : (tensor<1x1xi1>, tensor<0xui32>) -> tensor<i1>
    %7 = coreai.if %6 {
      %8 = coreai.decomposable.broadcasting_add %arg0, %2 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
      coreai.yield %8 : tensor<2x3xf32>
    } else {
      %9 = coreai.decomposable.broadcasting_sub %arg0, %2 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
      coreai.yield %9 : tensor<2x3xf32>
    } : tensor<i1> -> tensor<2x3xf32>
    coreai.output %7 : tensor<2x3xf32>
  }
}
