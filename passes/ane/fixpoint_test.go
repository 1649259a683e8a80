package ane

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth/variants"
)

// A recurrence in fp32 whose new state is returned as its own output (no
// slice_update into the input, no state marking): the state analysis pairs
// the two ports, so check calls the island the round trip it becomes once
// promote-states marks them, strip-fp32-casts (islands=blockers) retypes it
// in the same run, and a second rewrite changes nothing. Before the one
// state analysis the first rewrite stripped nothing and the output's check
// reported the recurrence (issue: the pipeline made its own blocker).
func TestPipelineFixpointReturnedState(t *testing.T) {
	for _, names := range [][2]string{
		{"recState", "new_recState"},
		{"conv_cache", "updated_conv_cache"},
		{"layers.0.ssm_state", "layers.0.ssm_state_out"},
		{"past_state", "present_state"},
	} {
		t.Run(names[0], func(t *testing.T) {
			text := fmt.Sprintf(`module {
  coreai.graph @main(%%x: tensor<1x4x8xf16> {coreai.name = "x"}, %%s: tensor<1x4x8xf16> {coreai.name = %q}) -> (tensor<1x4x8xf16> {coreai.name = "y"}, tensor<1x4x8xf16> {coreai.name = %q}) {
    %%0 = coreai.cast %%s : tensor<1x4x8xf16> to tensor<1x4x8xf32> loc("_to_copy"("m.py":2:0))
    %%1 = coreai.cast %%x : tensor<1x4x8xf16> to tensor<1x4x8xf32> loc("_to_copy_1"("m.py":2:0))
    %%g = coreai.constant dense<5.000000e-01> : tensor<f32> loc("c"("m.py":3:0))
    %%2 = coreai.decomposable.broadcasting_mul %%0, %%g : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32> loc("mul"("m.py":3:0))
    %%3 = coreai.decomposable.broadcasting_add %%2, %%1 : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32> loc("add"("m.py":4:0))
    %%4 = coreai.cast %%3 : tensor<1x4x8xf32> to tensor<1x4x8xf16> loc("_to_copy_2"("m.py":5:0))
    %%5 = coreai.exp %%4 : tensor<1x4x8xf16> -> tensor<1x4x8xf16> loc("exp"("m.py":6:0))
    coreai.output %%5, %%4 : tensor<1x4x8xf16>, tensor<1x4x8xf16> loc("output"("m.py":7:0))
  }
}
`, names[0], names[1])
			m, _, err := mlirtext.Parse("t.mlir", text)
			if err != nil {
				t.Fatal(err)
			}
			if c := countByRule(check(t, m).AllFindings()); c[RuleElementType.ID] == 0 {
				t.Errorf("input: no element-type blocker; the plain pair is a round trip")
			}
			runPipeline(t, m, nil)
			r := check(t, m)
			if c := countByRule(r.AllFindings()); c[RuleElementType.ID] != 0 {
				t.Errorf("after the default rewrite: %v", groupKeys(r.AllFindings()))
			}
			if p, ok := graph.States(m.Graph("main"), graph.StateOptions{}).ForInput(1); !ok || p.Form != graph.StateAttribute {
				t.Errorf("state not promoted: %+v", p)
			}
			once := print(t, m)
			runPipeline(t, m, nil)
			if twice := print(t, m); twice != once {
				t.Errorf("second rewrite changed the module:\n%s\nvs\n%s", once, twice)
			}
		})
	}
}

func print(t *testing.T, m *graph.Module) string {
	t.Helper()
	b, err := mlirtext.Format(m, mlirtext.FormGeneric)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// coreai-torch's own gated-delta composite takes fp16 arguments and casts
// to fp32 inside: the island is in the composite, and what makes it a round
// trip is the caller (the argument comes from a state, the result is
// written back into it). check reports it (the compiler inlines
// composites), so the default rewrite strips it, in every state form.
// Before calleeRoundTrips check found no blocker and predicted LEGAL.
func TestCompositeRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range variants.All() {
		if c.Axes.Recurrence != "composite" || c.Axes.Casts != "inside" || seen[c.Axes.State] {
			continue
		}
		seen[c.Axes.State] = true
		t.Run(c.Axes.State, func(t *testing.T) {
			m, _, err := mlirtext.Parse(c.Name+".mlir", string(c.Text))
			if err != nil {
				t.Fatal(err)
			}
			before := check(t, m)
			if n := countByRule(before.AllFindings())[RuleElementType.ID]; n == 0 {
				t.Errorf("%s: no element-type blocker for the fp32 inside the composite", c.Name)
			}
			runPipeline(t, m, nil)
			after := check(t, m)
			if n := countByRule(after.AllFindings())[RuleElementType.ID]; n != 0 || !after.Legal() {
				t.Errorf("%s after the default rewrite: %v", c.Name, groupKeys(after.AllFindings()))
			}
			if n := graph.ElementTypeCounts(m.Op)["f32"]; n != 0 {
				t.Errorf("%s: %d f32 values left", c.Name, n)
			}
		})
	}
	if len(seen) < 3 {
		t.Fatalf("variants offer %d state forms with an fp32 composite, want at least 3", len(seen))
	}
}
