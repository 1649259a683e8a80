// anefix's own test module: handle-f32.mlir's model with its states in the
// attribute form (tensor arguments marked MutableBuffers.buffer_mutation,
// the new values returned as tensors), as coreai-torch prints a stateful
// model before make_stateful (apple/coreai-torch tests/test_stateful.py).
module {
  coreai.graph @main(%arg0: tensor<1x4xf32> {MutableBuffers.buffer_mutation = "acc", coreai.name = "acc"}, %arg1: tensor<1x4xf32> {coreai.name = "x"}, %arg2: tensor<1x8x4xf32> {MutableBuffers.buffer_mutation = "cache", coreai.name = "cache"}, %arg3: tensor<1xsi32> {coreai.name = "pos"}) -> (tensor<1x4xf32> {coreai.name = "acc"}, tensor<1x8x4xf32> {coreai.name = "cache"}, tensor<1x4xf32> {coreai.name = "out"}) {
    %5 = "coreai.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %6 = "coreai.decomposable.broadcasting_mul"(%arg0, %5) : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
    %7 = "coreai.decomposable.broadcasting_add"(%6, %arg1) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %9 = "coreai.constant"() <{value = dense<[1, 1, 4]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %10 = "coreai.reshape"(%7, %9) : (tensor<1x4xf32>, tensor<3xsi32>) -> tensor<1x1x4xf32>
    %11 = "coreai.constant"() <{value = dense<[0, 1, 0]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %12 = "coreai.decomposable.broadcasting_mul"(%arg3, %11) : (tensor<1xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    %13 = "coreai.constant"() <{value = dense<[1, 1, 4]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %14 = "coreai.decomposable.broadcasting_add"(%12, %13) : (tensor<3xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    %15 = "coreai.constant"() <{value = dense<1> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %16 = "coreai.slice_update"(%arg2, %10, %12, %14, %15) : (tensor<1x8x4xf32>, tensor<1x1x4xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x8x4xf32>
    %18 = "coreai.constant"() <{value = dense<1> : tensor<1xsi32>}> : () -> tensor<1xsi32>
    %19 = "coreai.reduce_sum"(%16, %18) <{keep_dims = false}> : (tensor<1x8x4xf32>, tensor<1xsi32>) -> tensor<1x4xf32>
    "coreai.output"(%7, %16, %19) : (tensor<1x4xf32>, tensor<1x8x4xf32>, tensor<1x4xf32>) -> ()
  }
}
