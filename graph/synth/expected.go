package synth

import (
	"fmt"

	"github.com/anefix/anefix/graph/synth/expect"
)

// Expected is what the default rewrite must make of o's module, from the
// builder's own parameters (README "Test graphs"), for the property tests:
//   - states: the KV caches are states already (arm E's named
//     new_k_cache/new_v_cache); conv_state and rec_state are plain pairs
//     the rewrite promotes (A, C, D) or states already (B);
//   - fp32: the gated-delta recurrence (lineStepCasts on, or the composite)
//     is the island that blocks: a round trip through rec_state, the casts
//     the seed's compiler cited; the builder's local fp32 RMSNorms and its
//     RoPE are islands the compiler never cited, which stay f32. Arm D has
//     no recurrence and no RoPE (the arm-d pass replaced them), arm E no
//     fp32 at all;
//   - ports: position_ids is unsqueezed only by the rotary tables and the
//     logits are a rank-only view of the head's [1, vocab] matmul, so
//     fold-io-unsqueeze folds both (D: the logits only); input_ids'
//     expand_dims feeds only the embedding's gather index, which that pass
//     leaves by default. Arm E's ports stay as they are;
//   - passes: arm E takes its embedding table as an input already, so
//     externalize-constant has no tied table to take and refuses it; the
//     hybrid's tied table is an in-graph constant it takes. Every other
//     pass accepts every arm;
//   - the seed's compiles (README "Calibration", on h18p) of the models
//     the tiny tensor-state arms stand in for: A, B, C and D got 0 Neural
//     Engine regions, E 19 of 19 functions. Check models D as legal (the
//     blocker the compiler does not name is a suspect, not a rule): that
//     disagreement is recorded.
func Expected(o Options) (expect.Expect, error) {
	seedShape := o.Layers == 0 && o.Ctx == 0 // the seed's layer counts and E's ladder
	o, err := o.normalize()
	if err != nil {
		return expect.Expect{}, err
	}
	var e expect.Expect
	if seedShape && o.StateForm == StateTensor && o.Recurrence == recurrenceInline && o.Weights == weightsF16 {
		e.Published = &expect.Published{ID: "seed arm " + o.Arm.String(), Architecture: "h18p"}
		switch o.Arm {
		case ArmE:
			e.Published.Regions = 19
		case ArmD:
			e.Published.Disagree = "check predicts arm D legal: the seed's blocker for D is the one the compiler does not name (check lists it as suspects)"
		}
	}
	if o.Arm == ArmE {
		e.Pairs = []expect.Pair{{In: "key_cache", Out: "new_k_cache"}, {In: "value_cache", Out: "new_v_cache"}}
		e.NoF32 = true
		e.Ports = map[string]string{}
		e.Refuses = map[string]string{"externalize-constant": "the embedding table is a graph input already"}
		return e, nil
	}
	d := o.hybridDims()
	nLin, nFull := d.Counts()
	if nFull > 0 {
		e.Pairs = append(e.Pairs, expect.Pair{In: "key_cache", Out: "key_cache"}, expect.Pair{In: "value_cache", Out: "value_cache"})
	}
	if o.Arm == ArmB {
		e.Pairs = append(e.Pairs, expect.Pair{In: "conv_state", Out: "conv_state"}, expect.Pair{In: "rec_state", Out: "rec_state"})
	} else {
		e.Pairs = append(e.Pairs, expect.Pair{In: "conv_state", Out: "new_conv_state", Plain: true}, expect.Pair{In: "rec_state", Out: "new_rec_state", Plain: true})
	}
	// Every layer has its two norms in local f32 (normF32: lines l..l+5,
	// the cast back at l+6).
	e.Keep = []expect.Frame{{File: fileIOS, From: lineNorm, To: lineNorm + 6}}
	if nLin > 0 && o.Arm != ArmD {
		e.Keep = append(e.Keep, expect.Frame{File: fileIOS, From: lineGatedNorm, To: lineGatedNorm + 7})
		if o.Recurrence == RecurrenceComposite {
			e.Retype = []expect.Frame{{File: fileGDU}}
		} else {
			e.Retype = []expect.Frame{{File: fileMac}}
		}
	}
	if nFull > 0 && o.Arm != ArmD {
		e.Keep = append(e.Keep, expect.Frame{File: fileIOS, From: lineRotary, To: lineRotary + 5}, expect.Frame{File: fileIOS, From: lineApplyRope, To: lineApplyRope + 7})
	}
	e.Ports = map[string]string{"output logits": fmt.Sprintf("tensor<1x%dxf16>", d.Vocab)}
	if nFull > 0 && o.Arm != ArmD {
		e.Ports["input position_ids"] = "tensor<1x1x1xsi32>"
	}
	return e, nil
}

// ShippedArms are the tiny arms testdata/synth ships, by directory name,
// with the options that write them (TestShippedTestdata keeps them so).
var ShippedArms = []struct {
	Name    string
	Options Options
}{
	{"armA.aimodel", Options{Arm: ArmA}},
	{"armB.aimodel", Options{Arm: ArmB}},
	{"armC.aimodel", Options{Arm: ArmC}},
	{"armD.aimodel", Options{Arm: ArmD}},
	{"armE.aimodel", Options{Arm: ArmE}},
	// Arm B with its four states in the handle form (make_stateful; Apple's
	// iOS export): a new arm, so A-E and the figures built on them stay.
	{"armB-handle.aimodel", Options{Arm: ArmB, StateForm: StateHandle}},
}
