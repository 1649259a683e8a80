// Every native properties field of func.func, func.call and builtin.module:
// arg_attrs, res_attrs, sym_visibility, no_inline (an inherent attribute in
// MLIR 22, a discardable one in MLIR 19), a named module.
module @layouts {
  func.func private @callee(%a: tensor<4xf16> {coreai.name = "a"}) -> (tensor<4xf16> {coreai.name = "r"}) attributes {no_inline} {
    return %a : tensor<4xf16>
  }
  func.func @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = func.call @callee(%x) {no_inline} : (tensor<4xf16>) -> tensor<4xf16> loc("call.py":3:1)
    %1 = func.call @callee(%0) : (tensor<4xf16>) -> tensor<4xf16>
    return %1 : tensor<4xf16>
  }
}
