// A custom Metal kernel call (coreai-torch's tests/dsl): operand groups
// kernel_args(…), threads_per_grid, threads_per_thread_group,
// result_shapes(…); tensors carrying a #coreaix.hw_constraints encoding. The
// generic form keeps the group sizes in operandSegmentSizes (a guess, see
// graph/mlirtext/parse_custom.go).
module {
  coreai.graph @main(%arg0: tensor<2x3xf16> {coreai.name = "a"}, %arg1: tensor<2x3xf16> {coreai.name = "b"}) -> (tensor<2x3xf16> {coreai.name = "sum"}) {
    %0 = coreai.cast %arg0 : tensor<2x3xf16> to tensor<2x3xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
    %1 = coreai.cast %arg1 : tensor<2x3xf16> to tensor<2x3xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
    %2 = coreai.constant dense<[6, 1, 1]> : tensor<3xui32>
    %3 = coreai.constant dense<[32, 1, 1]> : tensor<3xui32>
    %4 = coreai.constant dense<[2, 3, 1]> : tensor<3xui32>
    %5 = coreai.metal4_kernel kernel_args(%0, %1), threads_per_grid %2, threads_per_thread_group %3, result_shapes(%4) {kernel_name = "custom_add_abc", kernel_source = "kernel void custom_add_abc(device const half* a [[buffer(0)]]) {}"} : (tensor<2x3xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>, tensor<2x3xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> tensor<2x3xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>>
    %6 = coreai.cast %5 : tensor<2x3xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x1], interleave: [1x1]>> to tensor<2x3xf16>
    coreai.output %6 : tensor<2x3xf16>
  }
}
