// conv_state carried as a plain input/output pair (seed arm A).
module {
  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = "x"}, %c: tensor<1x4xf16> {coreai.name = "conv_state"}) -> (tensor<1x4xf16> {coreai.name = "y"}, tensor<1x4xf16> {coreai.name = "new_conv_state"}) {
    %0 = coreai.decomposable.broadcasting_add %x, %c : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("add_1"("m.py":3:0))
    coreai.output %0, %x : tensor<1x4xf16>, tensor<1x4xf16> loc("output"("m.py":4:0))
  }
}
