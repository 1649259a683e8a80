package bisect

import (
	"path/filepath"
	"slices"
	"strings"
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
	// Every largest set of coarse changes without two values of one
	// option leaves a valid model.
	all := make([]int, plan.Coarse)
	for i := range all {
		all[i] = i
	}
	for _, set := range plan.Maximal(all) {
		o, err := src.Open()
		if err != nil {
			t.Fatal(err)
		}
		if changed, err := Apply(o.Module, plan.Changes, set); err != nil || !changed {
			t.Fatalf("apply %v: %v %v", set, changed, err)
		}
		if err := graph.Verify(o.Module); err != nil {
			t.Fatal(err)
		}
		o.Close()
	}
}

// opCount counts ops named name in m.
func opCount(m *graph.Module, name string) int {
	n := 0
	m.Walk(func(op *graph.Operation) bool {
		if op.Name == name {
			n++
		}
		return true
	})
	return n
}

// Two regions of one arm-d kind in one candidate are one arm-d run
// (groups=1,3): arm-d numbers the regions still there on each run, so
// before, the second run's groups=3 named no region (only two were left)
// and the candidate {groups=1, groups=3} neutralized region 1 alone.
func TestApplyFoldsRegionsOfOneKind(t *testing.T) {
	src := Source{Path: fixedArmA(t)}
	plan, err := BuildPlan(src.Loader())
	if err != nil {
		t.Fatal(err)
	}
	find := func(name string) int {
		for i, c := range plan.Changes {
			if c.String() == name {
				return i
			}
		}
		t.Fatalf("plan lacks %q", name)
		return -1
	}
	g1, g3 := find("arm-d groups=1 replace=recurrence"), find("arm-d groups=3 replace=recurrence")
	sdpa, rope2 := find("arm-d replace=sdpa"), find("arm-d groups=2 replace=rope")
	logs := func(set []int) int {
		o, err := src.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if _, err := Apply(o.Module, plan.Changes, set); err != nil {
			t.Fatal(err)
		}
		return opCount(o.Module, "coreai.log") // one per recurrence layer
	}
	base := logs(nil)
	if got := logs([]int{g1, g3}); got != base-2 {
		t.Errorf("groups=1 + groups=3 of recurrence: %d coreai.log left of %d, want two layers gone", got, base)
	}
	// Folding is by kind: other kinds' changes run on their own beside it.
	if got := logs([]int{g1, g3, sdpa, rope2}); got != base-2 {
		t.Errorf("with sdpa and a rope region: %d coreai.log left of %d", got, base)
	}
	if r := runs(plan.Changes, []int{g3, g1, rope2}); len(r) != 2 || r[0].String() != "arm-d groups=1,3 replace=recurrence" || r[1].String() != "arm-d groups=2 replace=rope" {
		t.Errorf("runs: %v", r)
	}
}

// Two values of one option (strip-fp32-casts islands=norms and
// islands=all) never go into one candidate: Apply refuses the set, and
// Maximal gives one largest set per value.
func TestAlternativesNeverTogether(t *testing.T) {
	src := Source{Path: fixedArmA(t)}
	plan, err := BuildPlan(src.Loader())
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, plan.Coarse)
	for i := range all {
		all[i] = i
	}
	a, b, opt, ok := conflict(plan.Changes, all)
	if !ok || opt != "islands" || plan.Changes[a].String() != "strip-fp32-casts islands=norms" || plan.Changes[b].String() != "strip-fp32-casts islands=all" {
		t.Fatalf("conflict %v %d %d %q", ok, a, b, opt)
	}
	o, err := src.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := Apply(o.Module, plan.Changes, all); err == nil || !strings.Contains(err.Error(), "two values") {
		t.Errorf("Apply of both values: %v", err)
	}
	whole := plan.Maximal(all)
	if len(whole) != 2 {
		t.Fatalf("Maximal: %v", whole)
	}
	for i, s := range whole {
		if _, _, _, bad := conflict(plan.Changes, s); bad || len(s) != plan.Coarse-1 || !slices.Contains(s, []int{a, b}[i]) {
			t.Errorf("maximal set %d: %v", i, s)
		}
	}
	// Neutralizations of one pass never conflict.
	var neut []int
	for i, c := range plan.Changes {
		if c.Role == roleNeutralize {
			neut = append(neut, i)
		}
	}
	if _, _, _, bad := conflict(plan.Changes, neut); bad {
		t.Error("arm-d changes reported as alternatives")
	}
}
