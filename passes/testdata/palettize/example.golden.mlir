// anefix rewrite --passes palettize --set palettize.min-elements=64
// palettize: removed 1, added 4
//   compressed coreai.constant tensor<64x2xf16>: 4-bit LUT (f16), per-grouped-channel 32, kmeans, 256 -> 130 bytes, SNR 24.70 dB
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "ids"}) -> (tensor<1x2xf16> {coreai.name = "x"}) {
    %0 = coreai.constant dense_resource<embed.weight.lut_indices> : tensor<64x2xui4> loc("anefix.palettize"("embedding"))
    %1 = coreai.constant dense<[[[[-4.638670e-02], [-4.071040e-02], [-3.292850e-02], [-2.513120e-02], [-1.974490e-02], [-1.568600e-02], [-1.133730e-02], [-6.431570e-03], [1.146200e-04], [5.287170e-03], [1.093290e-02], [1.699830e-02], [2.157590e-02], [2.818300e-02], [3.808590e-02], [5.633540e-02]]], [[[-7.720950e-02], [-5.191040e-02], [-3.289790e-02], [-2.854920e-02], [-1.780700e-02], [-1.150510e-02], [-8.407590e-03], [-3.997800e-03], [1.074790e-03], [8.544920e-03], [1.212310e-02], [1.875310e-02], [2.420040e-02], [3.262330e-02], [3.756710e-02], [4.534910e-02]]]]> : tensor<2x1x16x1xf16> loc("anefix.palettize"("embedding"))
    %2 = coreai.constant dense<0> : tensor<si16> loc("anefix.palettize"("embedding"))
    %3 = coreai.lut_to_dense %0, %1, %2 : (tensor<64x2xui4>, tensor<2x1x16x1xf16>, tensor<si16>) -> tensor<64x2xf16> loc("anefix.palettize"("embedding"))
    %4 = coreai.gather_nd %3 at %arg0 : (tensor<64x2xf16>, tensor<1x1xsi32>) to tensor<1x2xf16>
    coreai.output %4 : tensor<1x2xf16>
  }
}


{-#
  dialect_resources: {
    builtin: {
      embed.weight.lut_indices: "0x010000009A081AABBB69D77665977786835DF824E73E8A165C89CE733C973292B6A8B848BC7F353049A1657629574CAD5D9B73463496246B78A58523E6E89985CE655C4B"
    }
  }
#-}
