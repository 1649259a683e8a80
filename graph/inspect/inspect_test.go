package inspect

import (
	"os"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

func reportFor(t *testing.T, name, text string) *Inspection {
	t.Helper()
	m, _, err := mlirtext.Parse(name, text)
	if err != nil {
		t.Fatal(err)
	}
	return Report(m)
}

func ids(refs []*OpRef) string {
	var s []string
	for _, r := range refs {
		s = append(s, r.OpID)
	}
	return strings.Join(s, ",")
}

func TestHybridLayer(t *testing.T) {
	b, err := os.ReadFile("../../testdata/mlir/pretty/hybrid_layer.mlir")
	if err != nil {
		t.Fatal(err)
	}
	rep := reportFor(t, "hybrid_layer.mlir", string(b))
	if len(rep.Graphs) != 2 {
		t.Fatalf("%d graphs, want 2", len(rep.Graphs))
	}
	g := rep.Graphs[0]
	if g.Name != "main" || g.Visibility != "public" || g.OpTotal != 70 {
		t.Errorf("main: name %q vis %q ops %d", g.Name, g.Visibility, g.OpTotal)
	}
	var states []string
	for _, p := range append(g.Inputs, g.Outputs...) {
		if p.IsState {
			states = append(states, p.Name+"->"+p.StatePartner)
		}
	}
	if got := strings.Join(states, " "); got != "conv_state->conv_state rec_state->rec_state conv_state->conv_state rec_state->rec_state" {
		t.Errorf("states: %s", got)
	}
	if len(g.Fp32Islands) != 1 {
		t.Fatalf("%d fp32 islands, want 1", len(g.Fp32Islands))
	}
	isl := g.Fp32Islands[0]
	if got := ids(isl.EntryCasts); got != "_to_copy_10,_to_copy_11,_to_copy_12,_to_copy_13,_to_copy_14,_to_copy_15" {
		t.Errorf("entry casts %s", got)
	}
	if got := ids(isl.ExitCasts); got != "_to_copy_16,_to_copy_17" {
		t.Errorf("exit casts %s", got)
	}
	for _, c := range isl.EntryCasts {
		if !strings.HasSuffix(c.Source, "qwen3_5.py:199") || c.Graph != "main" {
			t.Errorf("cast %s source %q graph %q", c.OpID, c.Source, c.Graph)
		}
	}
	if len(isl.Values) != 23 || len(isl.FromInputs) != 0 || len(isl.ToOutputs) != 0 {
		t.Errorf("island: %d values, inputs %v, outputs %v", len(isl.Values), isl.FromInputs, isl.ToOutputs)
	}
	if len(g.IoReshapes) != 2 || g.IoReshapes[0].Port != "hidden" || g.IoReshapes[0].IsOutput || g.IoReshapes[1].Port != "out" || !g.IoReshapes[1].IsOutput {
		t.Errorf("io reshapes: %v", g.IoReshapes)
	}
	if len(g.Invocations) != 1 || g.Invocations[0].Callee != "rms_norm_0" || g.Invocations[0].Composite != "rms_norm" {
		t.Errorf("invocations: %v", g.Invocations)
	}
	census := map[string]int32{}
	for _, c := range g.ElementTypes {
		census[c.Type] = c.Count
	}
	if census["f32"] != 23 || census["f16"] != 36 {
		t.Errorf("census %v", census)
	}
	n := rep.Graphs[1]
	if n.CompositeDecl != "rms_norm" || !n.Noinline || n.Visibility != "private" {
		t.Errorf("rms_norm graph: %v", n)
	}
}

func TestIslandsAndIO(t *testing.T) {
	tests := []struct {
		name                  string
		text                  string
		islands               int
		fromInputs, toOutputs string
	}{
		{"no f32", `"func.func"() <{function_type = (tensor<2xf16>) -> tensor<2xf16>, sym_name = "f"}> ({
^bb0(%a: tensor<2xf16>):
  "func.return"(%a) : (tensor<2xf16>) -> ()
}) : () -> ()`, 0, "", ""},
		{"f32 input to output", `"func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "f"}> ({
^bb0(%a: tensor<2xf32>):
  %0 = "coreai.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  "func.return"(%0) : (tensor<2xf32>) -> ()
}) : () -> ()`, 1, "%arg0", "#0"},
		{"two separate islands", `"coreai.graph"() <{function_type = (tensor<2xf16>) -> (tensor<2xf16>, tensor<2xf16>), sym_name = "g"}> ({
^bb0(%a: tensor<2xf16>):
  %0 = "coreai.cast"(%a) : (tensor<2xf16>) -> tensor<2xf32>
  %1 = "coreai.exp"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "coreai.cast"(%1) : (tensor<2xf32>) -> tensor<2xf16>
  %3 = "coreai.cast"(%2) : (tensor<2xf16>) -> tensor<2xf32>
  %4 = "coreai.cast"(%3) : (tensor<2xf32>) -> tensor<2xf16>
  "coreai.output"(%2, %4) : (tensor<2xf16>, tensor<2xf16>) -> ()
}) : () -> ()`, 2, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := reportFor(t, "t.mlir", tc.text).Graphs[0]
			if len(g.Fp32Islands) != tc.islands {
				t.Fatalf("%d islands, want %d", len(g.Fp32Islands), tc.islands)
			}
			if tc.islands == 0 {
				return
			}
			isl := g.Fp32Islands[0]
			if got := strings.Join(isl.FromInputs, ","); got != tc.fromInputs {
				t.Errorf("from inputs %q, want %q", got, tc.fromInputs)
			}
			if got := strings.Join(isl.ToOutputs, ","); got != tc.toOutputs {
				t.Errorf("to outputs %q, want %q", got, tc.toOutputs)
			}
		})
	}
}

// TestSharedConstantDoesNotMergeIslands: one f32 eps constant used by two
// separate norm islands leaves them two islands.
func TestSharedConstantDoesNotMergeIslands(t *testing.T) {
	g := reportFor(t, "t.mlir", `"coreai.graph"() <{function_type = (tensor<2xf16>, tensor<2xf16>) -> (tensor<2xf16>, tensor<2xf16>), sym_name = "g"}> ({
^bb0(%a: tensor<2xf16>, %b: tensor<2xf16>):
  %eps = "coreai.constant"() <{value = dense<1.0e-06> : tensor<f32>}> : () -> tensor<f32>
  %0 = "coreai.cast"(%a) : (tensor<2xf16>) -> tensor<2xf32>
  %1 = "coreai.decomposable.broadcasting_add"(%0, %eps) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %2 = "coreai.cast"(%1) : (tensor<2xf32>) -> tensor<2xf16>
  %3 = "coreai.cast"(%b) : (tensor<2xf16>) -> tensor<2xf32>
  %4 = "coreai.decomposable.broadcasting_add"(%3, %eps) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %5 = "coreai.cast"(%4) : (tensor<2xf32>) -> tensor<2xf16>
  "coreai.output"(%2, %5) : (tensor<2xf16>, tensor<2xf16>) -> ()
}) : () -> ()`).Graphs[0]
	if len(g.Fp32Islands) != 2 {
		t.Fatalf("%d islands, want 2", len(g.Fp32Islands))
	}
	if n := len(g.Fp32Islands[0].Values); n != 3 {
		t.Errorf("first island has %d values, want 3 (eps, cast, add)", n)
	}
	if n := len(g.Fp32Islands[1].Values); n != 2 {
		t.Errorf("second island has %d values, want 2", n)
	}
}
