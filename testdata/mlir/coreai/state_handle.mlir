// A state as make_stateful prints it: a !coreai.handle argument, a token from
// create_token (an op with no operands), read_handle with its two results
// named one by one, the handle type printed stripped (`<tensor<…>>`) in op
// signatures, slice_update then write_handle, and a token result.
module {
  coreai.graph @main(%arg0: !coreai.handle<tensor<1x4xf32>> {MutableBuffers.buffer_mutation = "b_state", coreai.name = "b_state"}, %arg1: tensor<1x2xf32> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "b_state"}, tensor<1x4xf32> {coreai.name = "y"}) {
    %0 = coreai.create_token : !coreai.token
    %1, %2 = coreai.read_handle %arg0, %0 : (<tensor<1x4xf32>>, !coreai.token) -> (tensor<1x4xf32>, !coreai.token)
    %3 = coreai.constant dense<[0, 2]> : tensor<2xsi32>
    %4 = coreai.constant dense<[1, 4]> : tensor<2xsi32>
    %5 = coreai.constant dense<1> : tensor<2xsi32>
    %6 = coreai.slice_update %1 with %arg1 at (%3, %4, %5) : (tensor<1x4xf32>, tensor<1x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to tensor<1x4xf32>
    %7 = coreai.write_handle %arg0, %6, %2 : (<tensor<1x4xf32>>, tensor<1x4xf32>, !coreai.token) -> !coreai.token
    coreai.output %7, %6 : !coreai.token, tensor<1x4xf32>
  }
}
