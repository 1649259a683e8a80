// anefix's own test module (synthetic, not from an export): the same sum of
// 4096 squares computed twice, by reduce_sum (sum_sq) and by a matmul
// against ones (dot_sq). Under `verify --numerics ane` reduce_sum
// accumulates in fp16 (above 2048 a running sum has a spacing of 2, so
// squares below 1 are lost) while matmul accumulates wide: `verify
// --localize` against the float32 reference must rank sum_sq first, with a
// growth far above dot_sq's.
module {
  coreai.graph @main(%arg0: tensor<1x4096xf16> {coreai.name = "hidden"}) -> (tensor<1x1xf16> {coreai.name = "logits"}) {
    %0 = coreai.decomposable.broadcasting_mul %arg0, %arg0 : (tensor<1x4096xf16>, tensor<1x4096xf16>) -> tensor<1x4096xf16> loc("square"("/work/model.py":3:0))
    %1 = coreai.constant dense<[1]> : tensor<1xsi32> loc("axis"("/work/model.py":4:0))
    %2 = coreai.reduce_sum %0, %1 : (tensor<1x4096xf16>, tensor<1xsi32>) -> tensor<1x1xf16> loc("sum_sq"("/work/model.py":5:0))
    %3 = coreai.constant dense<1.000000e+00> : tensor<4096x1xf16> loc("ones"("/work/model.py":6:0))
    %4 = "coreai.matmul"(%0, %3) : (tensor<1x4096xf16>, tensor<4096x1xf16>) -> tensor<1x1xf16> loc("dot_sq"("/work/model.py":7:0))
    %5 = coreai.decomposable.broadcasting_add %2, %4 : (tensor<1x1xf16>, tensor<1x1xf16>) -> tensor<1x1xf16> loc("both"("/work/model.py":8:0))
    coreai.output %5 : tensor<1x1xf16>
  }
}
