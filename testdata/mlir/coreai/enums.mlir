// Enum-valued attributes printed before the colon (`mode = <constant>`), and
// one printed in the attribute dictionary (interpolate's interpolation_mode).
module {
  coreai.graph @main(%arg0: tensor<1x3x4x4xf32> {coreai.name = "x"}, %arg1: tensor<2x5xf32> {coreai.name = "s"}, %arg2: tensor<2x5xsi32> {coreai.name = "idx"}) -> (tensor<1x3x6x6xf32> {coreai.name = "pad"}, tensor<1x3x6x6xf32> {coreai.name = "refl"}, tensor<1x3x4x4xf32> {coreai.name = "gelu"}, tensor<2x5xf32> {coreai.name = "cumsum"}, tensor<2x5xf32> {coreai.name = "scatter"}, tensor<1x3x8x8xf32> {coreai.name = "up"}) {
    %0 = coreai.constant dense<[0, 0, 0, 0, 1, 1, 1, 1]> : tensor<8xui32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.pad %arg0, %0, %1 mode = <constant> : (tensor<1x3x4x4xf32>, tensor<8xui32>, tensor<f32>) -> tensor<1x3x6x6xf32>
    %3 = coreai.pad %arg0, %0, %1 mode = <reflect> : (tensor<1x3x4x4xf32>, tensor<8xui32>, tensor<f32>) -> tensor<1x3x6x6xf32>
    %4 = coreai.gelu %arg0 approximate = <tanh> : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
    %5 = coreai.constant dense<1> : tensor<ui32>
    %6 = coreai.constant dense<false> : tensor<i1>
    %7 = coreai.scan %arg1, %5, %6 combiner = <sum> : (tensor<2x5xf32>, tensor<ui32>, tensor<i1>) -> tensor<2x5xf32>
    %8 = coreai.constant dense<1> : tensor<si32>
    %9 = coreai.scatter_along_axis %arg1, %arg2, %7, %8 scatter_mode = <add> : (tensor<2x5xf32>, tensor<2x5xsi32>, tensor<2x5xf32>, tensor<si32>) -> tensor<2x5xf32>
    %10 = coreai.constant dense<[1, 3, 8, 8]> : tensor<4xsi32>
    %11 = coreai.constant dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32>
    %12 = coreai.constant dense<0.000000e+00> : tensor<4xf32>
    %13 = coreai.interpolate %arg0, %10, %11, %12 {interpolation_mode = #coreai.interpolation_mode<linear>} : (tensor<1x3x4x4xf32>, tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x3x8x8xf32>
    coreai.output %2, %3, %4, %7, %9, %13 : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>, tensor<1x3x4x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<1x3x8x8xf32>
  }
}
