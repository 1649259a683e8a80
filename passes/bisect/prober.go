package bisect

import (
	"context"
	"errors"

	"github.com/anefix/anefix/passes/probe"
)

// Candidate is one model to probe: Build writes it at a path.
type Candidate struct {
	Set   []int  // bisect: the changes applied
	Step  string // reduce: what the step tries
	Build func(path string) error
}

// ErrSkipCandidate, returned by a Candidate's Build, leaves it out of the
// batch unprobed (it would change nothing or leave an invalid model).
var ErrSkipCandidate = errors.New("candidate left out")

// ProbeRecord is one answered probe, for the report.
type ProbeRecord struct {
	Set    []int
	Step   string
	Result probe.Result
}

// Prober writes candidates into a work directory, runs the test on them
// in batches and records every answer.
type Prober struct {
	Ctx    context.Context
	Runner *probe.Runner
	Work   *workdir
	// Progress, when set, is told after each batch the probes answered so
	// far and how many of them ran the test and came from the cache.
	Progress func(probes, run, cached int)
	Probes   []ProbeRecord
}

// Test builds every candidate (one after another, so the bytes do not
// depend on -j), probes them as one batch and returns the results in
// order. Unanswered results (budget used up, stopped) have Outcome 0.
func (p *Prober) Test(cands []Candidate) ([]probe.Result, error) {
	paths := make([]string, len(cands))
	defer func() {
		for _, q := range paths {
			if q != "" {
				p.Work.Remove(q)
			}
		}
	}()
	var run []string
	var at []int
	for i, c := range cands {
		paths[i] = p.Work.Next()
		err := c.Build(paths[i])
		if errors.Is(err, ErrSkipCandidate) {
			p.Work.Remove(paths[i])
			paths[i] = ""
			continue
		}
		if err != nil {
			return nil, err
		}
		run = append(run, paths[i])
		at = append(at, i)
	}
	out := make([]probe.Result, len(cands))
	if len(run) == 0 {
		return out, nil
	}
	ctx := p.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := p.Runner.Run(ctx, run)
	for j, r := range res {
		i := at[j]
		out[i] = r
		if r.Outcome != 0 {
			p.Probes = append(p.Probes, ProbeRecord{Set: cands[i].Set, Step: cands[i].Step, Result: r})
		}
	}
	if p.Progress != nil {
		run, hit := p.Runner.Counts()
		p.Progress(len(p.Probes), run, hit)
	}
	return out, err
}
