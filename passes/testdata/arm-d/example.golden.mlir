// anefix rewrite --passes arm-d
// arm-d: removed 2, added 0
//   replaced rope_1 coreai.invoke at m.py:3
//   note: replaced rope composite @rope_0: rope_1 tensor<1x4xf16> ← x itself
//   note: deleted composite graph @rope_0 (no callers left)
//   note: regions found per kind: recurrence=0,sdpa=0,rope=1
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "x"}, %arg1: tensor<1x4xf16> {coreai.name = "cos"}) -> (tensor<1x4xf16> {coreai.name = "y"}) {
    %0 = coreai.sigmoid %arg0 : (tensor<1x4xf16>) -> tensor<1x4xf16> loc("sigmoid_1"("m.py":4:0))
    coreai.output %0 : tensor<1x4xf16> loc("output"("m.py":5:0))
  }
}

