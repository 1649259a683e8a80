// anefix's own test module (synthetic, not from an export): a 4x4 causal
// attention mask written as -inf in f16 (0xFC00 above the diagonal), added to
// the scores before a softmax over the last axis. check reports
// fp16.out-of-range at the mask constant (op_id 1); finite-masks replaces the
// -inf by a finite value and verify finds every output unchanged.
module {
  coreai.graph @main(%arg0: tensor<4x4xf16> {coreai.name = "scores"}) -> (tensor<4x4xf16> {coreai.name = "probs"}) {
    %0 = coreai.constant dense<"0x000000FC00FC00FC0000000000FC00FC00000000000000FC0000000000000000"> : tensor<4x4xf16> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 1 : ui64, identifiers = ["causal_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 1 : ui64}>]>)
    %1 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<4x4xf16>, tensor<4x4xf16>) -> tensor<4x4xf16> loc(#debuginfo.location<loc("/work/model.py":4:0), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["add_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 2 : ui64}>]>)
    %2 = coreai.constant dense<-1> : tensor<si32> loc(#debuginfo.location<loc("/work/model.py":5:0), unit, [#debuginfo.metadata<"sources", [{id = 3 : ui64, identifiers = ["softmax_axis"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
    %3 = coreai.softmax %1, %2 : (tensor<4x4xf16>, tensor<si32>) -> tensor<4x4xf16> loc(#debuginfo.location<loc("/work/model.py":5:0), unit, [#debuginfo.metadata<"sources", [{id = 4 : ui64, identifiers = ["softmax"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 4 : ui64}>]>)
    coreai.output %3 : tensor<4x4xf16>
  }
}
