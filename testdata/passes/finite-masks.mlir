// anefix's own test module (synthetic): a 2x2 mask written as -1e9 in f32,
// cast to f16 (where it is -inf) and added to the scores before a softmax;
// finite-masks writes -40000 in its place.
module {
  coreai.graph @main(%arg0: tensor<2x2xf16> {coreai.name = "scores"}) -> (tensor<2x2xf16> {coreai.name = "probs"}) {
    %0 = coreai.constant dense<[[0.000000e+00, -1.000000e+09], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
    %1 = coreai.cast %0 : (tensor<2x2xf32>) -> tensor<2x2xf16>
    %2 = coreai.decomposable.broadcasting_add %arg0, %1 : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
    %3 = coreai.constant dense<-1> : tensor<si32>
    %4 = coreai.softmax %2, %3 : (tensor<2x2xf16>, tensor<si32>) -> tensor<2x2xf16>
    coreai.output %4 : tensor<2x2xf16>
  }
}
