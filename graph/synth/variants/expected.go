package variants

import (
	"fmt"

	"github.com/anefix/anefix/graph/synth/expect"
)

// externalizeMinBytes is externalize-constant's default min-bytes
// (passes/externalize_constant.go): smaller constants are never taken.
const externalizeMinBytes = 4096

// expected is what the default rewrite must make of a case, from its axes:
//   - every conv/rec pair is a state afterwards, under the input's name
//     when the case writes it plain; the KV caches are states already;
//   - every fp32 value is the gated-delta recurrence, a round trip
//     through the recurrent state (the norms and attention are fp16), so
//     none is left; with f32-state the recurrent state's ports themselves
//     become f16 (the output of a handle state is a token, untouched);
//   - no other port changes: input_ids' expand_dims feeds only the
//     embedding's gather index, which fold-io-unsqueeze leaves by default,
//     and no rank op touches another port;
//   - externalize-constant refuses: the tied embedding/head table is
//     vocab×hidden fp16, under the pass's default min-bytes; every other
//     pass accepts the case.
func expected(a Axes) expect.Expect {
	e := expect.Expect{NoF32: true, Ports: map[string]string{}}
	if tableBytes := vocab * hidden * 2; tableBytes < externalizeMinBytes {
		e.Refuses = map[string]string{"externalize-constant": fmt.Sprintf("the tied table is %d bytes, under min-bytes %d", tableBytes, externalizeMinBytes)}
	}
	plain := a.State == "plain-update" || a.State == "plain-return"
	for _, s := range linStates(a) {
		e.Pairs = append(e.Pairs, expect.Pair{In: s.in, Out: s.out, Plain: plain})
		if s.t.elem != "f32" {
			continue
		}
		t := s.t.with("f16")
		t.handle = s.handle
		e.Ports["input "+s.in] = t.String()
		if !s.handle {
			e.Ports["output "+s.in] = t.String()
		}
	}
	for _, n := range []string{"key_cache", "value_cache"} {
		e.Pairs = append(e.Pairs, expect.Pair{In: n, Out: n})
	}
	return e
}

// stateInputs are the input names of the conv and recurrent states.
func stateInputs(a Axes) []string {
	var out []string
	for _, s := range linStates(a) {
		out = append(out, s.in)
	}
	return out
}
