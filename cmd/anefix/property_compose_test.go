package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/graph/synth/expect"
	"github.com/anefix/anefix/passes"
)

// Pass composition: every subset of the passes that are off by default,
// switched on with --enable in the default pipeline, on every synth arm and
// a sample of every other source. Whenever rewrite exits 0 its output must
// read back (P4) and verify must run (P5); rewrite itself must keep P1.
//
//	C1  rewrite IN -o OUT --enable SUBSET exits 0, or 1 naming the pass
//	    that refused (or an op); a pass refuses exactly the inputs whose
//	    generator says it must (propCase.Expect.Refuses, with why) and
//	    accepts every other one it runs on
//	C4  OUT reads back and mlir-opt 22 accepts its generic form
//	C5  verify IN OUT --steps 4 exits 0 or 3
//
// and, over the whole run, per pass: how many inputs it accepted and
// refused. A pass that accepts none of the inputs it ran on fails, and so
// does a pass that never ran.
//
// CI runs three subsets per input (two passes alone, rotating over the
// inputs so that every pass runs alone on some synth arm, and all of them);
// ANEFIX_FULL_SWEEP=1 runs every subset on every input.

// offPasses are the passes the default pipeline leaves off, in table order.
func offPasses() []string {
	var off []string
	for _, n := range passes.Names() {
		if p, _ := passes.Lookup(n); !p.DefaultOn {
			off = append(off, n)
		}
	}
	return off
}

// subset is the passes of mask's bits, in table order.
func subset(off []string, mask int) []string {
	var s []string
	for i, n := range off {
		if mask&(1<<i) != 0 {
			s = append(s, n)
		}
	}
	return s
}

// pipelineWith is the default pipeline with extra passes on, in table order
// (what rewrite --enable runs).
func pipelineWith(extra []string) []string {
	on := defaultOn()
	for _, e := range extra {
		on[e] = true
	}
	var p []string
	for _, n := range passes.Names() {
		if on[n] {
			p = append(p, n)
		}
	}
	return p
}

// refusedMask is the bits of off the input's generator says must refuse it.
func refusedMask(off []string, e expect.Expect) int {
	m := 0
	for i, n := range off {
		if _, ok := e.Refuses[n]; ok {
			m |= 1 << i
		}
	}
	return m
}

// compositionMasks are the subsets input j gets. The sample's "all" leaves
// out the passes that must refuse the input (refused, bits of off): their
// refusal would stop the pipeline before the passes after them, which
// then never run on it; alone they still run.
func compositionMasks(j, k, refused int) []int {
	all := (1<<k - 1) &^ refused
	if fullSweep() {
		m := make([]int, 1<<k)
		for i := range m {
			m[i] = i
		}
		return m
	}
	// Two passes alone, j and j+6 (mod k), so the 6 synth arms between
	// them run every one of up to 12 off-by-default passes alone.
	if a, b := j%k, (j+6)%k; a != b {
		return []int{1 << a, 1 << b, all}
	}
	return []int{1 << (j % k), all}
}

// compositionCases are a source's Compose inputs, else the first of its
// sample (3 in CI, 8 in the full sweep).
func compositionCases(src caseSource) []propCase {
	if src.Compose != nil {
		return src.Compose()
	}
	cs := src.Sample()
	return cs[:min(compositionSample(), len(cs))]
}

func compositionSample() int {
	if fullSweep() {
		return 8
	}
	return 3
}

