// anefix rewrite --passes fp16-safe-reductions
// fp16-safe-reductions: removed 4, added 30
//   note: @main: coreai.reduce_sum (at passes/fp16-safe-reductions.mlir:9): rewritten as a matmul against ones
//   note: @main: coreai.reduce_sum (at passes/fp16-safe-reductions.mlir:11): rewritten as a matmul against ones
//   note: @main: coreai.reduce_mean (at passes/fp16-safe-reductions.mlir:12): rewritten as a matmul against ones
//   note: @main: coreai.reduce_mean (at passes/fp16-safe-reductions.mlir:13): rewritten as a matmul against ones
module {
  coreai.graph @main(%arg0: tensor<1x2x3x8xf16> {coreai.name = "x"}, %arg1: tensor<1x2xf32> {coreai.name = "y"}) -> (tensor<1x44xf16> {coreai.name = "logits"}, tensor<1x1xf32> {coreai.name = "ysum"}) {
    %0 = coreai.constant dense<-1> : tensor<1xsi32>
    %1 = coreai.constant dense<[6, 8]> : tensor<2xui32>
    %2 = coreai.reshape %arg0, %1 : (tensor<1x2x3x8xf16>, tensor<2xui32>) -> tensor<6x8xf16>
    %3 = coreai.constant dense<1.000000e+00> : tensor<8x1xf16>
    %4 = coreai.decomposable.broadcasting_batch_matmul %2, %3 : (tensor<6x8xf16>, tensor<8x1xf16>) -> tensor<6x1xf16>
    %5 = coreai.constant dense<[1, 2, 3, 1]> : tensor<4xui32>
    %6 = coreai.reshape %4, %5 : (tensor<6x1xf16>, tensor<4xui32>) -> tensor<1x2x3x1xf16>
    %7 = coreai.constant dense<-2> : tensor<1xsi32>
    %8 = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
    %9 = coreai.transpose %arg0, %8 : (tensor<1x2x3x8xf16>, tensor<4xui32>) -> tensor<1x2x8x3xf16>
    %10 = coreai.constant dense<[16, 3]> : tensor<2xui32>
    %11 = coreai.reshape %9, %10 : (tensor<1x2x8x3xf16>, tensor<2xui32>) -> tensor<16x3xf16>
    %12 = coreai.constant dense<1.000000e+00> : tensor<3x1xf16>
    %13 = coreai.decomposable.broadcasting_batch_matmul %11, %12 : (tensor<16x3xf16>, tensor<3x1xf16>) -> tensor<16x1xf16>
    %14 = coreai.constant dense<[1, 2, 1, 8]> : tensor<4xui32>
    %15 = coreai.reshape %13, %14 : (tensor<16x1xf16>, tensor<4xui32>) -> tensor<1x2x1x8xf16>
    %16 = coreai.constant dense<[6, 8]> : tensor<2xui32>
    %17 = coreai.reshape %arg0, %16 : (tensor<1x2x3x8xf16>, tensor<2xui32>) -> tensor<6x8xf16>
    %18 = coreai.constant dense<1.250000e-01> : tensor<8x1xf16>
    %19 = coreai.decomposable.broadcasting_batch_matmul %17, %18 : (tensor<6x8xf16>, tensor<8x1xf16>) -> tensor<6x1xf16>
    %20 = coreai.constant dense<[1, 2, 3, 1]> : tensor<4xui32>
    %21 = coreai.reshape %19, %20 : (tensor<6x1xf16>, tensor<4xui32>) -> tensor<1x2x3x1xf16>
    %22 = coreai.constant dense<[0, 1, 3, 2]> : tensor<4xui32>
    %23 = coreai.transpose %arg0, %22 : (tensor<1x2x3x8xf16>, tensor<4xui32>) -> tensor<1x2x8x3xf16>
    %24 = coreai.constant dense<[16, 3]> : tensor<2xui32>
    %25 = coreai.reshape %23, %24 : (tensor<1x2x8x3xf16>, tensor<2xui32>) -> tensor<16x3xf16>
    %26 = coreai.constant dense<1.000000e+00> : tensor<3x1xf16>
    %27 = coreai.decomposable.broadcasting_batch_matmul %25, %26 : (tensor<16x3xf16>, tensor<3x1xf16>) -> tensor<16x1xf16>
    %28 = coreai.constant dense<3.000000e+00> : tensor<f16>
    %29 = coreai.decomposable.broadcasting_divide %27, %28 : (tensor<16x1xf16>, tensor<f16>) -> tensor<16x1xf16>
    %30 = coreai.constant dense<[1, 2, 1, 8]> : tensor<4xui32>
    %31 = coreai.reshape %29, %30 : (tensor<16x1xf16>, tensor<4xui32>) -> tensor<1x2x1x8xf16>
    %32 = coreai.constant dense<-1> : tensor<1xsi32>
    %33 = coreai.reduce_sum %arg1, %32 : (tensor<1x2xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %34 = coreai.constant dense<[1, 6]> : tensor<2xui32>
    %35 = coreai.constant dense<[1, 16]> : tensor<2xui32>
    %36 = coreai.reshape %6, %34 : (tensor<1x2x3x1xf16>, tensor<2xui32>) -> tensor<1x6xf16>
    %37 = coreai.reshape %15, %35 : (tensor<1x2x1x8xf16>, tensor<2xui32>) -> tensor<1x16xf16>
    %38 = coreai.reshape %21, %34 : (tensor<1x2x3x1xf16>, tensor<2xui32>) -> tensor<1x6xf16>
    %39 = coreai.reshape %31, %35 : (tensor<1x2x1x8xf16>, tensor<2xui32>) -> tensor<1x16xf16>
    %40 = coreai.constant dense<1> : tensor<si32>
    %41 = coreai.concat %40, %36, %38, %37, %39 : (tensor<si32>, tensor<1x6xf16>, tensor<1x6xf16>, tensor<1x16xf16>, tensor<1x16xf16>) -> tensor<1x44xf16>
    coreai.output %41, %33 : tensor<1x44xf16>, tensor<1x1xf32>
  }
}

