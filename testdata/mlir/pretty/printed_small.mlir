// Hand-written coreai printed form as coreai-torch prints it with debug
// info: location aliases defined after use (also on graph arguments),
// multi-result ops, slice_update and gather_nd forms, a declaration, a
// func.func module beside coreai graphs, a generic op inside pretty text.
module @small attributes {coreai.version = "0.4.2"} {
  coreai.graph @main(%arg0: tensor<1x4xf32> {MutableBuffers.buffer_mutation = "b_state", coreai.name = "b_state"} loc(#loc1), %arg1: tensor<1x4xf32> {coreai.name = "x"} loc(#loc2), %ids: tensor<1x1xsi32> {coreai.name = "ids"} loc(#loc2)) -> (tensor<1x4xf32> {coreai.name = "b_state"}, tensor<2x2xf16>, tensor<1x1x4xf16> {coreai.name = "emb"}) {
    %0 = coreai.constant dense<[2, 2]> : tensor<2xui32> loc(#loc3)
    %1 = coreai.constant dense_resource<w_embed> : tensor<8x4xf16> loc(#loc3)
    %2 = coreai.cast %arg1 : tensor<1x4xf32> to tensor<1x4xf16> loc(#loc4)
    %ax = coreai.constant dense<1> : tensor<1xsi32> loc(#loc3)
    %3 = coreai.expand_dims %2, %ax : (tensor<1x4xf16>, tensor<1xsi32>) to tensor<1x1x4xf16> loc(#loc5)
    %4 = coreai.shrink_dims %3, %ax : (tensor<1x1x4xf16>, tensor<1xsi32>) to tensor<1x4xf16> loc(#loc5)
    %5 = coreai.reshape %4, %0 : (tensor<1x4xf16>, tensor<2xui32>) -> tensor<2x2xf16> loc(#loc5)
    %6 = coreai.decomposable.broadcasting_add %arg0, %arg1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %7 = coreai.invoke @norm.rms_norm(%arg0, %arg1) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> loc(#loc6)
    %sizes = coreai.constant dense<2> : tensor<2xui32> loc(#loc3)
    %axis = coreai.constant dense<1> : tensor<si32> loc(#loc3)
    %8:2 = coreai.split %7, %sizes, %axis : (tensor<1x4xf32>, tensor<2xui32>, tensor<si32>) -> (tensor<1x2xf32>, tensor<1x2xf32>)
    %b = coreai.constant dense<0> : tensor<2xsi32>
    %e = coreai.constant dense<[1, 2]> : tensor<2xsi32>
    %s = coreai.constant dense<1> : tensor<2xsi32>
    %9 = coreai.slice_update %6 with %8#1 at (%b, %e, %s) : (tensor<1x4xf32>, tensor<1x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to tensor<1x4xf32>
    %ax2 = coreai.constant dense<2> : tensor<1xsi32>
    %10 = coreai.expand_dims %ids, %ax2 : (tensor<1x1xsi32>, tensor<1xsi32>) to tensor<1x1x1xsi32>
    %11 = coreai.gather_nd %1 at %10 : (tensor<8x4xf16>, tensor<1x1x1xsi32>) -> tensor<1x1x4xf16>
    %12 = "coreai.pad"(%11) ({
      "coreai.yield"() : () -> ()
    }) {mode = "constant"} : (tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    coreai.output %9, %5, %12 : tensor<1x4xf32>, tensor<2x2xf16>, tensor<1x1x4xf16> loc(#loc7)
  } loc(#loc)
  coreai.graph private noinline @norm.rms_norm(%arg0: tensor<1x4xf32> {coreai.name = "input"}, %arg1: tensor<1x4xf32> {coreai.name = "scale"}) -> tensor<1x4xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["input", "scale"], op_attrs = {eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>} {
    %0 = coreai.decomposable.broadcasting_mul %arg0, %arg1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    coreai.output %0 : tensor<1x4xf32>
  }
  func.func private @external(tensor<2xf32> {coreai.name = "a"}) -> (tensor<2xf32> {coreai.name = "b"})
  func.func @plain(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = func.call @external(%a) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
} loc(#loc)
#loc = loc("model.py":0:0)
#loc1 = loc("b_state")
#loc2 = loc("x")
#loc3 = loc("_tensor_constant0"("model.py":10:0))
#loc4 = loc(fused<#debuginfo.metadata<sources = [{name = "torch", id = 12 : ui64, identifiers = ["_to_copy_12"]}]>>["/src/macos/qwen3_5.py":199:0, "/src/qwen3_5_ios.py":290:0])
#loc5 = loc("unsqueeze_3"("model.py":12:0))
#loc6 = loc(callsite("rms_norm"("model.py":20:0) at "model.py":21:0))
#loc7 = loc("output")
{-#
  dialect_resources: {
    builtin: {
      w_embed: "0x02000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    }
  }
#-}
