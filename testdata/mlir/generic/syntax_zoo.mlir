// Hand-written generic-form module exercising MLIR syntax anefix must keep:
// type/attribute/location aliases, properties, every builtin attribute kind,
// dialect attributes and types kept verbatim, quoted symbols, string escapes,
// multi-result ops, nested regions with block arguments and successors.
#meta = #debuginfo.metadata<sources = [{name = "torch", id = 12 : ui64, identifiers = ["_to_copy_12"]}]>
#src = loc("/src/models/macos/qwen3_5.py":199:0)
#dict = {a = 1 : i32, b = "two"}
!h = !coreai.handle<tensor<1x4xf16>>
"builtin.module"() ({
  "coreai.graph"() <{arg_attrs = [{MutableBuffers.buffer_mutation = "b_state", coreai.name = "b_state"}, {coreai.name = "x"}], function_type = (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>, res_attrs = [{coreai.name = "b_state"}], sym_name = "main"}> ({
  ^bb0(%arg0: tensor<1x4xf32> loc("b_state"), %arg1: tensor<1x4xf32>):
    %0 = "coreai.constant"() <{value = dense<1> : tensor<2xui32>}> : () -> tensor<2xui32> loc(fused<#meta>[#src, "/src/qwen3_5_ios.py":290:0])
    %1 = "coreai.constant"() <{value = dense_resource<w_embed> : tensor<2x2xf16>}> {s = "a\"b\n\01\\", f = 0x7FC00000 : f32, g = 1.5e-3 : f64, neg = -3 : si8, u, bt = true, bf = false, arr = [1, "x", @foo::@bar, !h, #dict, unit, [], {}], d = dense<[[1.0, 2.0], [3.0, 0x7F800000]]> : tensor<2x2xf32>, hx = dense<"0x0000803F00000040"> : tensor<2xf32>, cplx = dense<(1.0,2.0)> : tensor<2xcomplex<f32>>, ninf = 0xFF800000 : f32, map = affine_map<(d0) -> (d0)>, da = array<i32: 1, 2>, dae = array<i64>, daf = array<f32: 1.5, -2.0>, dyn = tensor<?x4xbf16>, unr = tensor<*xf16>, hnd = !h, tok = !coreai.token, none_t = none, idx = index, fnt = (i32, f8E4M3FN) -> (i1), u32 = 3 : ui32, big = 18446744073709551615 : ui64, i128 = 170141183460469231731687303715884105727 : i128, empty = dense<> : tensor<0xf32>, bools = dense<[true, false, true]> : tensor<3xi1>, splat1 = dense<true> : tensor<3xi1>, vec = vector<4xf32>, mref = memref<4xf32>, u8 = 255 : ui8, si = -128 : si8, h16 = 0x3C00 : f16, bfv = 2.5 : bf16, f8 = 1.0 : f8E4M3FN, idxv = 7 : index, strs = dense<["a", "b"]> : tensor<2x!x.s>, neg0 = dense<-0.0> : tensor<2xf16>, ints = dense<[[1, -2], [3, 4]]> : tensor<2x2xsi8>, typed_str = "t" : i32, quoted_sym = @"quoted sym", "quoted key" = 1 : i8, comp = #coreai.composite_declaration<"rms_norm" = {input_names = ["input", "scale"], op_attrs = {eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, arrow_body = #x.fn<(i32) -> i32>, loc_attr = loc("in an attribute"), rect = dense<[[1, 2, 3]]> : tensor<1x3xi8>, col = dense<[[1.5], [2.5]]> : tensor<2x1xf32>} : () -> tensor<2x2xf16> loc("x.py":1:2)
    %2:2 = "coreai.foo"(%0, %1) ({
    ^bb0(%a: i32 loc("b.py":3:4), %b: f32):
      "coreai.yield"(%a)[^bb2] : (i32) -> ()
    ^bb1(%c: f32):
      "coreai.yield"(%c) : (f32) -> ()
    ^bb2:
      "coreai.yield"(%b)[^bb1] : (f32) -> ()
    }, {
    }) {"coreai.foo.kind" = 3 : i64} : (tensor<2xui32>, tensor<2x2xf16>) -> (i32, i32) loc(callsite("f" at "g.py":3:4))
    %3 = "coreai.x"(%2#1) : (i32) -> i32 loc(unknown)
    %4 = "coreai.x"(%2#0) : (i32) -> i32 loc(fused["a", "b"])
    %5 = "coreai.x"(%2#0) : (i32) -> i32 loc("name"("x.py":3:4))
    %6, %7:2 = "coreai.y"(%5) : (i32) -> (i32, i32, i32) loc(#late)
    %8 = "coreai.z"(%7#1, %6) <#x.opaque_props<1>> : (i32, i32) -> !h loc(#late)
    "coreai.output"(%arg0) : (tensor<1x4xf32>) -> ()
  }) : () -> () loc("main")
}) : () -> ()
#late = loc(fused<#meta>["late_alias", #src])
{-#
  dialect_resources: {
    builtin: {
      w_embed: "0x020000000000003C0040004200",
      second_blob: "0x0100000001"
    }
  },
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(canonicalize)",
      disable_threading: true
    }
  }
#-}
