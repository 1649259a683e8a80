// Compressed weights: lut_to_dense over ui4 indices (a dense_resource), an
// si8 and an f8E4M3FN blockwise_shift_scale, quantize/dequantize with their
// axis operands, a !coreai.bool tensor.
module {
  coreai.graph @main(%arg0: tensor<4x3xf16> {coreai.name = "x"}, %arg1: tensor<2x32xf32> {coreai.name = "a"}, %arg2: tensor<3x!coreai.bool> {coreai.name = "flags"}) -> (tensor<4x3xf16> {coreai.name = "y"}, tensor<2x32xf32> {coreai.name = "q"}, tensor<4x3xf32> {coreai.name = "w8"}, tensor<4x3xf32> {coreai.name = "wf8"}, tensor<3x!coreai.bool> {coreai.name = "f"}) {
    %0 = coreai.constant dense_resource<indices_ui4> : tensor<2x3xui4>
    %1 = coreai.constant dense<[[[[0.000000e+00], [1.000000e+00], [2.000000e+00], [3.000000e+00], [4.000000e+00], [5.000000e+00], [6.000000e+00], [7.000000e+00], [8.000000e+00], [9.000000e+00], [1.000000e+01], [1.100000e+01], [1.200000e+01], [1.300000e+01], [1.400000e+01], [1.500000e+01]]]]> : tensor<1x1x16x1xf16>
    %2 = coreai.constant dense<0> : tensor<si16>
    %3 = coreai.lut_to_dense %0, %1, %2 : (tensor<2x3xui4>, tensor<1x1x16x1xf16>, tensor<si16>) -> tensor<4x3xf16>
    %4 = coreai.decomposable.broadcasting_add %arg0, %3 : (tensor<4x3xf16>, tensor<4x3xf16>) -> tensor<4x3xf16>
    %5 = coreai.constant dense<1.000000e+00> : tensor<32xf32>
    %6 = coreai.constant dense<3> : tensor<32xsi8>
    %7 = coreai.constant dense<1> : tensor<si32>
    %8 = coreai.quantize %arg1, %5, %6, %7 : (tensor<2x32xf32>, tensor<32xf32>, tensor<32xsi8>, tensor<si32>) -> tensor<2x32xsi8>
    %9 = coreai.dequantize %8, %5, %6, %7 : (tensor<2x32xsi8>, tensor<32xf32>, tensor<32xsi8>, tensor<si32>) -> tensor<2x32xf32>
    %10 = coreai.constant dense<[[1, -2, 3], [4, 5, -6], [7, 8, 9], [-10, 11, 12]]> : tensor<4x3xsi8>
    %11 = coreai.constant dense<5.000000e-01> : tensor<4x1xf32>
    %12 = coreai.constant dense<0> : tensor<4x1xsi8>
    %13 = coreai.blockwise_shift_scale %10, %11, %12 : (tensor<4x3xsi8>, tensor<4x1xf32>, tensor<4x1xsi8>) -> tensor<4x3xf32>
    %14 = coreai.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [-1.000000e+00, 0.000000e+00, 1.500000e+00], [4.000000e+00, 6.000000e+00, 8.000000e+00], [5.000000e-01, 7.500000e-01, 1.000000e+00]]> : tensor<4x3xf8E4M3FN>
    %15 = coreai.blockwise_shift_scale %14, %11 : (tensor<4x3xf8E4M3FN>, tensor<4x1xf32>) -> tensor<4x3xf32>
    coreai.output %4, %9, %13, %15, %arg2 : tensor<4x3xf16>, tensor<2x32xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3x!coreai.bool>
  }
}

{-#
  dialect_resources: {
    builtin: {
      indices_ui4: "0x010000000102030405060708"
    }
  }
#-}
