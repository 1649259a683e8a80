// anefix rewrite --passes fold-casts
// fold-casts: removed 3, added 0
module {
  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = "x"}, %arg1: tensor<4xf32> {coreai.name = "y"}) -> (tensor<4xf16> {coreai.name = "a"}, tensor<4xf32> {coreai.name = "b"}) {
    %0 = coreai.cast %arg1 : tensor<4xf32> to tensor<4xf16> loc("_to_copy_4"("m.py":13:0))
    %1 = coreai.cast %0 : tensor<4xf16> to tensor<4xf32> loc("_to_copy_5"("m.py":14:0))
    coreai.output %arg0, %1 : tensor<4xf16>, tensor<4xf32> loc("output"("m.py":15:0))
  }
}

