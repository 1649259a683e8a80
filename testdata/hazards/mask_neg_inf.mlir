// anefix's own test module (synthetic, not from an export): a 2x2 causal
// attention mask written as -inf in f16 (0xFC00) and added to the scores.
// check reports fp16.out-of-range at the mask constant; the verdict is legal.
module {
  coreai.graph @main(%arg0: tensor<2x2xf16> {coreai.name = "scores"}) -> (tensor<2x2xf16> {coreai.name = "masked"}) {
    %0 = coreai.constant dense<"0x000000FC00000000"> : tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 1 : ui64, identifiers = ["causal_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 1 : ui64}>]>)
    %1 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":4:0), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["add_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 2 : ui64}>]>)
    coreai.output %1 : tensor<2x2xf16>
  }
}
