package passes_test

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
)

// elementTypeFindings counts check's element-type blockers and fp32-chain
// suspects.
func elementTypeFindings(t *testing.T, m *graph.Module) (blockers, chains int) {
	t.Helper()
	rep, err := ane.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.AllFindings() {
		if f.Rule == ane.RuleElementType {
			blockers++
		}
	}
	for _, f := range rep.AllSuspects() {
		if f.Rule == ane.SuspectFp32Chain {
			chains++
		}
	}
	return blockers, chains
}

// f32Ops lists the ops with an f32 result, by op name.
func f32Ops(m *graph.Module) map[string]int {
	out := map[string]int{}
	m.Walk(func(op *graph.Operation) bool {
		for _, r := range op.Results() {
			if graph.IsFloat(graph.ElementType(r.Type()), "f32") {
				out[op.Name]++
				break
			}
		}
		return true
	})
	return out
}

// TestStripBlockersOnSynth: on the synth arms (stand-ins for real exports)
// the default selection retypes exactly what check calls an element-type
// blocker (none is left, the fp32 chains check only suspects stay), norms
// takes the normalization chains and leaves the recurrence and RoPE, and
// the two together leave only RoPE.
func TestStripBlockersOnSynth(t *testing.T) {
	cases := []struct {
		arm      synth.Arm
		islands  string // "" = default
		blockers bool   // element-type blockers left
		// f32 ops left of these kinds: reduce_mean (norms, the gated
		// RMSNorm), sin (RoPE)
		norms, rope bool
	}{
		{synth.ArmA, "", false, true, true},
		{synth.ArmB, "", false, true, true},
		{synth.ArmC, "", false, true, true},
		{synth.ArmA, "blockers", false, true, true},
		{synth.ArmA, "norms", true, false, true},
		{synth.ArmA, "blockers,norms", false, false, true},
		{synth.ArmA, "all", false, false, false},
	}
	for _, tc := range cases {
		t.Run(string(rune(tc.arm))+"/"+tc.islands, func(t *testing.T) {
			m, err := synth.Generate(synth.Options{Arm: tc.arm})
			if err != nil {
				t.Fatal(err)
			}
			b0, c0 := elementTypeFindings(t, m)
			if b0 == 0 || c0 == 0 {
				t.Fatalf("before: %d element-type blockers, %d fp32-chain suspects; the case proves nothing", b0, c0)
			}
			spec := passes.Spec{Passes: []string{"strip-fp32-casts"}}
			if tc.islands != "" {
				spec.Set = []string{"strip-fp32-casts.islands=" + tc.islands}
			}
			p, err := passes.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
				t.Fatal(err)
			}
			b, _ := elementTypeFindings(t, m)
			if (b > 0) != tc.blockers {
				t.Errorf("element-type blockers left: %d, want any = %v", b, tc.blockers)
			}
			ops := f32Ops(m)
			if got := ops["coreai.reduce_mean"] > 0; got != tc.norms {
				t.Errorf("f32 reduce_mean left: %v, want %v (%v)", got, tc.norms, ops)
			}
			if got := ops["coreai.sin"] > 0; got != tc.rope {
				t.Errorf("f32 sin left: %v, want %v (%v)", got, tc.rope, ops)
			}
		})
	}
}

// TestDefaultRewriteLegalOnSynth: the whole default pipeline leaves tiny
// arm A with no element-type blocker, and the fp32 chains check only
// suspects stay fp32.
func TestDefaultRewriteLegalOnSynth(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	p, err := passes.Build(passes.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Names(), ","); got != "strip-fp32-casts,fold-io-unsqueeze,promote-states,fold-casts,dce" {
		t.Errorf("default pipeline = %s", got)
	}
	if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	rep, err := ane.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Legal() {
		t.Errorf("default rewrite of arm A is not legal: %+v", rep.AllFindings())
	}
	if _, chains := elementTypeFindings(t, m); chains == 0 {
		t.Error("no fp32 chain left: the default converted the norms or RoPE too")
	}
}
