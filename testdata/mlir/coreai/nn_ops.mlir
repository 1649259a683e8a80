// Operand-list ops with many parameter operands: conv2d, conv_transpose2d,
// max_pool_2d, sum_pool_2d, argsort, sort, range, argmax, concat, tile.
module {
  coreai.graph @main(%arg0: tensor<1x3x8x8xf32> {coreai.name = "x"}, %arg1: tensor<2x5xf32> {coreai.name = "s"}) -> (tensor<1x8x6x6xf32> {coreai.name = "conv"}, tensor<1x3x4x4xf32> {coreai.name = "pool"}, tensor<2x5xsi32> {coreai.name = "order"}, tensor<2x5xf32> {coreai.name = "sorted"}, tensor<?xsi32> {coreai.name = "r"}, tensor<2x1xui32> {coreai.name = "am"}, tensor<4x5xf32> {coreai.name = "cat"}, tensor<1x3x2x2xf32> {coreai.name = "sp"}) {
    %0 = coreai.constant dense<1.000000e-01> : tensor<8x3x3x3xf32>
    %1 = coreai.constant dense<1> : tensor<2xui32>
    %2 = coreai.constant dense<1> : tensor<ui32>
    %3 = coreai.conv2d %arg0, %0, %1, %1, %2 : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x8x6x6xf32>
    %4 = coreai.constant dense<2> : tensor<2xui32>
    %5 = coreai.constant dense<0> : tensor<2xui32>
    %6 = coreai.constant dense<false> : tensor<i1>
    %7 = coreai.max_pool_2d %arg0, %4, %4, %5, %6 : (tensor<1x3x8x8xf32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>, tensor<i1>) -> tensor<1x3x4x4xf32>
    %8 = coreai.constant dense<1> : tensor<si32>
    %9 = coreai.argsort %arg1, %8, %6, %6 : (tensor<2x5xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<2x5xsi32>
    %10 = coreai.sort %arg1, %8, %6, %6 : (tensor<2x5xf32>, tensor<si32>, tensor<i1>, tensor<i1>) -> tensor<2x5xf32>
    %11 = coreai.constant dense<0> : tensor<si32>
    %12 = coreai.constant dense<3> : tensor<si32>
    %13 = coreai.range %11, %12, %8 : (tensor<si32>, tensor<si32>, tensor<si32>) -> tensor<?xsi32>
    %14 = coreai.argmax %arg1, %8 : (tensor<2x5xf32>, tensor<si32>) -> tensor<2x1xui32>
    %15 = coreai.concat %11, %arg1, %10 : (tensor<si32>, tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<4x5xf32>
    %16 = coreai.sum_pool_2d %7, %4, %4, %5 : (tensor<1x3x4x4xf32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>) -> tensor<1x3x2x2xf32>
    coreai.output %3, %7, %9, %10, %13, %14, %15, %16 : tensor<1x8x6x6xf32>, tensor<1x3x4x4xf32>, tensor<2x5xsi32>, tensor<2x5xf32>, tensor<?xsi32>, tensor<2x1xui32>, tensor<4x5xf32>, tensor<1x3x2x2xf32>
  }
}

