// anefix rewrite --passes residual-scale
// residual-scale: removed 0, added 0
//   note: @main: coreai.gather_nd (at residual-scale/unnormalized-reader.mlir:9): residual stream left as it is: @main: coreai.output (at residual-scale/unnormalized-reader.mlir:37) reads the stream and is not an RMSNorm, a reshape or a residual add
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "input_ids"}) -> (tensor<1x1x4xf32> {coreai.name = "logits"}, tensor<1x1x4xf16> {coreai.name = "hidden"}) {
    %0 = coreai.constant dense<[[1.000000e+00, 2.000000e+00, -3.000000e+00, 4.000000e+02], [5.000000e-01, -2.500000e-01, 1.250000e-01, 3.000000e+02], [1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, 0.000000e+00, -2.000000e+00, 5.000000e+02], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.000000e+00, 1.000000e+00, -1.000000e+00, 1.000000e+00], [3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00], [9.997550e-02, 1.999510e-01, 3.000490e-01, 3.999020e-01]]> : tensor<8x4xf16>
    %1 = coreai.constant dense<2> : tensor<1xsi32>
    %2 = coreai.expand_dims %arg0, %1 : (tensor<1x1xsi32>, tensor<1xsi32>) to tensor<1x1x1xsi32>
    %3 = coreai.gather_nd %0 at %2 : (tensor<8x4xf16>, tensor<1x1x1xsi32>) to tensor<1x1x4xf16>
    %4 = coreai.constant dense<2> : tensor<1xsi32>
    %5 = coreai.constant dense<9.99999997E-7> : tensor<f32>
    %6 = coreai.cast %3 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %7 = coreai.decomposable.broadcasting_mul %6, %6 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %8 = coreai.reduce_mean %7, %4 : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %9 = coreai.decomposable.broadcasting_add %8, %5 : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %10 = coreai.rsqrt %9 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %11 = coreai.decomposable.broadcasting_mul %6, %10 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    %12 = coreai.cast %11 : tensor<1x1x4xf32> to tensor<1x1x4xf16>
    %13 = coreai.constant dense<[5.000000e-01, -1.000000e+00, 2.000000e+00, 1.000000e+02]> : tensor<4xf16>
    %14 = coreai.decomposable.broadcasting_mul %12, %13 : (tensor<1x1x4xf16>, tensor<4xf16>) -> tensor<1x1x4xf16>
    %15 = coreai.decomposable.broadcasting_add %3, %14 : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %16 = coreai.cast %15 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %17 = coreai.decomposable.broadcasting_mul %16, %16 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %18 = coreai.reduce_mean %17, %4 : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %19 = coreai.decomposable.broadcasting_add %18, %5 : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %20 = coreai.rsqrt %19 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %21 = coreai.decomposable.broadcasting_mul %16, %20 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    %22 = coreai.cast %21 : tensor<1x1x4xf32> to tensor<1x1x4xf16>
    %23 = coreai.decomposable.broadcasting_mul %22, %13 : (tensor<1x1x4xf16>, tensor<4xf16>) -> tensor<1x1x4xf16>
    %24 = coreai.decomposable.broadcasting_add %15, %23 : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %25 = coreai.cast %24 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %26 = coreai.decomposable.broadcasting_mul %25, %25 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %27 = coreai.reduce_mean %26, %4 : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %28 = coreai.decomposable.broadcasting_add %27, %5 : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %29 = coreai.rsqrt %28 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %30 = coreai.decomposable.broadcasting_mul %25, %29 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    coreai.output %30, %24 : tensor<1x1x4xf32>, tensor<1x1x4xf16>
  }
}

