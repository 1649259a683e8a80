// A Qwen3.5-style gated-delta (linear attention) layer in coreai's printed
// form, hand-written for anefix's tests: hidden 8, 2 heads of k/v dim 2,
// conv kernel 4. The recurrence runs in f32 between coreai.cast ops
// (_to_copy_10.._17 at models/macos/qwen3_5.py:199, called from
// qwen3_5_ios.py:290), inputs are expand_dims'ed, the residual add is
// add_40 at qwen3_5_ios.py:330, conv_state and rec_state are states.
#py_cast = loc("/src/coreai_models/models/macos/qwen3_5.py":199:0)
#py_call = loc("/src/qwen3_5_ios.py":290:0)
#py_res = loc("/src/qwen3_5_ios.py":330:0)
#py_in = loc("/src/qwen3_5_ios.py":250:0)
#py_mix = loc("/src/coreai_models/models/macos/qwen3_5.py":160:0)
module {
  coreai.graph @main(%arg0: tensor<1x8xf16> {coreai.name = "hidden"} loc("hidden"),
                     %arg1: tensor<1x12x3xf16> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"} loc("conv_state"),
                     %arg2: tensor<1x2x2x2xf16> {MutableBuffers.buffer_mutation = "rec_state", coreai.name = "rec_state"} loc("rec_state"))
      -> (tensor<1x8xf16> {coreai.name = "out"}, tensor<1x12x3xf16> {coreai.name = "conv_state"}, tensor<1x2x2x2xf16> {coreai.name = "rec_state"}) {
    %c1 = coreai.constant dense<1> : tensor<1xsi32> loc("_tensor_constant0"(#py_in))
    %x = coreai.expand_dims %arg0, %c1 : (tensor<1x8xf16>, tensor<1xsi32>) to tensor<1x1x8xf16> loc("unsqueeze_3"(#py_in))
    %w_norm = coreai.constant dense_resource<layer0_input_norm> : tensor<8xf16> loc("p_layers_0_input_norm_weight")
    %xn = coreai.invoke @rms_norm_0(%x, %w_norm) : (tensor<1x1x8xf16>, tensor<8xf16>) -> tensor<1x1x8xf16> loc("rms_norm_default"(#py_mix))
    %w_qkv = coreai.constant dense_resource<layer0_in_proj_qkv> : tensor<8x12xf16> loc("p_layers_0_in_proj_qkv_weight")
    %qkv = coreai.decomposable.broadcasting_batch_matmul %xn, %w_qkv : (tensor<1x1x8xf16>, tensor<8x12xf16>) -> tensor<1x1x12xf16> loc("matmul_0"(#py_mix))
    %perm = coreai.constant dense<[0, 2, 1]> : tensor<3xui32> loc("_tensor_constant1")
    %qkv_t = coreai.transpose %qkv, %perm : (tensor<1x1x12xf16>, tensor<3xui32>) -> tensor<1x12x1xf16> loc("transpose_0"(#py_mix))
    %axis2 = coreai.constant dense<2> : tensor<si32> loc("_tensor_constant2")
    %win = coreai.concat %axis2, %arg1, %qkv_t : (tensor<si32>, tensor<1x12x3xf16>, tensor<1x12x1xf16>) -> tensor<1x12x4xf16> loc("cat_0"(#py_mix))
    %begin = coreai.constant dense<[0, 0, 1]> : tensor<3xsi32> loc("_tensor_constant3")
    %end = coreai.constant dense<[1, 12, 4]> : tensor<3xsi32> loc("_tensor_constant4")
    %stride = coreai.constant dense<1> : tensor<3xsi32> loc("_tensor_constant5")
    %conv_new = coreai.slice %win, %begin, %end, %stride : (tensor<1x12x4xf16>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x12x3xf16> loc("slice_4"(#py_mix))
    %w_conv = coreai.constant dense_resource<layer0_conv1d> : tensor<1x12x4xf16> loc("p_layers_0_conv1d_weight")
    %prod = coreai.decomposable.broadcasting_mul %win, %w_conv : (tensor<1x12x4xf16>, tensor<1x12x4xf16>) -> tensor<1x12x4xf16> loc("mul_10"(#py_mix))
    %ax2 = coreai.constant dense<2> : tensor<1xsi32> loc("_tensor_constant6")
    %conv = coreai.reduce_sum %prod, %ax2 : (tensor<1x12x4xf16>, tensor<1xsi32>) -> tensor<1x12x1xf16> loc("sum_0"(#py_mix))
    %act = coreai.silu %conv : tensor<1x12x1xf16> -> tensor<1x12x1xf16> loc("silu_0"(#py_mix))
    %shape_heads = coreai.constant dense<[1, 6, 2]> : tensor<3xui32> loc("_tensor_constant7")
    %heads = coreai.reshape %act, %shape_heads : (tensor<1x12x1xf16>, tensor<3xui32>) -> tensor<1x6x2xf16> loc("view_0"(#py_mix))
    %sizes = coreai.constant dense<2> : tensor<3xui32> loc("_tensor_constant8")
    %axis1 = coreai.constant dense<1> : tensor<si32> loc("_tensor_constant9")
    %qkv3:3 = coreai.split %heads, %sizes, %axis1 : (tensor<1x6x2xf16>, tensor<3xui32>, tensor<si32>) -> (tensor<1x2x2xf16>, tensor<1x2x2xf16>, tensor<1x2x2xf16>) loc("split_with_sizes_0"(#py_mix))
    %w_b = coreai.constant dense_resource<layer0_in_proj_b> : tensor<8x2xf16> loc("p_layers_0_in_proj_b_weight")
    %b_lin = coreai.decomposable.broadcasting_batch_matmul %xn, %w_b : (tensor<1x1x8xf16>, tensor<8x2xf16>) -> tensor<1x1x2xf16> loc("matmul_1"(#py_mix))
    %beta16 = coreai.sigmoid %b_lin : tensor<1x1x2xf16> -> tensor<1x1x2xf16> loc("sigmoid_0"(#py_mix))
    %w_a = coreai.constant dense_resource<layer0_in_proj_a> : tensor<8x2xf16> loc("p_layers_0_in_proj_a_weight")
    %a_lin = coreai.decomposable.broadcasting_batch_matmul %xn, %w_a : (tensor<1x1x8xf16>, tensor<8x2xf16>) -> tensor<1x1x2xf16> loc("matmul_2"(#py_mix))
    %a_exp = coreai.exp %a_lin : tensor<1x1x2xf16> -> tensor<1x1x2xf16> loc("exp_0"(#py_mix))
    %A = coreai.constant dense<[-5.000000e-01, -1.000000e+00]> : tensor<2xf16> loc("p_layers_0_A_log")
    %g16 = coreai.decomposable.broadcasting_mul %a_exp, %A : (tensor<1x1x2xf16>, tensor<2xf16>) -> tensor<1x1x2xf16> loc("mul_11"(#py_mix))
    %shape_12 = coreai.constant dense<[1, 2]> : tensor<2xui32> loc("_tensor_constant10")
    %beta_r = coreai.reshape %beta16, %shape_12 : (tensor<1x1x2xf16>, tensor<2xui32>) -> tensor<1x2xf16> loc("view_1"(#py_mix))
    %g_r = coreai.reshape %g16, %shape_12 : (tensor<1x1x2xf16>, tensor<2xui32>) -> tensor<1x2xf16> loc("view_2"(#py_mix))
    %q = coreai.cast %qkv3#0 : tensor<1x2x2xf16> to tensor<1x2x2xf32> loc(fused<#debuginfo.metadata<sources = [{name = "torch", id = 10 : ui64, identifiers = ["_to_copy_10"]}]>>[#py_cast, #py_call])
    %k = coreai.cast %qkv3#1 : tensor<1x2x2xf16> to tensor<1x2x2xf32> loc(fused<#debuginfo.metadata<sources = [{name = "torch", id = 11 : ui64, identifiers = ["_to_copy_11"]}]>>[#py_cast, #py_call])
    %v = coreai.cast %qkv3#2 : tensor<1x2x2xf16> to tensor<1x2x2xf32> loc(fused<#debuginfo.metadata<sources = [{name = "torch", id = 12 : ui64, identifiers = ["_to_copy_12"]}]>>[#py_cast, #py_call])
    %beta = coreai.cast %beta_r : tensor<1x2xf16> to tensor<1x2xf32> loc(fused["_to_copy_13", #py_cast, #py_call])
    %g = coreai.cast %g_r : tensor<1x2xf16> to tensor<1x2xf32> loc(fused["_to_copy_14", #py_cast, #py_call])
    %state = coreai.cast %arg2 : tensor<1x2x2x2xf16> to tensor<1x2x2x2xf32> loc(fused["_to_copy_15", #py_cast, #py_call])
    %ax23 = coreai.constant dense<[2, 3]> : tensor<2xsi32> loc("_tensor_constant11")
    %decay = coreai.exp %g : tensor<1x2xf32> -> tensor<1x2xf32> loc("exp_1"(#py_cast))
    %decay4 = coreai.expand_dims %decay, %ax23 : (tensor<1x2xf32>, tensor<2xsi32>) to tensor<1x2x1x1xf32> loc("unsqueeze_20"(#py_cast))
    %s_dec = coreai.decomposable.broadcasting_mul %state, %decay4 : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32> loc("mul_30"(#py_cast))
    %ax3 = coreai.constant dense<3> : tensor<1xsi32> loc("_tensor_constant12")
    %kcol = coreai.expand_dims %k, %ax3 : (tensor<1x2x2xf32>, tensor<1xsi32>) to tensor<1x2x2x1xf32> loc("unsqueeze_21"(#py_cast))
    %skv = coreai.decomposable.broadcasting_mul %s_dec, %kcol : (tensor<1x2x2x2xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32> loc("mul_31"(#py_cast))
    %kv_mem4 = coreai.reduce_sum %skv, %ax2 : (tensor<1x2x2x2xf32>, tensor<1xsi32>) -> tensor<1x2x1x2xf32> loc("sum_1"(#py_cast))
    %shape_122 = coreai.constant dense<[1, 2, 2]> : tensor<3xui32> loc("_tensor_constant13")
    %kv_mem = coreai.reshape %kv_mem4, %shape_122 : (tensor<1x2x1x2xf32>, tensor<3xui32>) -> tensor<1x2x2xf32> loc("view_3"(#py_cast))
    %err = coreai.decomposable.broadcasting_sub %v, %kv_mem : (tensor<1x2x2xf32>, tensor<1x2x2xf32>) -> tensor<1x2x2xf32> loc("sub_5"(#py_cast))
    %beta3 = coreai.expand_dims %beta, %ax2 : (tensor<1x2xf32>, tensor<1xsi32>) to tensor<1x2x1xf32> loc("unsqueeze_22"(#py_cast))
    %delta = coreai.decomposable.broadcasting_mul %err, %beta3 : (tensor<1x2x2xf32>, tensor<1x2x1xf32>) -> tensor<1x2x2xf32> loc("mul_32"(#py_cast))
    %delta4 = coreai.expand_dims %delta, %ax2 : (tensor<1x2x2xf32>, tensor<1xsi32>) to tensor<1x2x1x2xf32> loc("unsqueeze_23"(#py_cast))
    %upd = coreai.decomposable.broadcasting_mul %kcol, %delta4 : (tensor<1x2x2x1xf32>, tensor<1x2x1x2xf32>) -> tensor<1x2x2x2xf32> loc("mul_33"(#py_cast))
    %s_new = coreai.decomposable.broadcasting_add %s_dec, %upd : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> loc("add_20"(#py_cast))
    %qcol = coreai.expand_dims %q, %ax3 : (tensor<1x2x2xf32>, tensor<1xsi32>) to tensor<1x2x2x1xf32> loc("unsqueeze_24"(#py_cast))
    %sq = coreai.decomposable.broadcasting_mul %s_new, %qcol : (tensor<1x2x2x2xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32> loc("mul_34"(#py_cast))
    %o4 = coreai.reduce_sum %sq, %ax2 : (tensor<1x2x2x2xf32>, tensor<1xsi32>) -> tensor<1x2x1x2xf32> loc("sum_2"(#py_cast))
    %o32 = coreai.reshape %o4, %shape_122 : (tensor<1x2x1x2xf32>, tensor<3xui32>) -> tensor<1x2x2xf32> loc("view_4"(#py_cast))
    %o16 = coreai.cast %o32 : tensor<1x2x2xf32> to tensor<1x2x2xf16> loc(fused["_to_copy_16", #py_cast, #py_call])
    %s16 = coreai.cast %s_new : tensor<1x2x2x2xf32> to tensor<1x2x2x2xf16> loc(fused["_to_copy_17", #py_cast, #py_call])
    %shape_114 = coreai.constant dense<[1, 1, 4]> : tensor<3xui32> loc("_tensor_constant14")
    %o_flat = coreai.reshape %o16, %shape_114 : (tensor<1x2x2xf16>, tensor<3xui32>) -> tensor<1x1x4xf16> loc("view_5"(#py_mix))
    %w_o = coreai.constant dense_resource<layer0_out_proj> : tensor<4x8xf16> loc("p_layers_0_out_proj_weight")
    %proj = coreai.decomposable.broadcasting_batch_matmul %o_flat, %w_o : (tensor<1x1x4xf16>, tensor<4x8xf16>) -> tensor<1x1x8xf16> loc("matmul_3"(#py_mix))
    %res = coreai.decomposable.broadcasting_add %x, %proj : (tensor<1x1x8xf16>, tensor<1x1x8xf16>) -> tensor<1x1x8xf16> loc("add_40"(#py_res))
    %out = coreai.shrink_dims %res, %c1 : (tensor<1x1x8xf16>, tensor<1xsi32>) to tensor<1x8xf16> loc("squeeze_2"(#py_res))
    coreai.output %out, %conv_new, %s16 : tensor<1x8xf16>, tensor<1x12x3xf16>, tensor<1x2x2x2xf16> loc("output")
  } loc("main")
  coreai.graph private noinline @rms_norm_0(%arg0: tensor<1x1x8xf16> {coreai.name = "input"}, %arg1: tensor<8xf16> {coreai.name = "scale"})
      -> (tensor<1x1x8xf16> {coreai.name = "output"})
      attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["input", "scale"], op_attrs = {eps = 9.99999997E-7 : f32, version = 1 : si64}, output_names = ["output"]}>} {
    %x32 = coreai.cast %arg0 : tensor<1x1x8xf16> to tensor<1x1x8xf32> loc("_to_copy_1"(#py_mix))
    %sq = coreai.decomposable.broadcasting_mul %x32, %x32 : (tensor<1x1x8xf32>, tensor<1x1x8xf32>) -> tensor<1x1x8xf32> loc("mul_1"(#py_mix))
    %ax = coreai.constant dense<2> : tensor<1xsi32> loc("_tensor_constant0")
    %mean = coreai.reduce_mean %sq, %ax : (tensor<1x1x8xf32>, tensor<1xsi32>) -> tensor<1x1x1xf32> loc("mean_0"(#py_mix))
    %eps = coreai.constant dense<9.99999997E-7> : tensor<f32> loc("_tensor_constant1")
    %var = coreai.decomposable.broadcasting_add %mean, %eps : (tensor<1x1x1xf32>, tensor<f32>) -> tensor<1x1x1xf32> loc("add_1"(#py_mix))
    %inv = coreai.rsqrt %var : tensor<1x1x1xf32> -> tensor<1x1x1xf32> loc("rsqrt_0"(#py_mix))
    %xn = coreai.decomposable.broadcasting_mul %x32, %inv : (tensor<1x1x8xf32>, tensor<1x1x1xf32>) -> tensor<1x1x8xf32> loc("mul_2"(#py_mix))
    %x16 = coreai.cast %xn : tensor<1x1x8xf32> to tensor<1x1x8xf16> loc("_to_copy_2"(#py_mix))
    %y = coreai.decomposable.broadcasting_mul %x16, %arg1 : (tensor<1x1x8xf16>, tensor<8xf16>) -> tensor<1x1x8xf16> loc("mul_3"(#py_mix))
    coreai.output %y : tensor<1x1x8xf16> loc("output")
  } loc("rms_norm_0")
} loc("module")
{-#
  dialect_resources: {
    builtin: {
      layer0_input_norm: "0x020000008C3B273C3B3C263C4A3C003C6E3BFA3B",
      layer0_in_proj_qkv: "0x02000000B933A532CEB41FBC313CA59573331AB597B626359D378BB780B49EB55CB8A8B6AFABFCBA4A3CBCB94DB2203BC0B29E25FD34CB3A34B7123A74B8973B92386E34E9B0603A743722392EB91E227D31E83489BA6DBA47341EB2E22F6EB82D2C17B7BAB8ADB88131A7BA3DBB1FB77D30083544357B377FB49AB3373AE8ACB530A1B7293316B9E2B3A6B014B07B34DD35E9364D9C71B5E9AC1FB45EB7593A1EB923357FB47EBBDC3BF6B3DDB8783C6AB2FC21FD3965B851B80D358E3188B765BAF0B9",
      layer0_conv1d: "0x020000004A33FC38C2389A3218328FBC83A667B47E3961AF612B692DFA327534623C113A1733EFB5283B5037DF2B32B4ECB75A387D3839296823803B9A34B0AB5AB50B380E373AB873BCAD35B0357E380C360DBBAB38BFB13A3AC73109B17AB8E4B38C32",
      layer0_in_proj_b: "0x0200000040AC2939F497FC315EB56AB593B4AFB753383A3AAAB4A7B145390D35973634B8",
      layer0_in_proj_a: "0x02000000FC3B1D3384325FAF19A8F6A2D4AE9D31543735B409ABE236B0348D3E11B72936",
      layer0_out_proj: "0x020000002FAF68A871A33DA69E36F6313738FB3D44387D9F90399ABDDE39D23B092DAE33ADA969B709367134CDB16F3983B76B38DE363735A5347F33CFB84EBCEA28813A"
    }
  }
#-}
