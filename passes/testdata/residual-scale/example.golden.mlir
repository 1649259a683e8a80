// anefix rewrite --passes residual-scale
// residual-scale: removed 0, added 9
//   note: @main: coreai.gather_nd (at passes/residual-scale.mlir:13): residual stream divided by 2^6 (2 residual adds, 3 norms' epsilon scaled by 2^-12) (k=auto: a guessed stream of width 4, sum of squares 6.711e+07, divided by 2^12 fits within 32752; a static rule, nothing measured)
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "input_ids"}) -> (tensor<1x1x4xf32> {coreai.name = "logits"}) {
    %0 = coreai.constant dense<[[1.000000e+00, 2.000000e+00, -3.000000e+00, 4.000000e+02], [5.000000e-01, -2.500000e-01, 1.250000e-01, 3.000000e+02], [1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, 0.000000e+00, -2.000000e+00, 5.000000e+02], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-1.000000e+00, 1.000000e+00, -1.000000e+00, 1.000000e+00], [3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00], [9.997550e-02, 1.999510e-01, 3.000490e-01, 3.999020e-01]]> : tensor<8x4xf16>
    %1 = coreai.constant dense<2> : tensor<1xsi32>
    %2 = coreai.expand_dims %arg0, %1 : (tensor<1x1xsi32>, tensor<1xsi32>) to tensor<1x1x1xsi32>
    %3 = coreai.gather_nd %0 at %2 : (tensor<8x4xf16>, tensor<1x1x1xsi32>) to tensor<1x1x4xf16>
    %4 = coreai.constant dense<1.562500e-02> : tensor<f16>
    %5 = coreai.decomposable.broadcasting_mul %3, %4 : (tensor<1x1x4xf16>, tensor<f16>) -> tensor<1x1x4xf16>
    %6 = coreai.constant dense<2> : tensor<1xsi32>
    %7 = coreai.constant dense<9.99999997E-7> : tensor<f32>
    %8 = coreai.cast %5 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %9 = coreai.decomposable.broadcasting_mul %8, %8 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %10 = coreai.reduce_mean %9, %6 : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %11 = coreai.constant dense<2.44140624E-10> : tensor<f32>
    %12 = coreai.decomposable.broadcasting_add %10, %11 : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %13 = coreai.rsqrt %12 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %14 = coreai.decomposable.broadcasting_mul %8, %13 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    %15 = coreai.cast %14 : tensor<1x1x4xf32> to tensor<1x1x4xf16>
    %16 = coreai.constant dense<[5.000000e-01, -1.000000e+00, 2.000000e+00, 1.000000e+02]> : tensor<4xf16>
    %17 = coreai.decomposable.broadcasting_mul %15, %16 : (tensor<1x1x4xf16>, tensor<4xf16>) -> tensor<1x1x4xf16>
    %18 = coreai.constant dense<1.562500e-02> : tensor<f16>
    %19 = coreai.decomposable.broadcasting_mul %17, %18 : (tensor<1x1x4xf16>, tensor<f16>) -> tensor<1x1x4xf16>
    %20 = coreai.decomposable.broadcasting_add %5, %19 : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %21 = coreai.cast %20 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %22 = coreai.decomposable.broadcasting_mul %21, %21 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %23 = coreai.reduce_mean %22, %6 : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %24 = coreai.constant dense<2.44140624E-10> : tensor<f32>
    %25 = coreai.decomposable.broadcasting_add %23, %24 : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %26 = coreai.rsqrt %25 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %27 = coreai.decomposable.broadcasting_mul %21, %26 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    %28 = coreai.cast %27 : tensor<1x1x4xf32> to tensor<1x1x4xf16>
    %29 = coreai.decomposable.broadcasting_mul %28, %16 : (tensor<1x1x4xf16>, tensor<4xf16>) -> tensor<1x1x4xf16>
    %30 = coreai.constant dense<1.562500e-02> : tensor<f16>
    %31 = coreai.decomposable.broadcasting_mul %29, %30 : (tensor<1x1x4xf16>, tensor<f16>) -> tensor<1x1x4xf16>
    %32 = coreai.decomposable.broadcasting_add %20, %31 : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %33 = coreai.cast %32 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %34 = coreai.decomposable.broadcasting_mul %33, %33 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %35 = coreai.reduce_mean %34, %6 : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %36 = coreai.constant dense<2.44140624E-10> : tensor<f32>
    %37 = coreai.decomposable.broadcasting_add %35, %36 : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %38 = coreai.rsqrt %37 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %39 = coreai.decomposable.broadcasting_mul %33, %38 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    coreai.output %39 : tensor<1x1x4xf32>
  }
}

