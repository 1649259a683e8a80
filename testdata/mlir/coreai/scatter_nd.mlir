// scatter_nd `%x with %updates at %indices` and its combiner region
// (`^bb0(old, new): coreai.yield new`), signature after the region.
module {
  coreai.graph @main(%arg0: tensor<5x3xf32> {coreai.name = "x"}, %arg1: tensor<2x1xsi32> {coreai.name = "idx"}, %arg2: tensor<2x3xf32> {coreai.name = "vals"}) -> (tensor<5x3xf32> {coreai.name = "index_put"}) {
    %0 = coreai.cast %arg1 : tensor<2x1xsi32> to tensor<?x1xsi32>
    %1 = coreai.scatter_nd %arg0 with %arg2 at %0 {
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      coreai.yield %arg4 : tensor<f32>
    } : (tensor<5x3xf32>, tensor<2x3xf32>, tensor<?x1xsi32>) to tensor<5x3xf32>
    coreai.output %1 : tensor<5x3xf32>
  }
}
