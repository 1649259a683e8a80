// Unary ops: `T -> U` for most, `(T) -> U` for relu/real_part/imaginary_part;
// si32, i1, complex element types; dynamic dims.
module {
  coreai.graph @main(%arg0: tensor<2x3xf32> {coreai.name = "x"}, %arg1: tensor<3xsi32> {coreai.name = "n"}, %arg2: tensor<?x?xi1> {coreai.name = "m"}, %arg3: tensor<2x3xcomplex<f32>> {coreai.name = "z"}) -> (tensor<2x3xf32> {coreai.name = "relu"}, tensor<3xsi32> {coreai.name = "abs"}, tensor<?x?xi1> {coreai.name = "not"}, tensor<2x3xf32> {coreai.name = "re"}, tensor<2x3xf32> {coreai.name = "im"}, tensor<?x2xsi32> {coreai.name = "nz"}, tensor<2xui32> {coreai.name = "shape"}) {
    %0 = coreai.abs %arg1 : tensor<3xsi32> -> tensor<3xsi32>
    %1 = coreai.sigmoid %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = coreai.relu %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = coreai.not %arg2 : tensor<?x?xi1> -> tensor<?x?xi1>
    %4 = coreai.real_part %arg3 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
    %5 = coreai.imaginary_part %arg3 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
    %6 = coreai.non_zero %arg0 : tensor<2x3xf32> -> tensor<?x2xsi32>
    %7 = coreai.get_shape %arg0 : tensor<2x3xf32> -> tensor<2xui32>
    coreai.output %2, %0, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<3xsi32>, tensor<?x?xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x2xsi32>, tensor<2xui32>
  }
}
