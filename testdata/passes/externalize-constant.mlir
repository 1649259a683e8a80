// A tied embedding/head table (64×32 f16, 4096 bytes: the default
// min-bytes) read by the embedding's gather_nd and, transposed, by the
// head's matmul; anefix's own module (a splat stands in for trained values).
module {
  coreai.graph @main(%ids: tensor<1x1xsi32> {coreai.name = "input_ids"}) -> (tensor<1x64xf16> {coreai.name = "logits"}) {
    %w = coreai.constant dense<1.000000e-02> : tensor<64x32xf16> loc("embedding"("m.py":2:0))
    %e = coreai.gather_nd %w at %ids : (tensor<64x32xf16>, tensor<1x1xsi32>) to tensor<1x32xf16> loc("embedding"("m.py":2:0))
    %p = coreai.constant dense<[1, 0]> : tensor<2xsi32> loc("t"("m.py":3:0))
    %wt = coreai.transpose %w, %p : (tensor<64x32xf16>, tensor<2xsi32>) -> tensor<32x64xf16> loc("t"("m.py":3:0))
    %l = coreai.broadcasting_batch_matmul %e, %wt : (tensor<1x32xf16>, tensor<32x64xf16>) -> tensor<1x64xf16> loc("lm_head"("m.py":4:0))
    coreai.output %l : tensor<1x64xf16> loc("output"("m.py":5:0))
  }
}
