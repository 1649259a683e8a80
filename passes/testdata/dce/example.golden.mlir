// anefix rewrite --passes dce
// dce: removed 3, added 0
//   note: removed resource "w_dead" (8 bytes, unreferenced)
module {
  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.sigmoid %arg0 : (tensor<4xf16>) -> tensor<4xf16> loc("sigmoid_1"("m.py":6:0))
    coreai.output %0 : tensor<4xf16> loc("output"("m.py":7:0))
  }
}

