// RoPE as an externalized composite, called once.
module {
  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = "x"}, %cos: tensor<1x4xf16> {coreai.name = "cos"}) -> (tensor<1x4xf16> {coreai.name = "y"}) {
    %0 = coreai.invoke @rope_0(%cos, %x) : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("rope_1"("m.py":3:0))
    %1 = coreai.sigmoid %0 : tensor<1x4xf16> -> tensor<1x4xf16> loc("sigmoid_1"("m.py":4:0))
    coreai.output %1 : tensor<1x4xf16> loc("output"("m.py":5:0))
  }
  coreai.graph private @rope_0(%a: tensor<1x4xf16> {coreai.name = "cos"}, %b: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "output"}) attributes {composite_decl = #coreai.composite_declaration<"rope" = {input_names = ["cos", "x"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>} {
    %0 = coreai.decomposable.broadcasting_mul %a, %b : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16> loc("mul_3"("rope.py":9:0))
    coreai.output %0 : tensor<1x4xf16> loc("output"("rope.py":10:0))
  }
}
