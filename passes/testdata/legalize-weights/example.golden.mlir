// anefix rewrite --passes legalize-weights
// legalize-weights: removed 5, added 4
//   compressed coreai.blockwise_shift_scale tensor<64x2xf16>: 4-bit LUT (f16), per-grouped-channel 32, unique from linear si4: exact, 69 -> 130 bytes, SNR +Inf dB
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "ids"}) -> (tensor<1x2xf16> {coreai.name = "x"}) {
    %0 = coreai.constant dense_resource<embed.q.lut_indices> : tensor<64x2xui4> loc("anefix.legalize-weights"("dequantize"))
    %1 = coreai.constant dense<[[[[-9.997550e-02], [-8.746340e-02], [-7.495110e-02], [-6.250000e-02], [-4.998780e-02], [-3.747560e-02], [-2.499390e-02], [-1.249690e-02], [0.000000e+00], [1.249690e-02], [2.499390e-02], [3.747560e-02], [4.998780e-02], [6.250000e-02], [7.495110e-02], [8.746340e-02]]], [[[-9.997550e-02], [-8.746340e-02], [-7.495110e-02], [-6.250000e-02], [-4.998780e-02], [-3.747560e-02], [-2.499390e-02], [-1.249690e-02], [0.000000e+00], [1.249690e-02], [2.499390e-02], [3.747560e-02], [4.998780e-02], [6.250000e-02], [7.495110e-02], [8.746340e-02]]]]> : tensor<2x1x16x1xf16> loc("anefix.legalize-weights"("dequantize"))
    %2 = coreai.constant dense<0> : tensor<si16> loc("anefix.legalize-weights"("dequantize"))
    %3 = coreai.lut_to_dense %0, %1, %2 : (tensor<64x2xui4>, tensor<2x1x16x1xf16>, tensor<si16>) -> tensor<64x2xf16> loc("anefix.legalize-weights"("dequantize"))
    %4 = coreai.gather_nd %3 at %arg0 : (tensor<64x2xf16>, tensor<1x1xsi32>) to tensor<1x2xf16>
    coreai.output %4 : tensor<1x2xf16>
  }
}


{-#
  dialect_resources: {
    builtin: {
      embed.q.lut_indices: "0x01000000C72D82F4B9FF5E25190A9BB725FB4638B4007FAC8439C2849560F10346BA45CAB46FD5BFA58092E0DA36EB9C71878D79F7C0154A5AFC8EA5F2D63D4D9F8E088C"
    }
  }
#-}
