// anefix's own adversarial module (synthetic): 40 maximums, each of the previous
// one with itself, then exp. The interval proof must cost time in proportion to
// the graph (it took 2^32 steps before bounds were remembered); nothing is
// proven (no constant bounds x), so no hazard is reported.
module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %m0 = coreai.decomposable.broadcasting_maximum %x, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m1 = coreai.decomposable.broadcasting_maximum %m0, %m0 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m2 = coreai.decomposable.broadcasting_maximum %m1, %m1 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m3 = coreai.decomposable.broadcasting_maximum %m2, %m2 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m4 = coreai.decomposable.broadcasting_maximum %m3, %m3 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m5 = coreai.decomposable.broadcasting_maximum %m4, %m4 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m6 = coreai.decomposable.broadcasting_maximum %m5, %m5 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m7 = coreai.decomposable.broadcasting_maximum %m6, %m6 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m8 = coreai.decomposable.broadcasting_maximum %m7, %m7 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m9 = coreai.decomposable.broadcasting_maximum %m8, %m8 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m10 = coreai.decomposable.broadcasting_maximum %m9, %m9 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m11 = coreai.decomposable.broadcasting_maximum %m10, %m10 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m12 = coreai.decomposable.broadcasting_maximum %m11, %m11 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m13 = coreai.decomposable.broadcasting_maximum %m12, %m12 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m14 = coreai.decomposable.broadcasting_maximum %m13, %m13 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m15 = coreai.decomposable.broadcasting_maximum %m14, %m14 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m16 = coreai.decomposable.broadcasting_maximum %m15, %m15 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m17 = coreai.decomposable.broadcasting_maximum %m16, %m16 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m18 = coreai.decomposable.broadcasting_maximum %m17, %m17 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m19 = coreai.decomposable.broadcasting_maximum %m18, %m18 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m20 = coreai.decomposable.broadcasting_maximum %m19, %m19 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m21 = coreai.decomposable.broadcasting_maximum %m20, %m20 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m22 = coreai.decomposable.broadcasting_maximum %m21, %m21 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m23 = coreai.decomposable.broadcasting_maximum %m22, %m22 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m24 = coreai.decomposable.broadcasting_maximum %m23, %m23 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m25 = coreai.decomposable.broadcasting_maximum %m24, %m24 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m26 = coreai.decomposable.broadcasting_maximum %m25, %m25 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m27 = coreai.decomposable.broadcasting_maximum %m26, %m26 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m28 = coreai.decomposable.broadcasting_maximum %m27, %m27 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m29 = coreai.decomposable.broadcasting_maximum %m28, %m28 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m30 = coreai.decomposable.broadcasting_maximum %m29, %m29 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m31 = coreai.decomposable.broadcasting_maximum %m30, %m30 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m32 = coreai.decomposable.broadcasting_maximum %m31, %m31 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m33 = coreai.decomposable.broadcasting_maximum %m32, %m32 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m34 = coreai.decomposable.broadcasting_maximum %m33, %m33 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m35 = coreai.decomposable.broadcasting_maximum %m34, %m34 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m36 = coreai.decomposable.broadcasting_maximum %m35, %m35 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m37 = coreai.decomposable.broadcasting_maximum %m36, %m36 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m38 = coreai.decomposable.broadcasting_maximum %m37, %m37 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %m39 = coreai.decomposable.broadcasting_maximum %m38, %m38 : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %y = coreai.exp %m39 : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %y : tensor<4xf16>
  }
}
