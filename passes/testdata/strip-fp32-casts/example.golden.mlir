// anefix rewrite --passes strip-fp32-casts --set strip-fp32-casts.islands=all
// strip-fp32-casts: removed 3, added 0
//   note: 1 fp32 island(s) retyped to f16
//   note: x1 island(s) from coreai.cast at qwen3_5.py:199: 7 value(s) retyped, 3 f16↔f32 cast(s) each; first ops _to_copy_12
//   note: resource "beta_w" replaced by "beta_w_f16"
module {
  coreai.graph @main(%arg0: tensor<1x4xf16> {coreai.name = "q"}, %arg1: tensor<1x4xf16> {coreai.name = "rec_state"}) -> (tensor<1x4xf16> {coreai.name = "out"}) {
    %0 = coreai.constant dense<[5.000000e-01, 2.500000e-01, 0.000000e+00, 3.000000e+00]> : tensor<4xf16> loc("_tensor_constant3"("qwen3_5.py":201:0))
    %1 = coreai.constant dense_resource<beta_w_f16> : tensor<1x4xf16> loc("_param_constant7"("qwen3_5.py":202:0))
    %2 = coreai.decomposable.broadcasting_mul %arg1, %0 : (tensor<1x4xf16>, tensor<4xf16>) -> tensor<1x4xf16> loc("mul_7"("qwen3_5.py":201:0))
    %3 = coreai.decomposable.broadcasting_mul %arg0, %1 : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("mul_8"("qwen3_5.py":202:0))
    %4 = coreai.decomposable.broadcasting_add %2, %3 : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("add_40"("qwen3_5.py":203:0))
    coreai.output %4 : tensor<1x4xf16> loc("output"("qwen3_5_ios.py":290:0))
  }
}


{-#
  dialect_resources: {
    builtin: {
      beta_w_f16: "0x04000000003C00B8662E0040"
    }
  }
#-}
