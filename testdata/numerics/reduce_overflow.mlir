// anefix's own test module (synthetic, not from an export): a reduce_sum
// whose running sum passes the fp16 maximum although its total is 16.
// 30000 + 30000 + 30000 = 90000 fits an f32 accumulator (IEEE numerics:
// the sum is 16), but under `verify --numerics ane` reduce_sum accumulates
// in fp16 (rule narrow-reduce, graph/interp/numerics.go), the running sum
// becomes inf at the third term and stays inf. `verify --ranges` must flag
// row_sum (op_id 3) in the candidate only.
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "hidden"}) -> (tensor<1x4xf16> {coreai.name = "logits"}) {
    %0 = coreai.constant dense<[[3.000000e+04, 3.000000e+04, 3.000000e+04, -3.000000e+04, -3.000000e+04, -2.998400e+04]]> : tensor<1x6xf16> loc(#debuginfo.location<loc("/work/model.py":3:0), unit, [#debuginfo.metadata<"sources", [{id = 1 : ui64, identifiers = ["terms"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 1 : ui64}>]>)
    %1 = coreai.constant dense<[1]> : tensor<1xsi32> loc(#debuginfo.location<loc("/work/model.py":4:0), unit, [#debuginfo.metadata<"sources", [{id = 2 : ui64, identifiers = ["axis"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 2 : ui64}>]>)
    %2 = coreai.reduce_sum %0, %1 : (tensor<1x6xf16>, tensor<1xsi32>) -> tensor<1x1xf16> loc(#debuginfo.location<loc("/work/model.py":5:0), unit, [#debuginfo.metadata<"sources", [{id = 3 : ui64, identifiers = ["row_sum"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 3 : ui64}>]>)
    %3 = coreai.decomposable.broadcasting_add %arg0, %2 : (tensor<1x4xf16>, tensor<1x1xf16>) -> tensor<1x4xf16> loc(#debuginfo.location<loc("/work/model.py":6:0), unit, [#debuginfo.metadata<"sources", [{id = 4 : ui64, identifiers = ["add"], name = "torch"}]>, #debuginfo.metadata<"op_id", {type = "coreai", value = 4 : ui64}>]>)
    coreai.output %3 : tensor<1x4xf16>
  }
}
