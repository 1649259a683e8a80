// The stream also leaves the graph unnormalized (a second output reads x2):
// scaling it would change that output, so the pass leaves the stream alone
// and says which op reads it.
module {
  coreai.graph @main(%ids: tensor<1x1xsi32> {coreai.name = "input_ids"}) -> (tensor<1x1x4xf32> {coreai.name = "logits"}, tensor<1x1x4xf16> {coreai.name = "hidden"}) {
    %tab = coreai.constant dense<[[1.0, 2.0, -3.0, 400.0], [0.5, -0.25, 0.125, 300.0], [1.0, 1.0, 1.0, 1.0], [2.0, 0.0, -2.0, 500.0], [0.0, 0.0, 0.0, 0.0], [-1.0, 1.0, -1.0, 1.0], [3.0, 3.0, 3.0, 3.0], [0.1, 0.2, 0.3, 0.4]]> : tensor<8x4xf16>
    %a2 = coreai.constant dense<2> : tensor<1xsi32>
    %idx = coreai.expand_dims %ids, %a2 : (tensor<1x1xsi32>, tensor<1xsi32>) to tensor<1x1x1xsi32>
    %x0 = coreai.gather_nd %tab at %idx : (tensor<8x4xf16>, tensor<1x1x1xsi32>) to tensor<1x1x4xf16>
    %ax = coreai.constant dense<2> : tensor<1xsi32>
    %eps = coreai.constant dense<9.99999997E-7> : tensor<f32>
    %c0 = coreai.cast %x0 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %q0 = coreai.decomposable.broadcasting_mul %c0, %c0 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %m0 = coreai.reduce_mean %q0, %ax : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %e0 = coreai.decomposable.broadcasting_add %m0, %eps : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %r0 = coreai.rsqrt %e0 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %n0 = coreai.decomposable.broadcasting_mul %c0, %r0 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    %h0 = coreai.cast %n0 : tensor<1x1x4xf32> to tensor<1x1x4xf16>
    %w0 = coreai.constant dense<[0.5, -1.0, 2.0, 100.0]> : tensor<4xf16>
    %b0 = coreai.decomposable.broadcasting_mul %h0, %w0 : (tensor<1x1x4xf16>, tensor<4xf16>) -> tensor<1x1x4xf16>
    %x1 = coreai.decomposable.broadcasting_add %x0, %b0 : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %c1 = coreai.cast %x1 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %q1 = coreai.decomposable.broadcasting_mul %c1, %c1 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %m1 = coreai.reduce_mean %q1, %ax : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %e1 = coreai.decomposable.broadcasting_add %m1, %eps : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %r1 = coreai.rsqrt %e1 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %n1 = coreai.decomposable.broadcasting_mul %c1, %r1 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    %h1 = coreai.cast %n1 : tensor<1x1x4xf32> to tensor<1x1x4xf16>
    %b1 = coreai.decomposable.broadcasting_mul %h1, %w0 : (tensor<1x1x4xf16>, tensor<4xf16>) -> tensor<1x1x4xf16>
    %x2 = coreai.decomposable.broadcasting_add %x1, %b1 : (tensor<1x1x4xf16>, tensor<1x1x4xf16>) -> tensor<1x1x4xf16>
    %c2 = coreai.cast %x2 : tensor<1x1x4xf16> to tensor<1x1x4xf32>
    %q2 = coreai.decomposable.broadcasting_mul %c2, %c2 : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %m2 = coreai.reduce_mean %q2, %ax : (tensor<1x1x4xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32>
    %e2 = coreai.decomposable.broadcasting_add %m2, %eps : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32>
    %r2 = coreai.rsqrt %e2 : tensor<1x1x1xf32> -> tensor<1x1x1xf32>
    %n2 = coreai.decomposable.broadcasting_mul %c2, %r2 : (tensor<1x1x4xf32>, tensor<1x1x1xf32>) -> tensor<1x1x4xf32>
    coreai.output %n2, %x2 : tensor<1x1x4xf32>, tensor<1x1x4xf16>
  }
}
