// Per-layer conv states with two spellings of the new value; key_cache is
// left alone (include-kv=false).
module {
  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = "x"}, %c0: tensor<1x4xf16> {coreai.name = "conv_state_0"}, %c1: tensor<1x4xf16> {coreai.name = "convState1"}, %k: tensor<1x4xf16> {coreai.name = "key_cache"}) -> (tensor<1x4xf16> {coreai.name = "y"}, tensor<1x4xf16> {coreai.name = "new_conv_state_0"}, tensor<1x4xf16> {coreai.name = "convState1Out"}, tensor<1x4xf16> {coreai.name = "new_k_cache"}) {
    %0 = coreai.decomposable.broadcasting_add %x, %c0 : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("add"("m.py":3:0))
    %1 = coreai.decomposable.broadcasting_add %0, %c1 : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("add_1"("m.py":4:0))
    coreai.output %1, %x, %0, %k : tensor<1x4xf16>, tensor<1x4xf16>, tensor<1x4xf16>, tensor<1x4xf16> loc("output"("m.py":5:0))
  }
}
