// coreai.while: a condition region ending in coreai.condition and a body
// region (`} do {`) ending in coreai.yield. GUESS: coreai-torch's test pins
// only the op names and `} do {`; the operand/signature placement here
// follows coreai.if (operands after the name, `: T -> U` after the regions)
// and condition's operands (flag first, then the carried values) follow
// scf.condition.
module {
  coreai.graph @main(%arg0: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "loop"}) {
    %0 = coreai.constant dense<1.000000e+01> : tensor<f32>
    %1 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<[0, 1]> : tensor<2xsi32>
    %3 = coreai.constant dense<> : tensor<0xui32>
    %4 = coreai.while %arg0 {
    ^bb0(%arg1: tensor<2x3xf32>):
      %5 = coreai.reduce_sum %arg1, %2 : (tensor<2x3xf32>, tensor<2xsi32>) -> tensor<1x1xf32>
      %6 = coreai.decomposable.broadcasting_greater %0, %5 : (tensor<f32>, tensor<1x1xf32>) -> tensor<1x1xi1>
      %7 = coreai.reshape %6, %3 : (tensor<1x1xi1>, tensor<0xui32>) -> tensor<i1>
      coreai.condition %7, %arg1 : tensor<i1>, tensor<2x3xf32>
    } do {
    ^bb0(%arg2: tensor<2x3xf32>):
      %8 = coreai.decomposable.broadcasting_add %arg2, %1 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
      coreai.yield %8 : tensor<2x3xf32>
    } : tensor<2x3xf32> -> tensor<2x3xf32>
    coreai.output %4 : tensor<2x3xf32>
  }
}
