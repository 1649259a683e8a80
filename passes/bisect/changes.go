// Package bisect finds a smallest set of changes (pass runs with options)
// that makes a user's test pass on a model: `anefix bisect`. The changes
// are the experiments for the Neural Engine blockers the compiler does not
// name (passes/ane's suspects) plus finer neutralizations (the arm-d pass
// per region kind, then per region), searched by delta debugging (ddmin.go)
// with a test command run by passes/probe. Apply builds one candidate and
// refuses a set holding two values of one option.
package bisect

import (
	"fmt"
	"slices"
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
	// Fold names the list option whose values this change adds to another
	// change of the same pass in one candidate whose other options are the
	// same: the two run as one pass run (runs). arm-d's regions fold on
	// groups, because arm-d numbers the regions still there on each run:
	// after `groups=1` a second run's `groups=3` names another region, or
	// none. "" for a change that runs on its own.
	Fold string
}

// Roles.
const (
	roleExperiment = "experiment"
	roleNeutralize = "neutralize"
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

// experiments are the named experiments, in search order. A pass that is
// not registered is skipped (externalize-constant and states-as-outputs
// plug in by name).
var experiments = []Change{
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

// loader returns a fresh copy of the input module each call, and a
// function to release it.
type loader func() (*graph.Module, func(), error)

// Apply runs the changes set (indices into all) on m in pipeline order
// (passes.Names(), then index), as one-pass pipelines with verification
// (changes that fold run as one, see Change.Fold), then dce. It returns
// whether any change did anything. A set holding two alternatives
// (Conflict) is an error: such a candidate is never built.
func Apply(m *graph.Module, all []Change, set []int) (bool, error) {
	if a, b, opt, ok := conflict(all, set); ok {
		return false, fmt.Errorf("changes %q and %q set option %s of one pass to two values; a candidate holds at most one of them", all[a], all[b], opt)
	}
	changed := false
	for _, c := range runs(all, set) {
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

// runs lists the pass runs that apply set: its changes in pipeline order
// (passes.Names(), then index), a change with Fold merged into the first
// earlier run of its pass that has the same Fold and the same other
// options (its Fold values appended, each once).
func runs(all []Change, set []int) []Change {
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
	var out []Change
	at := map[string]int{} // fold key → index in out
	for _, i := range s {
		c := all[i]
		if c.Fold == "" {
			out = append(out, c)
			continue
		}
		var rest, vals []string
		for _, o := range c.Options {
			if name, v, _ := strings.Cut(o, "="); name == c.Fold {
				vals = append(vals, strings.Split(v, ",")...)
			} else {
				rest = append(rest, o)
			}
		}
		key := c.Pass + "\x00" + c.Fold + "\x00" + strings.Join(rest, "\x00")
		j, ok := at[key]
		if !ok {
			at[key] = len(out)
			out = append(out, Change{Pass: c.Pass, Options: append([]string{c.Fold + "=" + strings.Join(vals, ",")}, rest...), Role: c.Role, Refines: c.Refines, Fold: c.Fold})
			continue
		}
		old, _ := strings.CutPrefix(out[j].Options[0], c.Fold+"=")
		have := strings.Split(old, ",")
		for _, v := range vals {
			if !slices.Contains(have, v) {
				have = append(have, v)
			}
		}
		out[j].Options[0] = c.Fold + "=" + strings.Join(have, ",")
	}
	return out
}

// conflict finds two alternatives in set: experiments of one pass, which
// set one of its options to two values (strip-fp32-casts islands=norms and
// islands=all; the pass's defaults count as values). It returns them and
// the first option (in the pass's order) on which they differ.
// Neutralizations never conflict: each names regions no other change of
// its pass names, and those of one kind fold (Change.Fold).
func conflict(all []Change, set []int) (a, b int, option string, ok bool) {
	for x := 0; x < len(set); x++ {
		for y := x + 1; y < len(set); y++ {
			if opt := differ(all[set[x]], all[set[y]]); opt != "" {
				return set[x], set[y], opt, true
			}
		}
	}
	return 0, 0, "", false
}

// differ is the first option two experiments of one pass give different
// values, or "".
func differ(c, d Change) string {
	if c.Pass != d.Pass || c.Role != roleExperiment || d.Role != roleExperiment {
		return ""
	}
	ec, ed := effective(c), effective(d)
	for i := range ec {
		if ec[i] != ed[i] {
			name, _, _ := strings.Cut(ec[i], "=")
			return name
		}
	}
	return ""
}

// effective lists every option of c's pass as "name=value": c's own value
// (the last one it sets), else the option's default.
func effective(c Change) []string {
	p, ok := passes.Lookup(c.Pass)
	if !ok {
		return nil
	}
	var out []string
	for _, spec := range p.Options() {
		v := spec.Default
		for _, o := range c.Options {
			if name, val, _ := strings.Cut(o, "="); name == spec.Name {
				v = val
			}
		}
		out = append(out, spec.Name+"="+v)
	}
	return out
}

// Maximal lists the largest subsets of items without two alternatives
// (Conflict): one per choice of one value for each pass whose experiments
// among items set an option to several, in plan order (the first
// experiment of the first such pass first). Without alternatives it is
// items alone.
func (p *plan) Maximal(items []int) [][]int {
	type alt struct {
		pass string
		keys []string // distinct effective options, in plan order
	}
	var alts []*alt
	byPass := map[string]*alt{}
	keyOf := map[int]string{}
	for _, i := range items {
		c := p.Changes[i]
		if c.Role != roleExperiment {
			continue
		}
		k := strings.Join(effective(c), "\x00")
		keyOf[i] = k
		a := byPass[c.Pass]
		if a == nil {
			a = &alt{pass: c.Pass}
			byPass[c.Pass] = a
			alts = append(alts, a)
		}
		if !slices.Contains(a.keys, k) {
			a.keys = append(a.keys, k)
		}
	}
	var multi []*alt
	for _, a := range alts {
		if len(a.keys) > 1 {
			multi = append(multi, a)
		}
	}
	var out [][]int
	choice := make([]int, len(multi))
	for {
		pick := map[string]string{}
		for j, a := range multi {
			pick[a.pass] = a.keys[choice[j]]
		}
		var set []int
		for _, i := range items {
			c := p.Changes[i]
			if k, ok := pick[c.Pass]; ok && c.Role == roleExperiment && keyOf[i] != k {
				continue
			}
			set = append(set, i)
		}
		out = append(out, set)
		// The next choice, the last pass's value turning fastest.
		j := len(multi) - 1
		for ; j >= 0; j-- {
			if choice[j]++; choice[j] < len(multi[j].keys) {
				break
			}
			choice[j] = 0
		}
		if j < 0 {
			return out
		}
	}
}

// did reports whether a pass run changed anything.
func did(c *passes.Change) bool {
	return c != nil && (c.OpsRemoved+c.OpsAdded+c.OpsRetyped > 0 || len(c.IOChanges)+len(c.Constants)+len(c.States)+len(c.Replaced) > 0)
}

// plan is the candidate change list for one input.
type plan struct {
	Changes []Change
	// Coarse is how many of Changes are coarse (the rest refine them).
	Coarse int
	// Ineffective lists changes left out because alone they changed
	// nothing, or their pass refused the input.
	Ineffective []Change
}

// Children lists the fine changes that refine coarse change i.
func (p *plan) Children(i int) []int {
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
// nothing, or whose pass refuses the input, is dropped (into Ineffective).
func BuildPlan(load loader) (*plan, error) {
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
	for _, c := range experiments {
		c.Role = roleExperiment
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
			add(Change{Pass: fix, Role: roleExperiment})
		}
	}
	for _, k := range armDKinds() {
		add(Change{Pass: "arm-d", Options: []string{"replace=" + k}, Role: roleNeutralize})
	}

	plan := &plan{}
	var fine []Change
	for _, c := range coarse {
		m, done, err := load()
		if err != nil {
			return nil, err
		}
		changed, notes, err := applyAlone(m, c)
		done()
		// A pass that refuses this input alone (externalize-constant
		// without a tied table) changes nothing here either.
		if err != nil || !changed {
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
				Role: roleNeutralize, Refines: idx, Fold: "groups"})
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
