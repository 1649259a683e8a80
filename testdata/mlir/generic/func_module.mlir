// Hand-written: a plain MLIR module of func.func functions (registered ops
// with native properties in mlir-opt), a declaration, a call, named module.
"builtin.module"() <{sym_name = "plain"}> ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "decl", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{arg_attrs = [{coreai.name = "x"}, {}], function_type = (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>), res_attrs = [{coreai.name = "y"}, {}], sym_name = "main"}> ({
  ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>):
    %0 = "arith.addf"(%arg0, %arg1) <{fastmath = #arith.fastmath<none>}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = "func.call"(%0) <{callee = @decl}> : (tensor<2xf32>) -> tensor<2xf32>
    %2 = "arith.constant"() <{value = dense<[1.000000e+00, 0x7F800000]> : tensor<2xf32>}> : () -> tensor<2xf32>
    "func.return"(%1, %2) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) : () -> ()
}) {foo.bar = 1 : i64} : () -> ()
