// anefix's own test module (synthetic): a 64x2 table of linear si4 data
// (packed two per byte, as Core AI stores sub-byte blobs) with one scale,
// dequantized by blockwise_shift_scale and read by gather_nd: check's
// linear-int4 blocker. Each group of 32 rows holds at most 16 values, so
// legalize-weights' palettes reproduce the weight exactly.
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "ids"}) -> (tensor<1x2xf16> {coreai.name = "x"}) {
    %0 = coreai.constant dense_resource<embed.q> : tensor<64x2xsi4>
    %1 = coreai.constant dense<1.250000e-02> : tensor<1x1xf16>
    %2 = coreai.constant dense<0> : tensor<1x1xsi4>
    %3 = coreai.constant dense<0.000000e+00> : tensor<1x1xf16>
    %4 = coreai.blockwise_shift_scale %0, %1, %2, %3 : (tensor<64x2xsi4>, tensor<1x1xf16>, tensor<1x1xsi4>, tensor<1x1xf16>) -> tensor<64x2xf16> loc("dequantize")
    %5 = coreai.gather_nd %4 at %arg0 : (tensor<64x2xf16>, tensor<1x1xsi32>) to tensor<1x2xf16>
    coreai.output %5 : tensor<1x2xf16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      embed.q: "0x010000004FA50A7C3177D6AD9182133FAD73CEB03C88F7240CB14A0C1DE8798BCE32CD423CE75D372D081A6852BE6314F90F05F17F489DC2D274062D7A5EB5C517068004"
    }
  }
#-}
