package anefacts_test

// This test binary links package passes and not the rule model
// (passes/ane), as a program that only rewrites would: the analyses
// strip-fp32-casts' default islands=blockers and finite-masks ask are this
// package's, so they run without passes/ane (no wiring at run time).

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/anefacts"
)

// TestPassesLinkWithoutRuleModel fails when this test binary links
// passes/ane (then the test below would prove nothing), and checks that
// the two passes give their full answers.
func TestPassesLinkWithoutRuleModel(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps", "-test", "-f", "{{.ImportPath}}", "github.com/anefix/anefix/passes/anefacts").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/anefix/anefix/passes/ane" {
			t.Fatal("this test binary links passes/ane; it must link passes alone")
		}
	}

	t.Run("strip-fp32-casts islands=blockers", func(t *testing.T) {
		m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
		if err != nil {
			t.Fatal(err)
		}
		before, err := anefacts.ElementTypeBlockers(m, graph.NewStateScope(graph.StateOptions{}).States)
		if err != nil || len(before) == 0 {
			t.Fatalf("arm A: %d element-type blockers, %v; want some", len(before), err)
		}
		run(t, m, "strip-fp32-casts")
		after, err := anefacts.ElementTypeBlockers(m, graph.NewStateScope(graph.StateOptions{}).States)
		if err != nil || len(after) != 0 {
			t.Errorf("after strip-fp32-casts: %d element-type blockers left, %v", len(after), err)
		}
		// islands=blockers, not all: the norms' and RoPE's fp32 chains stay.
		if graph.ElementTypeCounts(m.Op)["f32"] == 0 {
			t.Error("no f32 left: the pass retyped every island, not the blockers")
		}
	})

	t.Run("finite-masks", func(t *testing.T) {
		m, _, err := mlirtext.Parse("mask.mlir", `module {
  coreai.graph @main(%arg0: tensor<2x2xf16> {coreai.name = "scores"}) -> (tensor<2x2xf16> {coreai.name = "p"}) {
    %0 = coreai.constant dense<"0x000000FC00000000"> : tensor<2x2xf16>
    %1 = coreai.decomposable.broadcasting_add %arg0, %0 : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
    %2 = coreai.constant dense<-1> : tensor<si32>
    %3 = coreai.softmax %1, %2 : (tensor<2x2xf16>, tensor<si32>) -> tensor<2x2xf16>
    coreai.output %3 : tensor<2x2xf16>
  }
}`)
		if err != nil {
			t.Fatal(err)
		}
		if ops, err := anefacts.RangeHazardConstants(m); err != nil || len(ops) != 1 {
			t.Fatalf("before: %d out-of-range constants, %v; want the mask", len(ops), err)
		}
		run(t, m, "finite-masks")
		if ops, err := anefacts.RangeHazardConstants(m); err != nil || len(ops) != 0 {
			t.Errorf("after finite-masks: %d out-of-range constants, %v", len(ops), err)
		}
	})
}

func run(t *testing.T, m *graph.Module, pass string) {
	t.Helper()
	p, err := passes.Build(passes.Spec{Passes: []string{pass}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
		t.Fatalf("%s: %v", pass, err)
	}
}
