// anefix's own test module (synthetic): a 2x2 causal mask written as -1e9 in
// f32, cast to f16 (where -1e9 is -inf) and added to the scores. check
// reports fp16.out-of-range at the mask constant.
module {
  coreai.graph @main(%arg0: tensor<2x2xf16> {coreai.name = "scores"}) -> (tensor<2x2xf16> {coreai.name = "masked"}) {
    %0 = coreai.constant dense<[[0.000000e+00, -1.000000e+09], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf32> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 1 : ui64, identifiers = ["causal_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 1 : ui64}>]>)
    %1 = coreai.cast %0 : (tensor<2x2xf32>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":4:0), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["mask_to_half"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 2 : ui64}>]>)
    %2 = coreai.decomposable.broadcasting_add %arg0, %1 : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":5:0), unit, [#debuginfo.metadata<"sources", [{id = 3 : ui64, identifiers = ["add_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
    coreai.output %2 : tensor<2x2xf16>
  }
}
