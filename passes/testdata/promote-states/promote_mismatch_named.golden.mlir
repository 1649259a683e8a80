// anefix rewrite --passes promote-states --set states.pairs=rec_state=rec_state_out
// error: pass promote-states: graph @main: input rec_state is tensor<1x4xf16> but output rec_state_out is tensor<1x1x4xf16>; a state keeps one type, so this pair cannot be a state (fix the export, or name the right pair with --set states.pairs=in=out, or --disable promote-states)
