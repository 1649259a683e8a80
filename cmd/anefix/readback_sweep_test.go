package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// sweepConfig is one rewrite configuration of TestRewriteOutputsReadBack.
type sweepConfig struct {
	name string
	args []string
}

// sweepConfigs are the rewrite configurations the sweep runs: every subset
// of the passes that are off by default (--enable), each default pass
// disabled alone (--disable), and --arm-d. The passes come from the table,
// so a new pass joins the sweep by itself.
func sweepConfigs() []sweepConfig {
	var off, on []string
	for _, n := range passes.Names() {
		p, _ := passes.Lookup(n)
		if p.DefaultOn {
			on = append(on, n)
		} else {
			off = append(off, n)
		}
	}
	var out []sweepConfig
	for mask := 0; mask < 1<<len(off); mask++ {
		var en []string
		for i, n := range off {
			if mask&(1<<i) != 0 {
				en = append(en, n)
			}
		}
		c := sweepConfig{name: "default"}
		if len(en) > 0 {
			c.name = "enable=" + strings.Join(en, ",")
			c.args = []string{"--enable", strings.Join(en, ",")}
		}
		out = append(out, c)
	}
	for _, n := range on {
		out = append(out, sweepConfig{name: "disable=" + n, args: []string{"--disable", n}})
	}
	return append(out, sweepConfig{name: "arm-d", args: []string{"--arm-d"}})
}

// sweepSample is the number of rewrites the fixed part of the sweep runs
// without ANEFIX_FULL_SWEEP=1: for arm i (in sorted order) the
// configurations j with j%stride == i%stride, stride chosen so that about
// this many run (the configurations double with every off-by-default pass:
// 6 arms × 518 with nine of them).
const sweepSample = 60

func sweepStride(configs, arms int) int { return max(7, configs*arms/sweepSample) }

// TestRewriteOutputsReadBack: whatever rewrite writes with exit 0, anefix
// reads back and converts to generic text (issue 20: dce dropped a blob
// whose declaration the bytecode writer keeps, and the text printer refused
// the declaration). Every synth arm in testdata/synth × sweepConfigs; only a
// fixed sample unless ANEFIX_FULL_SWEEP=1.
func TestRewriteOutputsReadBack(t *testing.T) {
	arms, err := filepath.Glob(filepath.Join("..", "..", "testdata", "synth", "*.aimodel"))
	if err != nil || len(arms) == 0 {
		t.Fatalf("no synth arms: %v", err)
	}
	sort.Strings(arms)
	full := fullSweep()
	cfgs := sweepConfigs()
	type job struct {
		arm string
		cfg sweepConfig
	}
	var jobs []job
	for i, arm := range arms {
		for j, c := range cfgs {
			if stride := sweepStride(len(cfgs), len(arms)); full || j%stride == i%stride {
				jobs = append(jobs, job{arm, c})
			}
		}
	}
	dir := t.TempDir()
	var mu sync.Mutex
	var written, refused int
	var bad []string
	reasons := map[string]int{}
	// Two workers: the machine CI runs on has two cores.
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				jb := jobs[k]
				out := filepath.Join(dir, fmt.Sprintf("out%d.aimodel", k))
				args := append([]string{"rewrite", jb.arm, "-o", out}, jb.cfg.args...)
				code, _, errs := runCLI(t, "", args...)
				what := filepath.Base(jb.arm) + " " + jb.cfg.name
				if code != exitOK {
					mu.Lock()
					refused++
					reasons[lastLine(errs)]++
					mu.Unlock()
					if _, err := os.Lstat(out); err == nil {
						mu.Lock()
						bad = append(bad, fmt.Sprintf("%s: exit %d but wrote %s", what, code, out))
						mu.Unlock()
					}
					continue
				}
				ccode, text, cerrs := runCLI(t, "", "convert", out, "--emit", "generic", "-o", "-")
				var perr error
				if ccode == exitOK {
					var m *graph.Module
					if m, _, perr = mlirtext.Parse("generic text of "+what, text); perr == nil {
						perr = graph.Verify(m)
					}
				}
				mu.Lock()
				written++
				switch {
				case ccode != exitOK:
					bad = append(bad, fmt.Sprintf("%s: rewrite exit 0, but convert --emit generic exits %d: %s", what, ccode, strings.TrimSpace(cerrs)))
				case perr != nil:
					bad = append(bad, fmt.Sprintf("%s: rewrite exit 0, but its generic text does not read back: %v", what, perr))
				}
				mu.Unlock()
				os.RemoveAll(out)
			}
		}()
	}
	for k := range jobs {
		work <- k
	}
	close(work)
	wg.Wait()
	t.Logf("%d rewrites (%d arms × %d configurations%s): %d wrote an output, %d refused; %d outputs anefix cannot read back",
		len(jobs), len(arms), len(cfgs), map[bool]string{true: ", full sweep", false: ", sample"}[full], written, refused, len(bad))
	for r, n := range reasons {
		t.Logf("refused %d×: %s", n, r)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}
