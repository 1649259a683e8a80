// Package reduce shrinks a model while a user's test still holds (`anefix
// reduce`), for bug reports: it drops whole graphs, replaces ops by
// constants or by pass-throughs of one of their operands, and shrinks
// constants to splats, keeping a model of the input's kind that passes
// graph.Verify at every step. Steps are tried in chunks, delta-debugging
// style, through passes/bisect's Prober.
package reduce

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/bisect"
	"github.com/anefix/anefix/passes/probe"
)

// Step kinds, in the order they are tried.
const (
	kindDropGraph      = "drop-graph"
	kindToConstant     = "to-constant"
	kindPassThrough    = "pass-through"
	kindShrinkConstant = "shrink-constant"
)

// kinds lists the step kinds in order.
var kinds = []string{kindDropGraph, kindToConstant, kindPassThrough, kindShrinkConstant}

// Results.
const (
	ResultReduced    = "reduced"     // OUT is the smallest model found (exit 0)
	resultInputBad   = "input-bad"   // the test does not hold on the input (exit 3)
	resultBudget     = "budget"      // --max-probes ran out; OUT is the smallest so far (exit 3)
	ResultNoCompiler = "no-compiler" // the test exited 4 (exit 4)
)

// step is one accepted shrinking step.
type step struct {
	Kind                string
	Targets             []string // op ids (or "#n op-name" without one), graph names
	OpsBefore, OpsAfter int
}

// Report is what Reduce did.
type Report struct {
	Steps               []step
	OpsBefore, OpsAfter int
	Remaining           map[string]int // op name → count in the result
	Result, Message     string
	Probes              []bisect.ProbeRecord
}

// Reduce shrinks the model at src.Path and leaves the smallest passing
// model at best (a path inside work's directory, of the input's kind).
func Reduce(src bisect.Source, p *bisect.Prober) (*Report, string, error) {
	rep := &Report{}
	cur := src
	curOps, err := countOps(cur)
	if err != nil {
		return nil, "", err
	}
	rep.OpsBefore = curOps
	finish := func(err error) (*Report, string, error) {
		rep.Probes, rep.OpsAfter = p.Probes, curOps
		if err == nil || errors.Is(err, probe.ErrBudget) || errors.Is(err, probe.ErrNoCompiler) {
			o, oerr := cur.Open()
			if oerr != nil {
				return rep, "", oerr
			}
			rep.Remaining = opCounts(o.Module)
			o.Close()
		}
		switch {
		case errors.Is(err, probe.ErrBudget):
			rep.Result, rep.Message = resultBudget, "--max-probes used up; the output is the smallest model found so far"
			return rep, cur.Path, nil
		case errors.Is(err, probe.ErrNoCompiler):
			rep.Result, rep.Message = ResultNoCompiler, "the test exited 4 (compiler unavailable); stopped at once"
			return rep, "", nil
		case err != nil:
			return rep, "", err
		case rep.Result == resultInputBad:
			return rep, "", nil
		}
		return rep, cur.Path, nil
	}
	// The input must reproduce, as a copy written like every candidate.
	res, err := p.Test([]bisect.Candidate{{Step: "input", Build: func(path string) error {
		o, err := cur.Open()
		if err != nil {
			return err
		}
		defer o.Close()
		return o.Save(path)
	}}})
	if err != nil {
		return finish(err)
	}
	if res[0].Outcome != probe.Good {
		rep.Result = resultInputBad
		rep.Message = fmt.Sprintf("the test does not hold on the input (%s, exit %d): nothing to reduce", res[0].Outcome, res[0].ExitCode)
		return finish(nil)
	}
	gen := 0
	accept := func(kind string, targets []int) error {
		gen++
		next := filepath.Join(p.Work.Dir(), fmt.Sprintf("best%d-%s", gen, filepath.Base(src.Path)))
		names, n, err := apply(cur, kind, targets, next)
		if err != nil {
			return err
		}
		rep.Steps = append(rep.Steps, step{Kind: kind, Targets: names, OpsBefore: curOps, OpsAfter: n})
		if cur.Path != src.Path {
			os.RemoveAll(cur.Path)
		}
		cur, curOps = bisect.Source{Path: next}, n
		return nil
	}
	for _, kind := range kinds {
		if err := shrink(kind, &cur, &curOps, p, accept); err != nil {
			return finish(err)
		}
	}
	rep.Result = ResultReduced
	rep.Message = fmt.Sprintf("%d ops → %d", rep.OpsBefore, curOps)
	return finish(nil)
}

