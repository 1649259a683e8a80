// Properties of unregistered ops (`<{…}>`), which bytecode holds from
// version 5 on.
"builtin.module"() ({
  %0 = "coreai.constant"() <{value = dense<[1, 2]> : tensor<2xui32>}> : () -> tensor<2xui32> loc("c.py":1:1)
  %1 = "coreai.reshape"(%0, %0) <{mode = "fast", axes = [0 : si32]}> {note = "discardable"} : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
  "coreai.sink"(%1) <{x = 1 : i64}> : (tensor<2xui32>) -> ()
}) : () -> ()
