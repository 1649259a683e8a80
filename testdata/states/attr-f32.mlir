// anefix's own test module: handle-f32.mlir's model with its states in the
// attribute form (tensor arguments marked MutableBuffers.buffer_mutation,
// the new values returned as tensors), as coreai-torch prints a stateful
// model before make_stateful (apple/coreai-torch tests/test_stateful.py).
module {
  coreai.graph @main(%arg0: tensor<1x4xf32> {MutableBuffers.buffer_mutation = "acc", coreai.name = "acc"}, %arg1: tensor<1x4xf32> {coreai.name = "x"}, %arg2: tensor<1x8x4xf32> {MutableBuffers.buffer_mutation = "cache", coreai.name = "cache"}, %arg3: tensor<1xsi32> {coreai.name = "pos"}) -> (tensor<1x4xf32> {coreai.name = "acc"}, tensor<1x8x4xf32> {coreai.name = "cache"}, tensor<1x4xf32> {coreai.name = "out"}) {
    %0 = coreai.constant dense<5.000000e-01> : tensor<f32>
    %1 = coreai.decomposable.broadcasting_mul %arg0, %0 : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
    %2 = coreai.decomposable.broadcasting_add %1, %arg1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %3 = coreai.constant dense<[1, 1, 4]> : tensor<3xsi32>
    %4 = coreai.reshape %2, %3 : (tensor<1x4xf32>, tensor<3xsi32>) -> tensor<1x1x4xf32>
    %5 = coreai.constant dense<[0, 1, 0]> : tensor<3xsi32>
    %6 = coreai.decomposable.broadcasting_mul %arg3, %5 : (tensor<1xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    %7 = coreai.constant dense<[1, 1, 4]> : tensor<3xsi32>
    %8 = coreai.decomposable.broadcasting_add %6, %7 : (tensor<3xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    %9 = coreai.constant dense<1> : tensor<3xsi32>
    %10 = coreai.slice_update %arg2 with %4 at (%6, %8, %9) : (tensor<1x8x4xf32>, tensor<1x1x4xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) to tensor<1x8x4xf32>
    %11 = coreai.constant dense<1> : tensor<1xsi32>
    %12 = "coreai.reduce_sum"(%10, %11) <{keep_dims = false}> : (tensor<1x8x4xf32>, tensor<1xsi32>) -> tensor<1x4xf32>
    coreai.output %2, %10, %12 : tensor<1x4xf32>, tensor<1x8x4xf32>, tensor<1x4xf32>
  }
}

