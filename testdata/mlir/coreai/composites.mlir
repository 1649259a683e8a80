// Graph forms: a public graph with `attributes {…}`, private noinline
// composites with a result type without parentheses, composite_decl and
// template_op; a public noinline graph; invokes; a signature and an invoke
// spread over several lines.
module {
  coreai.graph @main(%arg0: tensor<2x5xf32> {coreai.name = "x"},
                     %arg1: tensor<5xf32> {coreai.name = "w"})
      -> (tensor<2x5xf32> {coreai.name = "y"}, tensor<2x5xf32> {coreai.name = "z"}) attributes {coreai.entry = true} {
    %0 = coreai.invoke @log_softmax_0(%arg0) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    %1 = coreai.invoke @rms_norm_1(%0,
                                   %arg1)
        : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
    %2 = coreai.invoke @inner_2(%1) : (tensor<2x5xf32>) -> tensor<2x5xf32>
    coreai.output %1, %2 : tensor<2x5xf32>, tensor<2x5xf32>
  }
  coreai.graph private noinline @log_softmax_0(%arg0: tensor<2x5xf32> {coreai.name = "input"}) -> tensor<2x5xf32> attributes {composite_decl = #coreai.composite_declaration<"log_softmax" = {input_names = ["input"], op_attrs = {axis = 1 : si64, version = 1 : si64}, output_names = ["output"]}>, template_op = "log_softmax"} {
    %0 = coreai.constant dense<1> : tensor<si32>
    %1 = coreai.softmax %arg0, %0 : (tensor<2x5xf32>, tensor<si32>) -> tensor<2x5xf32>
    %2 = coreai.log %1 : tensor<2x5xf32> -> tensor<2x5xf32>
    coreai.output %2 : tensor<2x5xf32>
  }
  coreai.graph private noinline @rms_norm_1(%arg0: tensor<2x5xf32> {coreai.name = "input"}, %arg1: tensor<5xf32> {coreai.name = "weight"}) -> tensor<2x5xf32> attributes {composite_decl = #coreai.composite_declaration<"rms_norm" = {input_names = ["input", "weight"], op_attrs = {axes = [1 : si64], eps = 9.99999974E-6 : f32, version = 1 : si64}, output_names = ["output"]}>, template_op = "rms_norm"} {
    %0 = coreai.decomposable.broadcasting_mul %arg0, %arg1 : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
    coreai.output %0 : tensor<2x5xf32>
  }
  coreai.graph noinline @inner_2(%arg0: tensor<2x5xf32> {coreai.name = "x"}) -> (tensor<2x5xf32> {coreai.name = "out"}) {
    %0 = coreai.neg %arg0 : tensor<2x5xf32> -> tensor<2x5xf32>
    coreai.output %0 : tensor<2x5xf32>
  }
}
