// debuginfo_locs.mlir with its locations written through aliases defined
// after use, as MLIR's printer writes them, also inside the debuginfo bodies
// (attribute aliases first, location aliases last): must read to the same module.
#di_file = #debuginfo.file<filename = "model.py", directory = "/work", sha256_sum = "">
#di_subprogram = #debuginfo.subprogram<name = "forward", file = #di_file>
module {
  coreai.graph @main(%arg0: tensor<2x3xf32> {coreai.name = "x"} loc(#loc1)) -> (tensor<2x3xf32> {coreai.name = "relu"}) {
    %0 = coreai.constant dense<1.000000e+00> : tensor<f32> loc(#loc2)
    %1 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32> loc(#loc3)
    %2 = coreai.relu %1 : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(#loc4)
    coreai.output %2 : tensor<2x3xf32> loc(#loc5)
  } loc(#loc6)
} loc(#loc)
#loc = loc(#debuginfo.location<src = loc(unknown), scope = unit>)
#loc1 = loc(#debuginfo.location<src = loc(unknown), scope = unit, metadata = [#debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 0 : ui64}>]>)
#loc2 = loc(#debuginfo.location<src = loc(#loc7), scope = #di_subprogram, fused_with = [#debuginfo.location<src = loc(#loc8), scope = unit>], metadata = [#debuginfo.metadata<name = "sources", data = [{id = 1 : ui64, identifiers = ["add"], name = "torch"}]>, #debuginfo.metadata<name = "op_id", data = {type = "torch", value = 1 : ui64}>, #debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 1 : ui64}>, #debuginfo.metadata<name = "call_stack", data = ["", "block.0"]>]>)
#loc3 = loc(#debuginfo.location<src = loc("/work/model.py":12:0), scope = unit, metadata = [#debuginfo.metadata<name = "sources", data = [{id = 1 : ui64, identifiers = ["add"], name = "torch"}]>, #debuginfo.metadata<name = "op_id", data = {type = "torch", value = 1 : ui64}>, #debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 2 : ui64}>, #debuginfo.metadata<name = "output_maps", data = [{source = {id = 1 : ui64, level = "torch", output = 0 : ui32}, target = {id = 2 : ui64, level = "coreai", output = 0 : ui32}}]>]>)
#loc4 = loc(#debuginfo.location<loc("/work/model.py":13:4), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["relu_1"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
#loc5 = loc(#debuginfo.location<src = loc(unknown), scope = unit, metadata = [#debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 4 : ui64}>]>)
#loc6 = loc(#debuginfo.location<src = loc(unknown), scope = unit, metadata = [#debuginfo.metadata<name = "op_id", data = {type = "coreai", value = 5 : ui64}>]>)
#loc7 = loc("/work/model.py":12:0)
#loc8 = loc("/usr/lib/torch/nn/module.py":1775:0)
