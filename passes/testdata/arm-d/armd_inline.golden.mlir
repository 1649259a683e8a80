// anefix rewrite --passes arm-d
// arm-d: removed 7, added 2
//   replaced _to_copy_2 coreai.cast at /m/models/macos/qwen3_5.py:199
//   replaced _to_copy_5 coreai.cast at /m/models/macos/qwen3_5.py:199
//   replaced view coreai.reshape at /m/models/macos/qwen3_5.py:201
//   replaced add_7 coreai.decomposable.broadcasting_add at /m/models/macos/qwen3_5.py:206
//   replaced _to_copy_6 coreai.cast at /m/models/macos/qwen3_5.py:208
//   replaced _to_copy_7 coreai.cast at /m/models/macos/qwen3_5.py:209
//   note: replaced recurrence region in @main starting at coreai.cast (_to_copy_2 at macos/qwen3_5.py:199) (7 ops): _to_copy_6 tensor<1x2x1x4xf16> ← input v reshaped; _to_copy_7 tensor<1x2x4x4xf16> ← input s itself
//   note: regions found per kind: recurrence=1,sdpa=0,rope=0
module {
  coreai.graph @main(%arg0: tensor<1x1x2x4xf16> {coreai.name = "v"}, %arg1: tensor<1x2x4x4xf16> {coreai.name = "s"}) -> (tensor<1x2x1x4xf16> {coreai.name = "o"}, tensor<1x2x4x4xf16> {coreai.name = "new_s"}) {
    %0 = coreai.constant dense<[1, 2, 1, 4]> : tensor<4xui32> loc("anefix.arm-d"(fused["_to_copy_6"("/m/models/macos/qwen3_5.py":208:0), "/m/models/ios/qwen3_5_ios.py":290:0]))
    %1 = coreai.reshape %arg0, %0 : (tensor<1x1x2x4xf16>, tensor<4xui32>) -> tensor<1x2x1x4xf16> loc("anefix.arm-d"(fused["_to_copy_6"("/m/models/macos/qwen3_5.py":208:0), "/m/models/ios/qwen3_5_ios.py":290:0]))
    coreai.output %1, %arg1 : tensor<1x2x1x4xf16>, tensor<1x2x4x4xf16> loc("output"("/m/models/ios/qwen3_5_ios.py":296:0))
  }
}

