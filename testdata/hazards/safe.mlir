// anefix's own test module (synthetic): the same shapes with safe values: a
// finite f16 mask of -1e4, an epsilon of 1e-3, and exp of x clamped to
// [-4, 10] (exp(10) ≈ 22026 < 65504) and of an unclamped input (no bound can
// be proven, so nothing is reported). check reports no fp16 hazard.
module {
  coreai.graph @main(%arg0: tensor<2x2xf16> {coreai.name = "scores"}) -> (tensor<2x2xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense<[[0.000000e+00, -1.000000e+04], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 1 : ui64, identifiers = ["causal_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 1 : ui64}>]>)
    %1 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":4:0), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["add_mask"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 2 : ui64}>]>)
    %2 = coreai.constant dense<1.000000e-03> : tensor<f16> loc(#debuginfo.location<loc("/work/model.py":5:0), unit, [#debuginfo.metadata<"sources", [{id = 3 : ui64, identifiers = ["eps"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
    %3 = coreai.decomposable.broadcasting_add %1, %2 : (tensor<2x2xf16>, tensor<f16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":5:0), unit, [#debuginfo.metadata<"sources", [{id = 4 : ui64, identifiers = ["add_eps"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 4 : ui64}>]>)
    %4 = coreai.constant dense<-4.000000e+00> : tensor<f16> loc(#debuginfo.location<loc("/work/model.py":6:0), unit, [#debuginfo.metadata<"sources", [{id = 5 : ui64, identifiers = ["lo"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 5 : ui64}>]>)
    %5 = coreai.constant dense<1.000000e+01> : tensor<f16> loc(#debuginfo.location<loc("/work/model.py":6:0), unit, [#debuginfo.metadata<"sources", [{id = 6 : ui64, identifiers = ["hi"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 6 : ui64}>]>)
    %6 = coreai.decomposable.broadcasting_maximum %3, %4 : (tensor<2x2xf16>, tensor<f16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":6:0), unit, [#debuginfo.metadata<"sources", [{id = 7 : ui64, identifiers = ["clamp_lo"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 7 : ui64}>]>)
    %7 = coreai.decomposable.broadcasting_minimum %6, %5 : (tensor<2x2xf16>, tensor<f16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":6:0), unit, [#debuginfo.metadata<"sources", [{id = 8 : ui64, identifiers = ["clamp"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 8 : ui64}>]>)
    %8 = coreai.exp %7 : (tensor<2x2xf16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":7:0), unit, [#debuginfo.metadata<"sources", [{id = 9 : ui64, identifiers = ["exp"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 9 : ui64}>]>)
    %9 = coreai.exp %arg0 : (tensor<2x2xf16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":8:0), unit, [#debuginfo.metadata<"sources", [{id = 10 : ui64, identifiers = ["exp_1"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 10 : ui64}>]>)
    %10 = coreai.decomposable.broadcasting_add %8, %9 : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16> loc(#debuginfo.location<loc("/work/model.py":8:0), unit, [#debuginfo.metadata<"sources", [{id = 11 : ui64, identifiers = ["add"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 11 : ui64}>]>)
    coreai.output %10 : tensor<2x2xf16>
  }
}
