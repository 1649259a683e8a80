module {
  coreai.graph @main(%x: tensor<f32>) -> tensor<f32> {
    %lim = coreai.constant dense<1.000000e+06> : tensor<f32>
    %one = coreai.constant dense<1.000000e+00> : tensor<f32>
    %y = coreai.while %x {
    ^bb0(%a: tensor<f32>):
      %c = coreai.decomposable.broadcasting_greater %lim, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      coreai.condition %c, %a : tensor<i1>, tensor<f32>
    } do {
    ^bb0(%b: tensor<f32>):
      %z = coreai.while %x {
      ^bb0(%a2: tensor<f32>):
        %c2 = coreai.decomposable.broadcasting_greater %lim, %a2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
        coreai.condition %c2, %a2 : tensor<i1>, tensor<f32>
      } do {
      ^bb0(%b2: tensor<f32>):
        %n2 = coreai.decomposable.broadcasting_add %b2, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
        coreai.yield %n2 : tensor<f32>
      } : tensor<f32> -> tensor<f32> loc("inner_loop"("/m.py":11:0))
      %n = coreai.decomposable.broadcasting_add %b, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
      coreai.yield %n : tensor<f32>
    } : tensor<f32> -> tensor<f32> loc("outer_loop"("/m.py":5:0))
    coreai.output %y : tensor<f32>
  }
}
