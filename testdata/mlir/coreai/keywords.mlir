// Operands separated by keywords: gather_nd `at`, gather_along_axis `at …
// along`, slice_update `with … at (…)`; their signatures end in `to`.
module {
  coreai.graph @main(%arg0: tensor<10x4xf32> {coreai.name = "table"}, %arg1: tensor<3x1xsi32> {coreai.name = "rows"}, %arg2: tensor<5x3xf32> {coreai.name = "x"}, %arg3: tensor<3x3xsi32> {coreai.name = "idx"}) -> (tensor<3x4xf32> {coreai.name = "g"}, tensor<3x3xf32> {coreai.name = "ga"}, tensor<10x4xf32> {coreai.name = "su"}) {
    %0 = coreai.gather_nd %arg0 at %arg1 : (tensor<10x4xf32>, tensor<3x1xsi32>) to tensor<3x4xf32>
    %1 = coreai.constant dense<0> : tensor<si32>
    %2 = coreai.gather_along_axis %arg2 at %arg3 along %1 : (tensor<5x3xf32>, tensor<3x3xsi32>, tensor<si32>) to tensor<3x3xf32>
    %3 = coreai.constant dense<[2, 0]> : tensor<2xsi32>
    %4 = coreai.constant dense<[5, 4]> : tensor<2xsi32>
    %5 = coreai.constant dense<1> : tensor<2xsi32>
    %6 = coreai.slice_update %arg0 with %0 at (%3, %4, %5) : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to tensor<10x4xf32>
    coreai.output %0, %2, %6 : tensor<3x4xf32>, tensor<3x3xf32>, tensor<10x4xf32>
  }
}
