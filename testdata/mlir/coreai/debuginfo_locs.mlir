// Locations as coreai-torch writes them: every op, block argument and the
// module carry a #debuginfo.location dialect attribute. GUESS: the attribute's
// printed body is not public; this one follows the parameters
// coreai_torch/_debug_locations.py passes (a file location as src, a scope,
// fused_with locations, metadata entries sources/op_id/output_maps/call_stack).
// Three shapes: with file locations and FX identifiers, the unknown-source
// form that keeps only an op_id, and a positional body.
module {
  coreai.graph @main(%arg0: tensor<2x3xf32> {coreai.name = "x"} loc(#debuginfo.location<src = loc(unknown), scope = unit, metadata = [#debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 0 : ui64}>]>)) -> (tensor<2x3xf32> {coreai.name = "relu"}) {
    %0 = coreai.constant dense<1.000000e+00> : tensor<f32> loc(#debuginfo.location<src = loc("/work/model.py":12:0), scope = #debuginfo.subprogram<name = "forward", file = #debuginfo.file<filename = "model.py", directory = "/work", sha256_sum = "">>, fused_with = [#debuginfo.location<src = loc("/usr/lib/torch/nn/module.py":1775:0), scope = unit>], metadata = [#debuginfo.metadata<name = "sources", data = [{id = 1 : ui64, identifiers = ["add"], name = "torch"}]>, #debuginfo.metadata<name = "op_id", data = {type = "torch", value = 1 : ui64}>, #debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 1 : ui64}>, #debuginfo.metadata<name = "call_stack", data = ["", "block.0"]>]>)
    %1 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32> loc(#debuginfo.location<src = loc("/work/model.py":12:0), scope = unit, metadata = [#debuginfo.metadata<name = "sources", data = [{id = 1 : ui64, identifiers = ["add"], name = "torch"}]>, #debuginfo.metadata<name = "op_id", data = {type = "torch", value = 1 : ui64}>, #debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 2 : ui64}>, #debuginfo.metadata<name = "output_maps", data = [{source = {id = 1 : ui64, level = "torch", output = 0 : ui32}, target = {id = 2 : ui64, level = "coreai", output = 0 : ui32}}]>]>)
    %2 = coreai.relu %1 : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(#debuginfo.location<loc("/work/model.py":13:4), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["relu_1"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
    coreai.output %2 : tensor<2x3xf32> loc(#debuginfo.location<src = loc(unknown), scope = unit, metadata = [#debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 4 : ui64}>]>)
  } loc(#debuginfo.location<src = loc(unknown), scope = unit, metadata = [#debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 5 : ui64}>]>)
} loc(#debuginfo.location<src = loc(unknown), scope = unit>)
