// Three cast chains: an exact round trip (f16→f32→f16), an identity cast,
// and a rounding round trip (f32→f16→f32) that must stay.
module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}, %y: tensor<4xf32> {coreai.name = "y"}) -> (tensor<4xf16> {coreai.name = "a"}, tensor<4xf32> {coreai.name = "b"}) {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy_1"("m.py":10:0))
    %1 = coreai.cast %0 : tensor<4xf32> to tensor<4xf16> loc("_to_copy_2"("m.py":11:0))
    %2 = coreai.cast %1 : tensor<4xf16> to tensor<4xf16> loc("_to_copy_3"("m.py":12:0))
    %3 = coreai.cast %y : tensor<4xf32> to tensor<4xf16> loc("_to_copy_4"("m.py":13:0))
    %4 = coreai.cast %3 : tensor<4xf16> to tensor<4xf32> loc("_to_copy_5"("m.py":14:0))
    coreai.output %2, %4 : tensor<4xf16>, tensor<4xf32> loc("output"("m.py":15:0))
  }
}
