// Package bisect finds a smallest set of changes (pass runs with options)
// that makes a user's test pass on a model: `anefix bisect`. The changes
// are the experiments for the Neural Engine blockers the compiler does not
// name (passes/ane's suspects) plus finer neutralizations (the arm-d pass
// per region kind, then per region), searched by delta debugging (ddmin.go)
// with a test command run by passes/probe.
package bisect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
)

// Change is one candidate change: pass Pass run with Options ("name=value",
// as --set reads them) on top of the defaults.
type Change struct {
	Pass    string
	Options []string
	// Role is "experiment" (a named experiment or a suspect's fix) or
	// "neutralize" (arm-d on one region kind or one region).
	Role string
	// Refines is the index of the coarse change this fine change narrows
	// (one arm-d region of a kind), or -1.
	Refines int
}

// Roles.
const (
	RoleExperiment = "experiment"
	RoleNeutralize = "neutralize"
)

// String names the change: "strip-fp32-casts islands=all".
func (c Change) String() string {
	if len(c.Options) == 0 {
		return c.Pass
	}
	return c.Pass + " " + strings.Join(c.Options, " ")
}

// Flags are the `anefix rewrite` flags that apply the change alone on top
// of the input (rewrite's default pipeline would run the other passes too;
// --passes runs exactly this one).
func (c Change) Flags() string {
	s := "--passes " + c.Pass
	for _, o := range c.Options {
		s += " --set " + c.Pass + "." + o
	}
	return s
}

// Experiments are the named experiments, in search order. A pass that is
// not registered is skipped (externalize-constant and states-as-outputs
// plug in by name).
var Experiments = []Change{
	{Pass: "strip-fp32-casts", Options: []string{"islands=norms"}},
	{Pass: "strip-fp32-casts", Options: []string{"islands=all"}},
	{Pass: "externalize-constant"},
	{Pass: "states-as-outputs"},
}

// armDKinds are the region kinds arm-d neutralizes one at a time, in order.
// They are arm-d's default replace list.
func armDKinds() []string {
	return passes.Defaults[passes.ArmDOptions]().Replace
}

// Loader returns a fresh copy of the input module each call, and a
// function to release it.
type Loader func() (*graph.Module, func(), error)

// Apply runs the changes set (indices into all) on m in pipeline order
// (passes.Names(), then index), each as a one-pass pipeline with verification,
// then dce. It returns whether any change did anything.
func Apply(m *graph.Module, all []Change, set []int) (bool, error) {
	order := map[string]int{}
	for i, n := range passes.Names() {
		order[n] = i
	}
	s := append([]int(nil), set...)
	sort.SliceStable(s, func(a, b int) bool {
		pa, pb := order[all[s[a]].Pass], order[all[s[b]].Pass]
		if pa != pb {
			return pa < pb
		}
		return s[a] < s[b]
	})
	changed := false
	for _, i := range s {
		c := all[i]
		var set []string
		for _, o := range c.Options {
			set = append(set, c.Pass+"."+o)
		}
		p, err := passes.Build(passes.Spec{Passes: []string{c.Pass}, Set: set})
		if err != nil {
			return false, fmt.Errorf("change %q: %w", c, err)
		}
		res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
		if err != nil {
			return false, fmt.Errorf("change %q: %w", c, err)
		}
		for _, st := range res.Steps {
			changed = changed || did(st.Change)
		}
	}
	if _, ok := passes.Lookup("dce"); ok {
		p, err := passes.Build(passes.Spec{Passes: []string{"dce"}})
		if err != nil {
			return false, err
		}
		if _, err := p.Run(m, passes.RunOptions{VerifyEach: true}); err != nil {
			return false, err
		}
	}
	return changed, nil
}

// did reports whether a pass run changed anything.
func did(c *passes.Change) bool {
	return c != nil && (c.OpsRemoved+c.OpsAdded+c.OpsRetyped > 0 || len(c.IOChanges)+len(c.Constants)+len(c.States)+len(c.Replaced) > 0)
}

// Plan is the candidate change list for one input.
type Plan struct {
	Changes []Change
	// Coarse is how many of Changes are coarse (the rest refine them).
	Coarse int
	// Ineffective lists changes left out because alone they changed
	// nothing.
	Ineffective []Change
}

// Children lists the fine changes that refine coarse change i.
func (p *Plan) Children(i int) []int {
	var out []int
	for j := p.Coarse; j < len(p.Changes); j++ {
		if p.Changes[j].Refines == i {
			out = append(out, j)
		}
	}
	return out
}

// BuildPlan lists the changes for the input load returns: the experiments,
// the fix pass of every suspect passes/ane's check lists (when not already
// there), then arm-d per region kind, and per region for a kind with more
// than one. Each is tried alone once on a fresh copy; one that changes
// nothing is dropped (into Ineffective).
func BuildPlan(load Loader) (*Plan, error) {
	var coarse []Change
	seen := map[string]bool{}
	add := func(c Change) {
		if _, ok := passes.Lookup(c.Pass); !ok || seen[c.String()] {
			return
		}
		seen[c.String()] = true
		c.Refines = -1
		coarse = append(coarse, c)
	}
	for _, c := range Experiments {
		c.Role = RoleExperiment
		add(c)
	}
	m, done, err := load()
	if err != nil {
		return nil, err
	}
	rep, err := ane.CheckWith(m, ane.Options{NoHazards: true})
	done()
	if err != nil {
		return nil, err
	}
	for _, f := range rep.AllSuspects() {
		if fix := f.FixPass(); fix != "" {
			add(Change{Pass: fix, Role: RoleExperiment})
		}
	}
	for _, k := range armDKinds() {
		add(Change{Pass: "arm-d", Options: []string{"replace=" + k}, Role: RoleNeutralize})
	}

	plan := &Plan{}
	var fine []Change
	for _, c := range coarse {
		m, done, err := load()
		if err != nil {
			return nil, err
		}
		changed, notes, err := applyAlone(m, c)
		done()
		if err != nil {
			return nil, err
		}
		if !changed {
			plan.Ineffective = append(plan.Ineffective, c)
			continue
		}
		idx := len(plan.Changes)
		plan.Changes = append(plan.Changes, c)
		if c.Pass != "arm-d" {
			continue
		}
		kind := strings.TrimPrefix(c.Options[0], "replace=")
		for g := 1; g <= armDCount(notes, kind) && armDCount(notes, kind) > 1; g++ {
			fine = append(fine, Change{Pass: "arm-d", Options: []string{"groups=" + strconv.Itoa(g), c.Options[0]},
				Role: RoleNeutralize, Refines: idx})
		}
	}
	plan.Coarse = len(plan.Changes)
	plan.Changes = append(plan.Changes, fine...)
	return plan, nil
}

// applyAlone runs c on m and returns whether it changed anything and the
// pass's notes.
func applyAlone(m *graph.Module, c Change) (bool, []string, error) {
	var set []string
	for _, o := range c.Options {
		set = append(set, c.Pass+"."+o)
	}
	p, err := passes.Build(passes.Spec{Passes: []string{c.Pass}, Set: set})
	if err != nil {
		return false, nil, fmt.Errorf("change %q: %w", c, err)
	}
	res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
	if err != nil {
		return false, nil, fmt.Errorf("change %q: %w", c, err)
	}
	ch := res.Steps[0].Change
	return did(ch), ch.Notes, nil
}

// armDCount reads how many regions of kind arm-d found from its note.
func armDCount(notes []string, kind string) int {
	for _, n := range notes {
		rest, ok := strings.CutPrefix(n, passes.ArmDGroupsNote)
		if !ok {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok && k == kind {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
	}
	return 0
}
