// A dead chain (a constant with its weight blob, a mul, an exp) next to
// live code.
module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %w = coreai.constant dense_resource<w_dead> : tensor<4xf16> loc("_param_constant1"("m.py":3:0))
    %0 = coreai.decomposable.broadcasting_mul %x, %w : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16> loc("mul_1"("m.py":4:0))
    %1 = coreai.exp %0 : tensor<4xf16> -> tensor<4xf16> loc("exp_1"("m.py":5:0))
    %2 = coreai.sigmoid %x : tensor<4xf16> -> tensor<4xf16> loc("sigmoid_1"("m.py":6:0))
    coreai.output %2 : tensor<4xf16> loc("output"("m.py":7:0))
  }
}
{-#
  dialect_resources: {
    builtin: {
      w_dead: "0x02000000003C004000420044"
    }
  }
#-}
