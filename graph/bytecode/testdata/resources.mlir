// Several blob resources with different alignments (the first four bytes of
// each hex blob are its alignment), one unused.
module {
  func.func @main() -> (tensor<3xf16>, tensor<2xf32>, tensor<4xi8>) {
    %0 = "coreai.constant"() {value = dense_resource<a> : tensor<3xf16>} : () -> tensor<3xf16>
    %1 = "coreai.constant"() {value = dense_resource<b> : tensor<2xf32>} : () -> tensor<2xf32>
    %2 = "coreai.constant"() {value = dense_resource<c.key_2> : tensor<4xi8>} : () -> tensor<4xi8>
    return %0, %1, %2 : tensor<3xf16>, tensor<2xf32>, tensor<4xi8>
  }
}

{-#
  dialect_resources: {
    builtin: {
      a: "0x02000000003C00400042",
      b: "0x100000000000803F00000040",
      c.key_2: "0x0100000001020304",
      unused: "0x0800000011223344"
    }
  }
#-}
