// anefix's own test module (synthetic): an epsilon of 1e-9 in f32, cast to
// f16 (where it rounds to 0: fp16's smallest subnormal is 2^-24) and added.
// check reports fp16.flush-to-zero at the constant.
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<1.000000e-09> : tensor<f32> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 1 : ui64, identifiers = ["eps"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 1 : ui64}>]>)
    %1 = coreai.cast %0 : (tensor<f32>) -> tensor<f16> loc(#debuginfo.location<loc("/work/model.py":4:0), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["eps_to_half"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 2 : ui64}>]>)
    %2 = coreai.decomposable.broadcasting_add %arg0, %1 : (tensor<1x4xf16>, tensor<f16>) -> tensor<1x4xf16> loc(#debuginfo.location<loc("/work/model.py":5:0), unit, [#debuginfo.metadata<"sources", [{id = 3 : ui64, identifiers = ["add_eps"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
    coreai.output %2 : tensor<1x4xf16>
  }
}
