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
	ResultInputGood  = "input-good"  // the input without changes already passes (exit 3)
	ResultAllBad     = "all-bad"     // every change together still fails (exit 3)
	ResultAllSkip    = "all-skip"    // the test could not tell for every change together (exit 3)
	ResultBudget     = "budget"      // --max-probes ran out (exit 3)
	ResultNoCompiler = "no-compiler" // the test exited 4 (exit 4)
)

// Report is what Bisect found.
type Report struct {
	Plan    *Plan
	Probes  []ProbeRecord
	Minimal []int // indices into Plan.Changes, sorted
	Result  string
	Message string
}

// Bisect searches plan's changes for a smallest set that makes the test
// good. It first asks for the input unchanged and every coarse change
// together (one batch), then runs ddmin over the coarse changes, then
// narrows each arm-d kind in the minimal set to its regions (ddmin over the
// kind's regions with the rest of the minimal set applied), keeping the
// kind when its regions one by one do not pass together.
func Bisect(src Source, plan *Plan, p *Prober) (*Report, error) {
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
			rep.Result = ResultBudget
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
	res, err := test([][]int{{}, coarse})
	if err != nil {
		return finish(err)
	}
	switch {
	case res[0] == probe.Good:
		rep.Result, rep.Message = ResultInputGood, "the input itself already passes the test (no change needed)"
		return finish(nil)
	case res[1] == probe.Skip || res[1] == probe.Timeout:
		rep.Result, rep.Message = ResultAllSkip, fmt.Sprintf("the test could not tell (%s) for every change together", res[1])
		return finish(nil)
	case res[1] != probe.Good:
		rep.Result, rep.Message = ResultAllBad, "the test still fails with every change applied together"
		return finish(nil)
	}
	rep.Minimal = coarse
	min, err := DDMin(coarse, nil, test)
	rep.Minimal = min
	if err != nil {
		return finish(err)
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
		if res[0] != probe.Good {
			continue
		}
		sub, err := DDMin(kids, fixed, test)
		if err != nil {
			return finish(err)
		}
		rep.Minimal = union(fixed, sub)
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

func names(plan *Plan, set []int) string {
	if len(set) == 0 {
		return "(none)"
	}
	var out []string
	for _, i := range set {
		out = append(out, plan.Changes[i].String())
	}
	return strings.Join(out, "; ")
}
