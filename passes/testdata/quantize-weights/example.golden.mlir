// anefix rewrite --passes quantize-weights --set quantize-weights.min-elements=64
// quantize-weights: removed 1, added 5
//   compressed coreai.constant tensor<16x8xf16>: linear si8, per-channel, symmetric, 256 -> 147 bytes, SNR 46.48 dB
module {
  coreai.graph @main(%arg0: tensor<1x16xf16> {coreai.name = "x"}) -> (tensor<1x8xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense_resource<proj.weight.quantized> : tensor<16x8xsi8> loc("anefix.quantize-weights"("linear"))
    %1 = coreai.constant dense<[[1.022340e-03, 7.452960e-04, 9.493820e-04, 7.810590e-04, 7.643690e-04, 1.118660e-03, 7.233610e-04, 6.694790e-04]]> : tensor<1x8xf16> loc("anefix.quantize-weights"("linear"))
    %2 = coreai.constant dense<0> : tensor<1x8xsi8> loc("anefix.quantize-weights"("linear"))
    %3 = coreai.constant dense<0.000000e+00> : tensor<1x8xf16> loc("anefix.quantize-weights"("linear"))
    %4 = coreai.blockwise_shift_scale %0, %1, %2, %3 : (tensor<16x8xsi8>, tensor<1x8xf16>, tensor<1x8xsi8>, tensor<1x8xf16>) -> tensor<16x8xf16> loc("anefix.quantize-weights"("linear"))
    %5 = coreai.decomposable.broadcasting_batch_matmul %arg0, %4 : (tensor<1x16xf16>, tensor<16x8xf16>) -> tensor<1x8xf16>
    coreai.output %5 : tensor<1x8xf16>
  }
}


{-#
  dialect_resources: {
    builtin: {
      proj.weight.quantized: "0x010000001F662C1009FCFE58381BBEDF1302A3327FAE0368E5EE0C2AEC429C2A18F91B0441E1FEA7B6F594C1BFDF063C81F73C6745A0E5243D0D1212DA0B2BEA4D81E97F2B6108B4DF4481B9ACDCEA25CA4D2DDDD09C067FF5D2FCDAD481FD5F512C0F2432FD0FE74BD730412930E8DDE6F0B3E0E1C114D01142760333127F6B4AFAF02A"
    }
  }
#-}
