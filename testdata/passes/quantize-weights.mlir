// anefix's own test module (synthetic): a 16x8 fp16 projection read as a
// matmul's y operand (output channels on its last axis); quantize-weights
// writes si8 data with one scale per output channel.
module {
  coreai.graph @main(%arg0: tensor<1x16xf16> {coreai.name = "x"}) -> (tensor<1x8xf16> {coreai.name = "y"}) {
    %0 = coreai.constant dense_resource<proj.weight> : tensor<16x8xf16> loc("linear")
    %1 = coreai.decomposable.broadcasting_batch_matmul %arg0, %0 : (tensor<1x16xf16>, tensor<16x8xf16>) -> tensor<1x8xf16>
    coreai.output %1 : tensor<1x8xf16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      proj.weight: "0x020000000528E22C58293B22301F549CB9948B2B632B382508ACAAA69D23461954AC40282830DAAB881A2F2D58A538A55720422743A5452A19AE3228B82411A0F524E718412CE9A53E9871AC33AB2BA2FBAC6CA93EAC51A6031E0A2A36AE21A18A296B2C802C97AC91A63927022A3823CD222C22E9A82120332957A4822B8CB02EA4712D97299F2C7B1F90AB89A6DF2CE1AD1AAA7CADD5A664A56C2746A97C2D252807A658AACBAC511E592E1CA091AAB99994A6C5A90FAE7899C42CE22B522A80211D26832AE498682303A54D2BE0A96B2889296A299E28D0A516A723A5A9A423AB90A501A8FFA9CF24C3A8B822C22C732DF916A52AD422B72F542D472B159FF3A14027"
    }
  }
#-}
