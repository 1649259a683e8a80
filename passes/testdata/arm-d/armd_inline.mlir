// An inline recurrence step (frames qwen3_5.py:199-209 called from
// qwen3_5_ios.py:290): o becomes a reshape of v, the new state the old one.
module {
  coreai.graph @main(%v: tensor<1x1x2x4xf16> {coreai.name = "v"}, %s: tensor<1x2x4x4xf16> {coreai.name = "s"}) -> (tensor<1x2x1x4xf16> {coreai.name = "o"}, tensor<1x2x4x4xf16> {coreai.name = "new_s"}) {
    %0 = coreai.cast %v : tensor<1x1x2x4xf16> to tensor<1x1x2x4xf32> loc(fused["_to_copy_2"("/m/models/macos/qwen3_5.py":199:0), "/m/models/ios/qwen3_5_ios.py":290:0])
    %1 = coreai.cast %s : tensor<1x2x4x4xf16> to tensor<1x2x4x4xf32> loc(fused["_to_copy_5"("/m/models/macos/qwen3_5.py":199:0), "/m/models/ios/qwen3_5_ios.py":290:0])
    %sh = coreai.constant dense<[1, 2, 1, 4]> : tensor<4xui32> loc(fused["view"("/m/models/macos/qwen3_5.py":201:0), "/m/models/ios/qwen3_5_ios.py":290:0])
    %2 = coreai.reshape %0, %sh : (tensor<1x1x2x4xf32>, tensor<4xui32>) -> tensor<1x2x1x4xf32> loc(fused["view"("/m/models/macos/qwen3_5.py":201:0), "/m/models/ios/qwen3_5_ios.py":290:0])
    %3 = coreai.decomposable.broadcasting_add %1, %2 : (tensor<1x2x4x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x4x4xf32> loc(fused["add_7"("/m/models/macos/qwen3_5.py":206:0), "/m/models/ios/qwen3_5_ios.py":290:0])
    %4 = coreai.cast %2 : tensor<1x2x1x4xf32> to tensor<1x2x1x4xf16> loc(fused["_to_copy_6"("/m/models/macos/qwen3_5.py":208:0), "/m/models/ios/qwen3_5_ios.py":290:0])
    %5 = coreai.cast %3 : tensor<1x2x4x4xf32> to tensor<1x2x4x4xf16> loc(fused["_to_copy_7"("/m/models/macos/qwen3_5.py":209:0), "/m/models/ios/qwen3_5_ios.py":290:0])
    coreai.output %4, %5 : tensor<1x2x1x4xf16>, tensor<1x2x4x4xf16> loc("output"("/m/models/ios/qwen3_5_ios.py":296:0))
  }
}
