// Unregistered coreai ops in generic form: regions, blocks with successors
// and arguments, every location kind, and builtin attributes of every kind
// the graph IR models. Discardable attributes only, so that every bytecode
// version (mlir-opt drops unregistered properties below version 5) holds it.
#meta = #coreai.debuginfo<"fx">
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%arg0: tensor<1x4xf32> loc("in.py":1:2), %arg1: tensor<4xsi32>):
    %0 = "coreai.cast"(%arg0) {ints = [1 : i8, -2 : i16, 300 : i32, -5 : i64, 7 : ui8, 65535 : ui16, -3 : si32, 12 : index, true, false, -1 : i128, 170141183460469231731687303715884105727 : si128, 5 : ui100],
                                floats = [1.5 : f16, -2.25 : bf16, 3.0e-5 : f32, 6.02e23 : f64, 0x7FC00000 : f32],
                                strs = ["", "a\"b", "typed" : i32], syms = [@g, @g::@h::@i],
                                ty = tensor<?x3xf16>, tys = [tensor<*xf32>, i1, si4, ui64, index, none, f8E4M3FN, (i32, f16) -> (), !coreai.token],
                                unit, dict = {b = 1 : i64, a = "x", c = {}}} : (tensor<1x4xf32>) -> tensor<1x4xf16> loc("_to_copy_12"("m.py":290:8))
    %1 = "coreai.constant"() {value = dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf16>} : () -> tensor<1x4xf16> loc(callsite("f" at "m.py":3:1))
    %2 = "coreai.constant"() {value = dense<7> : tensor<2x3xsi32>, b = dense<[true, false, true]> : tensor<3xi1>, s = dense<true> : tensor<5xi1>} : () -> tensor<2x3xsi32> loc(fused["a", "b.py":1:1])
    %3 = "coreai.constant"() {value = dense_resource<w_embed> : tensor<2x2xf16>, arr = array<i64: 1, -2, 3>, farr = array<f32: 1.5, 2.0>, barr = array<i1: true, false>, e = array<i32>} : () -> tensor<2x2xf16> loc(fused<#meta>["add_40", callsite("g"("x.py":9:9) at fused["y", "z"])])
    %4 = "coreai.decomposable.broadcasting_add"(%0, %1) : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc(unknown)
    %5:2 = "coreai.split"(%4) {axis = 1 : si32} : (tensor<1x4xf16>) -> (tensor<1x2xf16>, tensor<1x2xf16>)
    "coreai.br"(%5#0)[^bb1] : (tensor<1x2xf16>) -> ()
  ^bb1(%6: tensor<1x2xf16>):
    %7 = "coreai.region_op"(%6) ({
    ^bb0(%arg2: tensor<1x2xf16>):
      %8 = "coreai.use_outer"(%arg2, %5#1, %arg1) : (tensor<1x2xf16>, tensor<1x2xf16>, tensor<4xsi32>) -> tensor<1x2xf16>
      "coreai.yield"(%8) : (tensor<1x2xf16>) -> ()
    }, {
    }) : (tensor<1x2xf16>) -> tensor<1x2xf16>
    "coreai.cond_br"(%arg1, %7, %6)[^bb1, ^bb2] {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xsi32>, tensor<1x2xf16>, tensor<1x2xf16>) -> ()
  ^bb2:
    "coreai.output"(%6, %6, %6) : (tensor<1x2xf16>, tensor<1x2xf16>, tensor<1x2xf16>) -> ()
  }) {sym_name = "g", function_type = (tensor<1x4xf32>, tensor<4xsi32>) -> tensor<1x2xf16>} : () -> ()
}) : () -> ()

{-#
  dialect_resources: {
    builtin: {
      w_embed: "0x08000000003C0040004200440000"
    }
  }
#-}
