// anefix's own test module (synthetic, not from an export): f16 reductions
// of the shapes a gated-delta step and its l2 norm have: a sum over the last
// axis, a sum over dim -2 (moved last by a transpose), a mean over 8
// elements (1/8 folded into the ones vector), a mean over 3 (divided after: the dim -2 mean)
// and an f32 sum (left alone). The output "logits" is their concatenation.
module {
  coreai.graph @main(%arg0: tensor<1x2x3x8xf16> {coreai.name = "x"}, %arg1: tensor<1x2xf32> {coreai.name = "y"}) -> (tensor<1x44xf16> {coreai.name = "logits"}, tensor<1x1xf32> {coreai.name = "ysum"}) {
    %a1 = coreai.constant dense<-1> : tensor<1xsi32>
    %0 = coreai.reduce_sum %arg0, %a1 : (tensor<1x2x3x8xf16>, tensor<1xsi32>) -> tensor<1x2x3x1xf16>
    %a2 = coreai.constant dense<-2> : tensor<1xsi32>
    %1 = coreai.reduce_sum %arg0, %a2 : (tensor<1x2x3x8xf16>, tensor<1xsi32>) -> tensor<1x2x1x8xf16>
    %2 = coreai.reduce_mean %arg0, %a1 : (tensor<1x2x3x8xf16>, tensor<1xsi32>) -> tensor<1x2x3x1xf16>
    %3 = coreai.reduce_mean %arg0, %a2 : (tensor<1x2x3x8xf16>, tensor<1xsi32>) -> tensor<1x2x1x8xf16>
    %a3 = coreai.constant dense<-1> : tensor<1xsi32>
    %4 = coreai.reduce_sum %arg1, %a3 : (tensor<1x2xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %s0 = coreai.constant dense<[1, 6]> : tensor<2xui32>
    %s1 = coreai.constant dense<[1, 16]> : tensor<2xui32>
    %r0 = coreai.reshape %0, %s0 : (tensor<1x2x3x1xf16>, tensor<2xui32>) -> tensor<1x6xf16>
    %r1 = coreai.reshape %1, %s1 : (tensor<1x2x1x8xf16>, tensor<2xui32>) -> tensor<1x16xf16>
    %r2 = coreai.reshape %2, %s0 : (tensor<1x2x3x1xf16>, tensor<2xui32>) -> tensor<1x6xf16>
    %r3 = coreai.reshape %3, %s1 : (tensor<1x2x1x8xf16>, tensor<2xui32>) -> tensor<1x16xf16>
    %ax = coreai.constant dense<1> : tensor<si32>
    %c = coreai.concat %ax, %r0, %r2, %r1, %r3 : (tensor<si32>, tensor<1x6xf16>, tensor<1x6xf16>, tensor<1x16xf16>, tensor<1x16xf16>) -> tensor<1x44xf16>
    coreai.output %c, %4 : tensor<1x44xf16>, tensor<1x1xf32>
  }
}
