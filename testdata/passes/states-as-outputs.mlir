// conv_state as a handle state (the form make_stateful prints): read at the
// top, updated by a slice_update, written back; anefix's own module.
module {
  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = "x"}, %h: !coreai.handle<tensor<2x4xf16>> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}) -> (tensor<1x4xf16> {coreai.name = "y"}, !coreai.token {coreai.name = "conv_state"}) {
    %t0 = "coreai.create_token"() : () -> !coreai.token loc("create_token"("m.py":2:0))
    %s, %t1 = "coreai.read_handle"(%h, %t0) : (!coreai.handle<tensor<2x4xf16>>, !coreai.token) -> (tensor<2x4xf16>, !coreai.token) loc("read"("m.py":3:0))
    %i = coreai.constant dense<[1, 0]> : tensor<2xsi32> loc("slice_update"("m.py":4:0))
    %u = coreai.slice_update %s with %x at (%i) : (tensor<2x4xf16>, tensor<1x4xf16>, tensor<2xsi32>) to tensor<2x4xf16> loc("slice_update"("m.py":4:0))
    %t2 = "coreai.write_handle"(%h, %u, %t1) : (!coreai.handle<tensor<2x4xf16>>, tensor<2x4xf16>, !coreai.token) -> !coreai.token loc("write"("m.py":5:0))
    coreai.output %x, %t2 : tensor<1x4xf16>, !coreai.token loc("output"("m.py":6:0))
  }
}
