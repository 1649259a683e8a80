// anefix's own test module (synthetic): a 64x2 fp16 table read by
// gather_nd; palettize writes 4-bit indices and one 16-entry palette per
// 32 rows (its defaults), and the gather reads the lut_to_dense.
module {
  coreai.graph @main(%arg0: tensor<1x1xsi32> {coreai.name = "ids"}) -> (tensor<1x2xf16> {coreai.name = "x"}) {
    %0 = coreai.constant dense_resource<embed.weight> : tensor<64x2xf16> loc("embedding")
    %1 = coreai.gather_nd %0 at %arg0 : (tensor<64x2xf16>, tensor<1x1xsi32>) to tensor<1x2xf16>
    coreai.output %1 : tensor<1x2xf16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      embed.weight: "0x02000000AA21751CC094F0A96B2071A9A924352240243D241D1E7AA14A9EB927F6A1AC9C6BA34CA1479E411D059E449F51A25717E2A64614B526DAA37093362B15A526A85FA0A02836293AA6D721ED0506A2FBA83F2568A4201EB516CA280526EAA5609D4F25D3A604A0A91C23A853A65DA8E11DC0A1C124A918DC21DB96B3233B9807A50E260525CE29D399F0A169A7F1ACB3A6FC2089A4A5AA3B220FA2659F6BA08499DC2071A8A79C35A1D2254DA531283A22292837A32024701FABA7589DA3A0F2A4DEA35FA7C9A0D81EFAA300A85A25989F7E10CB9C88A129226DA1B51066A732A8FA9FE4286D1BF328A120A520F9A1598F962811266AA2D0A0D92645A1B624A8A4"
    }
  }
#-}
