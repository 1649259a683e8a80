// A state in the attribute form: a plain tensor argument carrying
// MutableBuffers.buffer_mutation, returned updated.
module {
  coreai.graph @main(%arg0: tensor<2x4xf32> {MutableBuffers.buffer_mutation = "b_state", coreai.name = "b_state"}, %arg1: tensor<2x4xf32> {coreai.name = "x"}) -> (tensor<2x4xf32> {coreai.name = "b_state"}, tensor<2x4xf32> {coreai.name = "add_1"}) {
    %0 = coreai.constant dense<1.000000e+00> : tensor<f32>
    %1 = coreai.decomposable.broadcasting_add %arg0, %arg1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %2 = coreai.decomposable.broadcasting_add %1, %0 : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    coreai.output %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>
  }
}
