package passes_test

import (
	"testing"

	"github.com/anefix/anefix/passes"
)

// Option groups replaces only the numbered regions of a kind: on tiny arm A
// (three recurrence regions, one per linear-attention layer) each single
// group replaces fewer ops than all of them, the groups together replace
// what no groups does, and the count note names three regions.
func TestArmDGroups(t *testing.T) {
	opt := func(groups ...int) passes.Options {
		o := passes.Defaults[passes.ArmDOptions]()
		o.Replace, o.Groups = []string{"recurrence"}, groups
		return o
	}
	all := run(t, "arm-d", armA(t, 0), opt())
	if want := passes.ArmDGroupsNote + "recurrence=3"; !containsNote(all.Notes, want) {
		t.Fatalf("notes %q lack %q", all.Notes, want)
	}
	sum := 0
	for _, g := range []int{1, 2, 3} {
		one := run(t, "arm-d", armA(t, 0), opt(g))
		if len(one.Replaced) == 0 || len(one.Replaced) >= len(all.Replaced) {
			t.Errorf("groups=%d replaced %d ops, all groups %d", g, len(one.Replaced), len(all.Replaced))
		}
		sum += len(one.Replaced)
	}
	if sum != len(all.Replaced) {
		t.Errorf("groups 1, 2, 3 replaced %d ops in all, no groups %d", sum, len(all.Replaced))
	}
	if got := run(t, "arm-d", armA(t, 0), opt(1, 2, 3)); len(got.Replaced) != len(all.Replaced) {
		t.Errorf("groups=1,2,3 replaced %d ops, want %d", len(got.Replaced), len(all.Replaced))
	}
	if got := run(t, "arm-d", armA(t, 0), opt(4)); len(got.Replaced) != 0 {
		t.Errorf("groups=4 replaced %d ops, want none", len(got.Replaced))
	}
	p, _ := passes.Lookup("arm-d")
	if _, err := passes.Build(passes.Spec{Passes: []string{"arm-d"}, Set: []string{"arm-d.groups=0"}}); err == nil || p == nil {
		t.Error("groups=0 accepted")
	}
}

func containsNote(notes []string, want string) bool {
	for _, n := range notes {
		if n == want {
			return true
		}
	}
	return false
}
