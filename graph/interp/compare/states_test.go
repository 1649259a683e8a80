package compare

import (
	"os"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

func parseFile(t *testing.T, path string) *graph.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := mlirtext.Parse(path, string(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A state held as a handle (read_handle/write_handle through tokens)
// decodes exactly like the same state as a buffer_mutation tensor.
func TestStateFormsBitIdentical(t *testing.T) {
	gen := func(form string) *graph.Module {
		m, err := synth.Generate(synth.Options{Arm: synth.ArmB, StateForm: form})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := []struct {
		name      string
		ref, cand *graph.Module
		states    int
	}{
		{"synth arm B tensor vs handle", gen(synth.StateTensor), gen(synth.StateHandle), 4},
		{"testdata/states attr vs handle", parseFile(t, "../../../testdata/states/attr-f32.mlir"), parseFile(t, "../../../testdata/states/handle-f32.mlir"), 2},
		{"testdata/states attr vs make_stateful custom form", parseFile(t, "../../../testdata/states/attr-f32.mlir"), parseFile(t, "../../../testdata/states/make-stateful.mlir"), 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compare(c.ref, c.cand, Options{Steps: 5, Prompt: []int64{1, 2, 3}})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Identical || r.Agree != r.N || len(r.States) != c.states {
				t.Errorf("%d/%d identical=%v states=%+v", r.Agree, r.N, r.Identical, r.States)
			}
			for _, s := range r.States {
				if !s.Identical {
					t.Errorf("state %s drifted: %+v", s.Name, s)
				}
			}
		})
	}
}

// strip-fp32-casts on the make_stateful form retypes the f32 handle states
// to f16; verify runs both and measures the drift (nonzero: f16 rounding).
func TestStripHandleStatesDrift(t *testing.T) {
	ref := parseFile(t, "../../../testdata/states/handle-f32.mlir")
	cand := parseFile(t, "../../../testdata/states/handle-f32.mlir")
	p, err := passes.Build(passes.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(cand, passes.RunOptions{VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	for _, in := range cand.Graph("main").Inputs() {
		if graph.IsHandle(in.Type) && in.Type.String() != "!coreai.handle<"+graph.Tensor(graph.F16, shapeOf(in.Type)...).String()+">" {
			t.Errorf("input %s is %s after the pipeline, want an f16 handle", in.Name, in.Type)
		}
	}
	r, err := Compare(ref, cand, Options{Steps: 7})
	if err != nil {
		t.Fatal(err)
	}
	if r.Identical || len(r.States) != 2 {
		t.Fatalf("want measurable drift on 2 states, got identical=%v states=%+v", r.Identical, r.States)
	}
	for _, s := range r.States {
		if s.Identical || s.MaxAbs <= 0 || s.MaxAbs > 0.01 {
			t.Errorf("state %s: max|Δ| %g, want f16 rounding (0 < Δ ≤ 0.01)", s.Name, s.MaxAbs)
		}
	}
	t.Logf("handle-f32.mlir vs default pipeline: top-1 %d/%d, logits PSNR %.1f dB, states %+v", r.Agree, r.N, r.PSNR, r.States)
}

func shapeOf(t graph.Type) []int64 {
	tt, _ := graph.AsTensor(t)
	return tt.Shape
}

// promote-states with form=auto on arm A in the handle form (KV cache as
// handles) writes conv/rec as handle states too, and the result decodes
// exactly like arm B in the handle form.
func TestPromoteStatesHandleFormMatchesArmB(t *testing.T) {
	a, err := synth.Generate(synth.Options{Arm: synth.ArmA, StateForm: synth.StateHandle})
	if err != nil {
		t.Fatal(err)
	}
	b, err := synth.Generate(synth.Options{Arm: synth.ArmB, StateForm: synth.StateHandle})
	if err != nil {
		t.Fatal(err)
	}
	p, err := passes.Build(passes.Spec{Passes: []string{"promote-states"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(a, passes.RunOptions{VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	handles := 0
	for _, in := range a.Graph("main").Inputs() {
		if in.IsState && graph.IsHandle(in.Type) {
			handles++
		}
	}
	if handles != 4 {
		t.Fatalf("%d handle states after promote-states, want 4", handles)
	}
	r, err := Compare(b, a, Options{Steps: 6})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Identical || len(r.States) != 4 {
		t.Errorf("arm B (handle) vs promoted arm A (handle): identical=%v states=%+v", r.Identical, r.States)
	}
}