func TestPassComposition(t *testing.T) {
	mlirOpt := oracle.MlirOpts[1].Require(t)
	load := loadAvg1()
	off := offPasses()
	if len(off) == 0 || len(off) > 10 {
		t.Fatalf("off-by-default passes: %v", off)
	}
	ty := &tally{cases: map[string]int{}}
	pt := passTally{}
	sourcesRun := 0
	for _, src := range caseSources {
		t.Run(src.Name, func(t *testing.T) {
			sourcesRun++
			for j, pc := range compositionCases(src) {
				t.Run(pc.Name, func(t *testing.T) {
					dir := caseDir(t, "compose-"+src.Name, pc.Name)
					in, err := pc.Write(dir)
					if err != nil {
						t.Fatalf("writing the case: %v", err)
					}
					for _, mask := range compositionMasks(j, len(off), refusedMask(off, pc.Expect)) {
						extra := subset(off, mask)
						if err := passes.CheckOrder(pipelineWith(extra)); err != nil {
							t.Errorf("--enable %s gives a pipeline CheckOrder refuses: %v", strings.Join(extra, ","), err)
							continue
						}
						name := pc.Name + "+default"
						if len(extra) > 0 {
							name = pc.Name + "+" + strings.Join(extra, "+")
						}
						c := &checker{t: t, test: runPattern("TestPassComposition", src.Name, pc.Name), source: src.Name, name: name, size: sizeOf(in), mlirOpt: mlirOpt}
						out := outPath(dir, in, fmt.Sprintf("out-%02d", mask))
						var args []string
						if len(extra) > 0 {
							args = []string{"--enable", strings.Join(extra, ",")}
						}
						wrote, by, msg := c.rewrite("C1", in, out, args...)
						if wrote {
							c.readsBack("C4", out)
							c.verifyRuns("C5", in, out, pc.Expect.Vocab)
						}
						pt.record(c, pipelineWith(extra), wrote, by, msg, pc.Expect, strings.Join(append([]string{"rewrite", in, "-o", out}, args...), " "))
						ty.cases[src.Name]++
						ty.add(c.failures)
						ty.accept(c.accepted)
						for _, f := range c.failures {
							t.Errorf("%s %s: %s\n    %s", f.Prop, f.Class, f.Detail, f.Repro)
						}
					}
				})
			}
		})
	}
	rep := ty.report(t, []string{"C1", "C4", "C5"})
	// A pass that never ran is a failure only when no source was filtered
	// out (go test -run 'TestPassComposition$/synth' runs some passes
	// only).
	rep += "\nper pass:\n" + pt.report(t, sourcesRun == len(caseSources))
	writeSweep(t, "composition", load, rep)
}

// passCount is one pass's outcomes over a composition run.
type passCount struct {
	accepted, refused int
	intended          int // refusals the generator asked for (Expect.Refuses)
}

// passTally counts, per pass, the inputs it accepted and refused.
type passTally map[string]*passCount

func (pt passTally) get(p string) *passCount {
	if pt[p] == nil {
		pt[p] = &passCount{}
	}
	return pt[p]
}

// record counts one rewrite of pipe: every pass up to the one that refused
// (by) accepted the input; the passes after it did not run. A refusal the
// generator did not ask for, or an acceptance where it asked for a
// refusal, fails C1. An exit without a named pass counts for no pass (C1
// has failed it already, or it was an op-level refusal).
func (pt passTally) record(c *checker, pipe []string, wrote bool, by, msg string, e expect.Expect, cmd string) {
	if !wrote && by == "" {
		return
	}
	show := cliResult{args: strings.Fields(cmd)}
	for _, p := range pipe {
		why, mustRefuse := e.Refuses[p]
		n := pt.get(p)
		if p == by {
			n.refused++
			if mustRefuse {
				n.intended++
			} else {
				c.fail("C1", "pass "+p+" refuses an input its generator says it accepts", oneLine(msg), show)
			}
			return
		}
		n.accepted++
		if mustRefuse {
			c.fail("C1", "pass "+p+" accepts an input its generator says it must refuse", why, show)
		}
	}
}

// report prints the per-pass figures and fails a pass that accepted no
// input (with a source filtered out: unless every refusal was intended),
// or (all: every source ran) never ran.
func (pt passTally) report(t *testing.T, all bool) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %8s %8s %s\n", "pass", "accepted", "refused", "(as its inputs' generators intend)")
	for _, p := range passes.Names() {
		n := pt.get(p)
		fmt.Fprintf(&b, "%-22s %8d %8d (%d)\n", p, n.accepted, n.refused, n.intended)
		switch {
		case n.accepted+n.refused == 0:
			if all {
				t.Errorf("pass %s never ran in the composition", p)
			}
		case n.accepted == 0 && (all || n.refused > n.intended):
			// With a source filtered out, the inputs left may all be ones
			// the pass must refuse.
			t.Errorf("pass %s refused every input it ran on (%d, %d as their generators intend)", p, n.refused, n.intended)
		}
	}
	t.Log("\nper pass:\n" + b.String())
	return b.String()
}
