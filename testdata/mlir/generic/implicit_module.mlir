// Hand-written: no explicit module (MLIR wraps the ops in one at file:0:0),
// ops without locations (their location is their position), a forward
// reference inside a graph region, and location aliases defined after use.
"coreai.graph"() <{function_type = (tensor<4xf16>) -> tensor<4xf16>, sym_name = "g"}> ({
^bb0(%arg0: tensor<4xf16>):
  "coreai.user"(%later) : (tensor<4xf16>) -> ()
  %later = "coreai.exp"(%arg0) : (tensor<4xf16>) -> tensor<4xf16> loc(#l1)
  "coreai.output"(%later) : (tensor<4xf16>) -> () loc(#l2)
}) : () -> ()
"coreai.graph"() <{function_type = () -> (), sym_name = "empty"}> ({
^bb0:
}) : () -> ()
#l1 = loc("exp_0"("/src/m.py":10:4))
#l2 = loc(unknown)
