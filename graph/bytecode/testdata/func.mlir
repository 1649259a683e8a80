// A module of func.func functions: registered ops with native properties
// (mlir-opt 19 writes func.func's properties in their own layout), calls
// whose native layout anefix does not know, and symbol visibility.
module {
  func.func @main(%arg0: tensor<1x4xf32> {coreai.name = "x", MutableBuffers.buffer_mutation = "b_state"}, %arg1: tensor<4xf16> {coreai.name = "w"}) -> (tensor<1x4xf32> {coreai.name = "b_state"}) {
    %0 = "coreai.cast"(%arg1) : (tensor<4xf16>) -> tensor<4xf32> loc("cast_1")
    %1 = func.call @norm(%arg0, %0) : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32> loc("m.py":10:3)
    return %1 : tensor<1x4xf32>
  }
  func.func private @norm(%arg0: tensor<1x4xf32>, %arg1: tensor<4xf32>) -> tensor<1x4xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {eps = 9.99999974E-6 : f32}>, noinline} {
    %0 = "coreai.rms_norm"(%arg0, %arg1) {eps = 1.0e-6 : f32} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    return %0 : tensor<1x4xf32>
  }
  func.func private @decl(i32) -> i32
}
