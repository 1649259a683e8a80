package synth

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
)

// armDPass is passes/synthd.ArmD, restated because synthd imports this
// package: the arm-d pass at its defaults. Only tests here import passes;
// the package itself stays below it.
func armDPass(m *graph.Module) error {
	_, err := passes.ArmD(m, nil)
	return err
}

func TestArmDNeedsThePass(t *testing.T) {
	if _, err := Generate(Options{Arm: ArmD}); err == nil || !strings.Contains(err.Error(), "passes/synthd") {
		t.Errorf("Generate(arm D) without the pass = %v, want an error naming passes/synthd", err)
	}
	if _, err := GenerateWith(Options{Arm: ArmA}, func(*graph.Module) error { t.Error("armD called for arm A"); return nil }); err != nil {
		t.Fatal(err)
	}
}
