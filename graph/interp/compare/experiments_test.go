package compare

import (
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/record"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// runPasses applies passes (with --set assignments) to m.
func runPasses(t *testing.T, m *graph.Module, names []string, set ...string) *passes.Result {
	t.Helper()
	p, err := passes.Build(passes.Spec{Passes: names, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// externalize-constant with verify feeding the constant: identical results
// on tiny arm A (raw and already promoted), and without the feed the
// comparison refuses (the candidate has an input the reference lacks)
// rather than running on zeros.
func TestExternalizeConstantIdentical(t *testing.T) {
	for _, pre := range [][]string{nil, {"fold-io-unsqueeze", "promote-states"}} {
		ref, err := synth.Generate(synth.Options{Arm: synth.ArmA})
		if err != nil {
			t.Fatal(err)
		}
		cand, err := synth.Generate(synth.Options{Arm: synth.ArmA})
		if err != nil {
			t.Fatal(err)
		}
		if len(pre) > 0 {
			runPasses(t, ref, pre)
		}
		res := runPasses(t, cand, append(append([]string(nil), pre...), "externalize-constant", "dce"))
		var ext []record.ConstantInput
		for _, s := range res.Steps {
			ext = append(ext, s.Change.ConstantInputs...)
		}
		if len(ext) != 1 || ext[0].Resource != "model.embed_tokens.weight" || ext[0].Type != "tensor<256x32xf16>" {
			t.Fatalf("externalized %+v, want the tied table model.embed_tokens.weight", ext)
		}
		if cand.Resource("model.embed_tokens.weight") != nil {
			t.Error("dce left the externalized table's blob in the candidate")
		}
		cis := ext
		r, err := Compare(ref, cand, Options{Steps: 24, Prompt: []int64{1, 2, 3}, CandConstants: cis})
		if err != nil {
			t.Fatalf("after %v + externalize-constant: %v", pre, err)
		}
		if !r.Identical || r.Agree != r.N {
			t.Errorf("after %v: top-1 %d/%d, identical %v", pre, r.Agree, r.N, r.Identical)
		}
		// By op id only (what an inline constant's record holds).
		cis[0].Resource = ""
		if r, err := Compare(ref, cand, Options{Steps: 4, CandConstants: cis}); err != nil || !r.Identical {
			t.Errorf("by op id: %v, %+v", err, r)
		}
		if _, err := Compare(ref, cand, Options{Steps: 2}); err == nil {
			t.Error("without CandConstants the externalized input was accepted")
		}
	}
}

// states-as-outputs undoes promote-states: (promoted) vs (promoted, then
// states-as-outputs) agree bit for bit on tiny arm A in both state forms.
func TestStatesAsOutputsIdentical(t *testing.T) {
	for _, form := range []string{"attribute", "handle"} {
		t.Run(form, func(t *testing.T) {
			ref, err := synth.Generate(synth.Options{Arm: synth.ArmA})
			if err != nil {
				t.Fatal(err)
			}
			cand, err := synth.Generate(synth.Options{Arm: synth.ArmA})
			if err != nil {
				t.Fatal(err)
			}
			set := "promote-states.form=" + form
			runPasses(t, ref, []string{"promote-states"}, set)
			res := runPasses(t, cand, []string{"promote-states", "states-as-outputs", "dce"}, set)
			plain := res.Steps[1].Change.PlainStates
			if len(plain) != 2 {
				t.Fatalf("%d states made plain, want conv_state and rec_state: %+v", len(plain), plain)
			}
			g := cand.Graph("main")
			for _, p := range g.Inputs() {
				if (p.Name == "conv_state" || p.Name == "rec_state") && (p.IsState || graph.IsHandle(p.Type)) {
					t.Errorf("input %s is still a state: %s", p.Name, p.Type)
				}
			}
			n := 0
			cand.Walk(func(op *graph.Operation) bool {
				if op.Name == "coreai.read_handle" || op.Name == "coreai.write_handle" {
					n++
				}
				return true
			})
			if n != 0 {
				t.Errorf("%d handle accesses left (arm A's KV caches are attribute states)", n)
			}
			r, err := Compare(ref, cand, Options{Steps: 24, Prompt: []int64{1, 2, 3}})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Identical || r.Agree != r.N || len(r.States) != 4 {
				t.Errorf("top-1 %d/%d, identical %v, states %+v", r.Agree, r.N, r.Identical, r.States)
			}
		})
	}
}
