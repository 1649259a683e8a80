// anefix rewrite --passes externalize-constant
// externalize-constant: removed 1, added 0
//   @main input const_embedding:  -> tensor<64x32xf16> (new input carrying constant embedding (was an in-graph constant); feed it the constant's values)
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "input_ids"}, %arg1: tensor<64x32xf16> {coreai.name = "const_embedding"} loc("embedding"("m.py":2:0))) -> (tensor<1x64xf16> {coreai.name = "logits"}) {
    %0 = coreai.gather_nd %arg1 at %arg0 : (tensor<64x32xf16>, tensor<1x1xsi32>) to tensor<1x32xf16> loc("embedding"("m.py":2:0))
    %1 = coreai.constant dense<[1, 0]> : tensor<2xsi32> loc("t"("m.py":3:0))
    %2 = coreai.transpose %arg1, %1 : (tensor<64x32xf16>, tensor<2xsi32>) -> tensor<32x64xf16> loc("t"("m.py":3:0))
    %3 = coreai.broadcasting_batch_matmul %0, %2 : (tensor<1x32xf16>, tensor<32x64xf16>) -> tensor<1x64xf16> loc("lm_head"("m.py":4:0))
    coreai.output %3 : tensor<1x64xf16> loc("output"("m.py":5:0))
  }
}

