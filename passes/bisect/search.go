package bisect

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/anefix/anefix/passes/probe"
)

// Results of a bisection.
const (
	ResultMinimal    = "minimal"     // a minimal set was found (exit 0)
	resultInputGood  = "input-good"  // the input without changes already passes (exit 3)
	resultAllBad     = "all-bad"     // every change together still fails (exit 3)
	resultAllSkip    = "all-skip"    // no set passed, and the test could not tell for every change together (exit 3)
	resultBudget     = "budget"      // --max-probes ran out (exit 3)
	ResultNoCompiler = "no-compiler" // the test exited 4 (exit 4)
)

// Report is what Bisect found.
type Report struct {
	Plan    *plan
	Probes  []ProbeRecord
	Minimal []int // indices into Plan.Changes, sorted
	Result  string
	Message string
}

// Bisect searches plan's changes for a smallest set that makes the test
// good. It first asks, as one batch, for the input unchanged and every
// coarse change together, or, when the plan holds alternatives (two values
// of one option, Conflict), every largest set without two of them
// (Plan.Maximal), which are all "every change together" can mean. From the
// first good one ddmin runs over its changes. When none is good but the
// test could not tell on some (skip, timeout), ddmin runs over all the
// coarse changes as over an unresolved set: it splits further instead of
// giving up. A set holding alternatives is never built; it counts as
// unresolved. Then each arm-d kind in the minimal set is narrowed to its
// regions (ddmin over the kind's regions with the rest of the minimal set
// applied), keeping the kind when no set of its regions passes.
func Bisect(src Source, plan *plan, p *Prober) (*Report, error) {
	rep := &Report{Plan: plan}
	memo := map[string]probe.Outcome{}
	test := func(sets [][]int) ([]probe.Outcome, error) {
		out := make([]probe.Outcome, len(sets))
		var cands []Candidate
		var at []int
		for i, s := range sets {
			if o, ok := memo[setKey(s)]; ok {
				out[i] = o
				continue
			}
			if _, _, _, ok := conflict(plan.Changes, s); ok {
				out[i] = probe.Skip // never built: two values of one option
				memo[setKey(s)] = probe.Skip
				continue
			}
			s := s
			cands = append(cands, Candidate{Set: s, Build: func(path string) error { return build(src, plan.Changes, s, path) }})
			at = append(at, i)
		}
		if len(cands) == 0 {
			return out, nil
		}
		res, err := p.Test(cands)
		for j, r := range res {
			out[at[j]] = r.Outcome
			if r.Outcome != 0 {
				memo[setKey(cands[j].Set)] = r.Outcome
			}
		}
		return out, err
	}
	finish := func(err error) (*Report, error) {
		rep.Probes = p.Probes
		switch {
		case errors.Is(err, probe.ErrNoCompiler):
			rep.Result, rep.Message = ResultNoCompiler, "the test exited 4 (compiler unavailable); stopped at once"
			return rep, nil
		case errors.Is(err, probe.ErrBudget):
			rep.Result = resultBudget
			rep.Message = fmt.Sprintf("--max-probes used up; smallest passing set so far: %s", names(plan, rep.Minimal))
			return rep, nil
		}
		return rep, err
	}
	coarse := make([]int, plan.Coarse)
	for i := range coarse {
		coarse[i] = i
	}
	if len(coarse) == 0 {
		return rep, fmt.Errorf("no candidate change does anything to this input")
	}
	whole := plan.Maximal(coarse)
	res, err := test(append([][]int{{}}, whole...))
	if err != nil {
		return finish(err)
	}
	if res[0] == probe.Good {
		rep.Result, rep.Message = resultInputGood, "the input itself already passes the test (no change needed)"
		return finish(nil)
	}
	together := "every change together"
	if len(whole) > 1 {
		together = fmt.Sprintf("every change together (each of the %d sets holding one value per option)", len(whole))
	}
	first, unresolved := -1, 0
	for i, r := range res[1:] {
		switch {
		case r == probe.Good && first < 0:
			first = i
		case r == probe.Skip || r == probe.Timeout:
			unresolved++
		}
	}
	if first < 0 && unresolved == 0 {
		rep.Result, rep.Message = resultAllBad, "the test still fails with "+together+" applied"
		return finish(nil)
	}
	// ddmin over every coarse change. Their union is a candidate known
	// good only when the plan has no alternatives; else (alternatives, or
	// the test could not tell) ddmin starts from it as from an unresolved
	// test. When that finds nothing, the first good largest set is a
	// start known good.
	best, found, err := ddMin(coarse, nil, len(whole) == 1 && first == 0, test)
	if err == nil && !found && first >= 0 {
		best, found, err = ddMin(whole[first], nil, true, test)
	}
	if best == nil && first >= 0 {
		best = whole[first] // known good, for --max-probes' message
	}
	rep.Minimal = best
	if err != nil {
		return finish(err)
	}
	if !found {
		rep.Result = resultAllSkip
		rep.Message = fmt.Sprintf("no set of changes passed: the test could not tell (skip or timeout) for %s, and no smaller set it was asked about passed", together)
		return finish(nil)
	}
	// Narrow each arm-d kind to its regions.
	for _, i := range slices.Clone(rep.Minimal) {
		kids := plan.Children(i)
		if len(kids) == 0 {
			continue
		}
		fixed := minus(rep.Minimal, []int{i})
		res, err := test([][]int{union(kids, fixed)})
		if err != nil {
			return finish(err)
		}
		var sub []int
		var ok bool
		switch res[0] {
		case probe.Good:
			sub, ok, err = ddMin(kids, fixed, true, test)
		case probe.Skip, probe.Timeout:
			sub, ok, err = ddMin(kids, fixed, false, test)
		default:
			continue
		}
		if err != nil {
			return finish(err)
		}
		if ok {
			rep.Minimal = union(fixed, sub)
		}
	}
	rep.Result = ResultMinimal
	rep.Message = "smallest set found: " + names(plan, rep.Minimal)
	return finish(nil)
}

// build writes IN with the changes set applied at path.
func build(src Source, all []Change, set []int, path string) error {
	o, err := src.Open()
	if err != nil {
		return err
	}
	defer o.Close()
	if _, err := Apply(o.Module, all, set); err != nil {
		return err
	}
	return o.Save(path)
}

func setKey(s []int) string { return fmt.Sprint(s) }

func names(plan *plan, set []int) string {
	if len(set) == 0 {
		return "(none)"
	}
	var out []string
	for _, i := range set {
		out = append(out, plan.Changes[i].String())
	}
	return strings.Join(out, "; ")
}
