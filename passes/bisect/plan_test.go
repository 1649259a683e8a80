package bisect

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes"
)

// fixedArmA writes the default rewrite of testdata/synth/armA.aimodel (as
// `anefix rewrite` does) and returns its path.
func fixedArmA(t *testing.T) string {
	t.Helper()
	ld, err := modelio.Load("../../testdata/synth/armA.aimodel", modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	p, err := passes.Build(passes.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(ld.Module, passes.RunOptions{VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "fixed.aimodel")
	if _, err := modelio.Save(out, ld.Module, ld, modelio.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// The plan for the default rewrite of synth arm A: both strip-fp32-casts
// experiments, every arm-d kind with its regions as fine changes (three
// recurrence layers, two RoPE regions, one SDPA region: no fine change),
// and strip-fp32-casts with its default options left out (the default
// pipeline already ran it).
func TestPlanArmA(t *testing.T) {
	src := Source{Path: fixedArmA(t)}
	plan, err := BuildPlan(src.Loader())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range plan.Changes {
		names = append(names, c.String())
	}
	for _, want := range []string{"strip-fp32-casts islands=norms", "strip-fp32-casts islands=all",
		"arm-d replace=recurrence", "arm-d replace=sdpa", "arm-d replace=rope",
		"arm-d groups=1 replace=recurrence", "arm-d groups=3 replace=recurrence", "arm-d groups=2 replace=rope"} {
		if !slices.Contains(names, want) {
			t.Errorf("plan lacks %q: %q", want, names)
		}
	}
	for _, absent := range []string{"arm-d groups=4 replace=recurrence", "arm-d groups=1 replace=sdpa", "arm-d groups=3 replace=rope"} {
		if slices.Contains(names, absent) {
			t.Errorf("plan has %q", absent)
		}
	}
	for _, name := range []string{"externalize-constant", "states-as-outputs"} {
		_, registered := passes.Lookup(name)
		in := slices.Contains(names, name)
		for _, c := range plan.Ineffective {
			in = in || c.String() == name
		}
		if in != registered {
			t.Errorf("%s: registered %v, in the plan %v", name, registered, in)
		}
	}
	if len(plan.Ineffective) == 0 || plan.Ineffective[0].String() != "strip-fp32-casts" {
		t.Errorf("ineffective %v, want the default strip-fp32-casts first", plan.Ineffective)
	}
	for i := plan.Coarse; i < len(plan.Changes); i++ {
		if r := plan.Changes[i].Refines; r < 0 || r >= plan.Coarse || plan.Changes[r].Pass != "arm-d" {
			t.Errorf("fine change %d refines %d", i, r)
		}
	}
	// Every coarse change together leaves a valid model.
	o, err := src.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	all := make([]int, plan.Coarse)
	for i := range all {
		all[i] = i
	}
	if changed, err := Apply(o.Module, plan.Changes, all); err != nil || !changed {
		t.Fatalf("apply all: %v %v", changed, err)
	}
	if err := graph.Verify(o.Module); err != nil {
		t.Fatal(err)
	}
}
