// anefix's own test module (not copied from anywhere): the state form
// coreai-torch's make_stateful prints (apple/coreai-torch tests/test_stateful.py
// shows the signature and the op sequence), with two f32 states: an
// accumulator "acc" and a cache "cache" written at position %pos with
// slice_update then write_handle, as LLM cache writes are; printed as
// coreai-torch prints it, without locations (make-stateful.mlir has them).
module {
  coreai.graph @main(%arg0: !coreai.handle<tensor<1x4xf32>> {MutableBuffers.buffer_mutation = "acc", coreai.name = "acc"}, %arg1: tensor<1x4xf32> {coreai.name = "x"}, %arg2: !coreai.handle<tensor<1x8x4xf32>> {MutableBuffers.buffer_mutation = "cache", coreai.name = "cache"}, %arg3: tensor<1xsi32> {coreai.name = "pos"}) -> (!coreai.token {coreai.name = "acc"}, !coreai.token {coreai.name = "cache"}, tensor<1x4xf32> {coreai.name = "out"}) {
    %0 = coreai.create_token : !coreai.token
    %1, %2 = coreai.read_handle %arg0, %0 : (<tensor<1x4xf32>>, !coreai.token) -> (tensor<1x4xf32>, !coreai.token)
    %3, %4 = coreai.read_handle %arg2, %2 : (<tensor<1x8x4xf32>>, !coreai.token) -> (tensor<1x8x4xf32>, !coreai.token)
    %5 = coreai.constant dense<5.000000e-01> : tensor<f32>
    %6 = coreai.decomposable.broadcasting_mul %1, %5 : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
    %7 = coreai.decomposable.broadcasting_add %6, %arg1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %8 = coreai.write_handle %arg0, %7, %4 : (<tensor<1x4xf32>>, tensor<1x4xf32>, !coreai.token) -> !coreai.token
    %9 = coreai.constant dense<[1, 1, 4]> : tensor<3xsi32>
    %10 = coreai.reshape %7, %9 : (tensor<1x4xf32>, tensor<3xsi32>) -> tensor<1x1x4xf32>
    %11 = coreai.constant dense<[0, 1, 0]> : tensor<3xsi32>
    %12 = coreai.decomposable.broadcasting_mul %arg3, %11 : (tensor<1xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    %13 = coreai.constant dense<[1, 1, 4]> : tensor<3xsi32>
    %14 = coreai.decomposable.broadcasting_add %12, %13 : (tensor<3xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    %15 = coreai.constant dense<1> : tensor<3xsi32>
    %16 = coreai.slice_update %3 with %10 at (%12, %14, %15) : (tensor<1x8x4xf32>, tensor<1x1x4xf32>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) to tensor<1x8x4xf32>
    %17 = coreai.write_handle %arg2, %16, %8 : (<tensor<1x8x4xf32>>, tensor<1x8x4xf32>, !coreai.token) -> !coreai.token
    %18 = coreai.constant dense<1> : tensor<1xsi32>
    %19 = "coreai.reduce_sum"(%16, %18) <{keep_dims = false}> : (tensor<1x8x4xf32>, tensor<1xsi32>) -> tensor<1x4xf32>
    coreai.output %8, %17, %19 : !coreai.token, !coreai.token, tensor<1x4xf32>
  }
}

