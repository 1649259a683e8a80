// An fp32 island as the community Qwen3.5 builder exports it: q and the
// recurrent state are cast to f32 (_to_copy_*), computed on in f32 with an
// f32 constant and an f32 weight blob, and cast back to f16.
module {
  coreai.graph @main(%q: tensor<1x4xf16> {coreai.name = "q"}, %s: tensor<1x4xf16> {coreai.name = "rec_state"}) -> (tensor<1x4xf16> {coreai.name = "out"}) {
    %g = coreai.constant dense<[0.5, 0.25, 1.0e-9, 3.0]> : tensor<4xf32> loc("_tensor_constant3"("qwen3_5.py":201:0))
    %0 = coreai.cast %q : tensor<1x4xf16> to tensor<1x4xf32> loc("_to_copy_12"("qwen3_5.py":199:0))
    %1 = coreai.cast %s : tensor<1x4xf16> to tensor<1x4xf32> loc("_to_copy_13"("qwen3_5.py":199:0))
    %w = coreai.constant dense_resource<beta_w> : tensor<1x4xf32> loc("_param_constant7"("qwen3_5.py":202:0))
    %2 = coreai.decomposable.broadcasting_mul %1, %g : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32> loc("mul_7"("qwen3_5.py":201:0))
    %3 = coreai.decomposable.broadcasting_mul %0, %w : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> loc("mul_8"("qwen3_5.py":202:0))
    %4 = coreai.decomposable.broadcasting_add %2, %3 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> loc("add_40"("qwen3_5.py":203:0))
    %5 = coreai.cast %4 : tensor<1x4xf32> to tensor<1x4xf16> loc("_to_copy_14"("qwen3_5.py":205:0))
    coreai.output %5 : tensor<1x4xf16> loc("output"("qwen3_5_ios.py":290:0))
  }
}
{-#
  dialect_resources: {
    builtin: {
      beta_w: "0x040000000000803F000000BFCDCCCC3D00000040"
    }
  }
#-}
