// anefix's own test module (synthetic): x clamped to [-4, 12] (maximum then
// minimum, as coreai-torch lowers torch.clamp) and exponentiated; exp(12) ≈
// 162755 is past fp16's 65504, so check reports fp16.exp-overflow at the exp.
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<-4.000000e+00> : tensor<f16> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 1 : ui64, identifiers = ["lo"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 1 : ui64}>]>)
    %1 = coreai.constant dense<1.200000e+01> : tensor<f16> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["hi"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 2 : ui64}>]>)
    %2 = coreai.decomposable.broadcasting_maximum %arg0, %0 : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 3 : ui64, identifiers = ["clamp_lo"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
    %3 = coreai.decomposable.broadcasting_minimum %2, %1 : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 4 : ui64, identifiers = ["clamp"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 4 : ui64}>]>)
    %4 = coreai.exp %3 : (tensor<1x4xf16>) -> tensor<1x4xf16> loc(#debuginfo.location<loc("/work/model.py":4:0), unit, [#debuginfo.metadata<"sources", [{id = 5 : ui64, identifiers = ["exp"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 5 : ui64}>]>)
    coreai.output %4 : tensor<1x4xf16>
  }
}
