// Constants as coreai-torch prints them: MLIR's float spellings
// (0.000000e+00, 9.99999974E-6, -0.785398185, hex inf/nan), an empty dense of
// tensor<0x…>, i1 splats, integer lists, and a reshape to a scalar.
module {
  coreai.graph @main(%arg0: tensor<1x1xf32> {coreai.name = "x"}) -> (tensor<f32> {coreai.name = "y"}, tensor<i1> {coreai.name = "b"}) {
    %0 = coreai.constant dense<> : tensor<0xui32>
    %1 = coreai.constant dense<0.000000e+00> : tensor<f32>
    %2 = coreai.constant dense<9.99999974E-6> : tensor<f32>
    %3 = coreai.constant dense<-0.785398185> : tensor<f32>
    %4 = coreai.constant dense<0x7F800000> : tensor<f32>
    %5 = coreai.constant dense<0xFF800000> : tensor<f32>
    %6 = coreai.constant dense<0x7FC00000> : tensor<f32>
    %7 = coreai.constant dense<1.000000e+02> : tensor<f32>
    %8 = coreai.constant dense<[1.000000e+00, 1.000000e+00, 2.000000e+00, 2.500000e-01]> : tensor<4xf32>
    %9 = coreai.constant dense<[2147483647, 3, -2]> : tensor<3xsi32>
    %10 = coreai.constant dense<true> : tensor<i1>
    %11 = coreai.constant dense<false> : tensor<2xi1>
    %12 = coreai.constant dense<2.30258512> : tensor<f32>
    %13 = coreai.constant dense<9.997550e-02> : tensor<f16>
    %14 = coreai.reshape %arg0, %0 : (tensor<1x1xf32>, tensor<0xui32>) -> tensor<f32>
    %15 = coreai.decomposable.broadcasting_add %14, %2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    coreai.output %15, %10 : tensor<f32>, tensor<i1>
  }
}
