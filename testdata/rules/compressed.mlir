// anefix's own test module: a tiny language-model step with compressed weights
// in the forms coreai-torch lowers them to (coreai_torch/_custom_to_core.py):
// a palettized embedding table (lut_to_dense over ui4 indices) and si8
// projection weights dequantized by blockwise_shift_scale (one scale per
// output column). check predicts it legal (neither is linear INT4); the
// same module with si4 weights is the linear-INT4 case.
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "input_ids"}) -> (tensor<1x8xf16> {coreai.name = "logits"}) {
    %0 = coreai.constant dense<[[10, 4, 12, 1], [2, 3, 11, 1], [6, 1, 2, 13], [13, 2, 7, 2], [13, 1, 3, 7], [1, 12, 1, 7], [1, 4, 9, 13], [4, 3, 9, 5]]> : tensor<8x4xui4>
    %1 = coreai.constant dense<[[[[-9.375000e-01], [-8.125000e-01], [-6.875000e-01], [-5.625000e-01], [-4.375000e-01], [-3.125000e-01], [-1.875000e-01], [-6.250000e-02], [6.250000e-02], [1.875000e-01], [3.125000e-01], [4.375000e-01], [5.625000e-01], [6.875000e-01], [8.125000e-01], [9.375000e-01]]]]> : tensor<1x1x16x1xf16>
    %2 = coreai.constant dense<0> : tensor<si16>
    %3 = coreai.lut_to_dense %0, %1, %2 : (tensor<8x4xui4>, tensor<1x1x16x1xf16>, tensor<si16>) -> tensor<8x4xf16>
    %4 = coreai.gather_nd %3 at %arg0 : (tensor<8x4xf16>, tensor<1x1xsi32>) to tensor<1x4xf16>
    %5 = coreai.constant dense<[[-5, -2, 3, -5, -6, -7, -2, 7], [5, 2, 6, 6, 3, 1, -1, -3], [-1, -6, 1, 7, 2, 6, 1, -6], [-5, 5, -3, 2, -4, 7, 5, -7]]> : tensor<4x8xsi8>
    %6 = coreai.constant dense<[[1.250000e-01, 2.500000e-01, 5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 5.000000e-01, 1.000000e+00]]> : tensor<1x8xf16>
    %7 = coreai.constant dense<0> : tensor<1x8xsi8>
    %8 = coreai.constant dense<0.000000e+00> : tensor<1x8xf16>
    %9 = coreai.blockwise_shift_scale %5, %6, %7, %8 : (tensor<4x8xsi8>, tensor<1x8xf16>, tensor<1x8xsi8>, tensor<1x8xf16>) -> tensor<4x8xf16>
    %10 = coreai.decomposable.broadcasting_batch_matmul %4, %9 : (tensor<1x4xf16>, tensor<4x8xf16>) -> tensor<1x8xf16>
    coreai.output %10 : tensor<1x8xf16>
  }
}
