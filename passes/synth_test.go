package passes_test

import (
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

var all = []string{"strip-fp32-casts.islands=all"}

// TestPassesOnSynth runs single passes on the synth arms (tiny scale), the
// closest stand-ins for real exports the repository has.
func TestPassesOnSynth(t *testing.T) {
	cases := []struct {
		arm      synth.Arm
		pass     string
		f32After int64
		// wantChange: whether the pass must change something (a pass that
		// should find nothing must change nothing).
		wantChange bool
		set        []string
	}{
		// islands=all: every island goes (the default takes the
		// element-type blockers only; TestStripBlockersOnSynth).
		{synth.ArmA, "strip-fp32-casts", 0, true, all},
		{synth.ArmB, "strip-fp32-casts", 0, true, all},
		{synth.ArmC, "strip-fp32-casts", 0, true, all},
		{synth.ArmE, "strip-fp32-casts", -1, false, nil},
		{synth.ArmA, "fold-casts", -1, false, nil},
		{synth.ArmE, "fold-casts", -1, false, nil},
		// synth's prompt_opt_* graphs return the caches, so the code after
		// the last cache write that feeds no output is dead.
		{synth.ArmE, "dce", -1, true, nil},
		{synth.ArmA, "dce", -1, false, nil},
	}
	for _, tc := range cases {
		t.Run(string(rune(tc.arm))+"/"+tc.pass, func(t *testing.T) {
			m, err := synth.Generate(synth.Options{Arm: tc.arm})
			if err != nil {
				t.Fatal(err)
			}
			nOps, nRes := m.NumOps(), len(m.Resources)
			p, err := passes.Build(passes.Spec{Passes: []string{tc.pass}, Set: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			ch := res.Steps[0].Change
			changed := ch.OpsRemoved+ch.OpsAdded+ch.OpsRetyped+len(ch.IOChanges)+len(ch.Constants) > 0 || m.NumOps() != nOps || len(m.Resources) != nRes
			if changed != tc.wantChange {
				t.Errorf("changed = %v, want %v (%+v)", changed, tc.wantChange, ch)
			}
			if tc.f32After >= 0 && res.CensusAfter["f32"] != tc.f32After {
				t.Errorf("f32 values after: %d, want %d (before %d)", res.CensusAfter["f32"], tc.f32After, res.CensusBefore["f32"])
			}
			if tc.f32After >= 0 && res.CensusBefore["f32"] == 0 {
				t.Error("no f32 before: the case proves nothing")
			}
			if err := graph.Verify(m); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStripKeepsSynthSignature: arm A's f32 lives only between casts, so
// stripping must leave its graph inputs and outputs as they were.
func TestStripKeepsSynthSignature(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	before := m.Graph("main").FunctionType().String()
	p, _ := passes.Build(passes.Spec{Passes: []string{"strip-fp32-casts"}})
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	if after := m.Graph("main").FunctionType().String(); after != before {
		t.Errorf("signature changed:\n%s\n%s", before, after)
	}
	if n := len(res.Steps[0].Change.IOChanges); n != 0 {
		t.Errorf("%d I/O changes", n)
	}
}