// shrink runs the chunked search for one step kind until no chunk of
// targets can be applied: targets are split into n parts (n = 2, 4, …);
// every part is tried in one batch; the union of the good parts is tried
// next and accepted when good, else the first good part alone; then the
// targets are listed again on the new model.
func shrink(kind string, cur *bisect.Source, curOps *int, p *bisect.Prober, accept func(string, []int) error) error {
	for {
		targets, err := eligible(*cur, kind)
		if err != nil {
			return err
		}
		accepted := false
		for n := 2; len(targets) > 0; {
			n = min(n, len(targets))
			parts := bisect.Split(targets, n)
			good, err := tryParts(kind, *cur, *curOps, parts, p)
			if err != nil {
				return err
			}
			if len(good) > 0 {
				pick := parts[good[0]]
				if len(good) > 1 {
					var all []int
					for _, g := range good {
						all = append(all, parts[g]...)
					}
					slices.Sort(all)
					ok, err := tryParts(kind, *cur, *curOps, [][]int{all}, p)
					if err != nil {
						return err
					}
					if len(ok) == 1 {
						pick = all
					}
				}
				if err := accept(kind, pick); err != nil {
					return err
				}
				accepted = true
				break
			}
			if n >= len(targets) {
				break
			}
			n *= 2
		}
		if !accepted {
			return nil
		}
	}
}

// tryParts probes kind applied to each part on cur and returns the indices
// of the good ones. A part that changes nothing, would leave an invalid
// model, or (but for shrink-constant) does not lower the op count is not
// probed.
func tryParts(kind string, cur bisect.Source, curOps int, parts [][]int, p *bisect.Prober) ([]int, error) {
	cands := make([]bisect.Candidate, len(parts))
	for i, part := range parts {
		part := part
		cands[i] = bisect.Candidate{Step: fmt.Sprintf("%s %d target(s)", kind, len(part)), Build: func(path string) error {
			_, n, err := apply(cur, kind, part, path)
			if err == nil && n >= curOps && kind != kindShrinkConstant {
				os.RemoveAll(path)
				return bisect.ErrSkipCandidate
			}
			return err
		}}
	}
	res, err := p.Test(cands)
	if err != nil {
		return nil, err
	}
	var good []int
	for j, r := range res {
		if r.Outcome == probe.Good {
			good = append(good, j)
		}
	}
	return good, nil
}

// countOps is the module's op count (graph.Module.NumOps) of the model at
// src.
func countOps(src bisect.Source) (int, error) {
	o, err := src.Open()
	if err != nil {
		return 0, err
	}
	defer o.Close()
	return o.Module.NumOps(), nil
}

func opCounts(m *graph.Module) map[string]int {
	out := map[string]int{}
	m.Walk(func(op *graph.Operation) bool {
		if op != m.Op {
			out[op.Name]++
		}
		return true
	})
	return out
}

// SortedCounts lists counts by op name.
func SortedCounts(c map[string]int) []string {
	var names []string
	for n := range c {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Save copies the model at path to out (the user's output, with --force
// rules as bundle.Write has them).
func Save(path, out string, force bool) error {
	o, err := bisect.Source{Path: path}.Open()
	if err != nil {
		return err
	}
	defer o.Close()
	return o.SaveForce(out, force)
}
