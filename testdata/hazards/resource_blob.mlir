// anefix's own test module (synthetic): constants as dense_resource blobs.
// mask_f32 holds [0, -1e9, 1e-9, 1] in f32 (one value past 65504, one that
// rounds to 0 in fp16); absent_weights names a blob the file does not hold,
// which the hazard rules skip with a note.
module {
  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense_resource<mask_f32> : tensor<4xf32> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 1 : ui64, identifiers = ["mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 1 : ui64}>]>)
    %1 = coreai.cast %0 : (tensor<4xf32>) -> tensor<4xf16> loc(#debuginfo.location<loc("/work/model.py":4:0), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["mask_to_half"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 2 : ui64}>]>)
    %2 = coreai.constant dense_resource<absent_weights> : tensor<4xf16> loc(#debuginfo.location<loc("/work/model.py":5:0), unit, [#debuginfo.metadata<"sources", [{id = 3 : ui64, identifiers = ["weight"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
    %3 = coreai.decomposable.broadcasting_add %arg0, %1 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16> loc(#debuginfo.location<loc("/work/model.py":6:0), unit, [#debuginfo.metadata<"sources", [{id = 4 : ui64, identifiers = ["add_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 4 : ui64}>]>)
    %4 = coreai.decomposable.broadcasting_mul %3, %2 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16> loc(#debuginfo.location<loc("/work/model.py":7:0), unit, [#debuginfo.metadata<"sources", [{id = 5 : ui64, identifiers = ["mul"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 5 : ui64}>]>)
    coreai.output %4 : tensor<4xf16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      mask_f32: "0x0400000000000000286B6ECE5F7089300000803F"
    }
  }
#-}
