package ane

import (
	"fmt"
)

// maxLoadedPrograms is about how many Neural Engine programs one process
// held loaded in a third-party measurement (advicePrograms).
const maxLoadedPrograms = 128

// advicePrograms: a module with more entry functions than about 128
// loaded Neural Engine programs per process.
var advicePrograms = &Rule{
	ID:    "perf.loaded-programs",
	Title: "more entry functions than about 128 loaded Neural Engine programs per process",
	Message: "the module has more entry functions than the about 128 programs one process was measured to hold " +
		"loaded; every function that gets a Neural Engine region is at least one program (one per region), so a " +
		"process that loads them all may exceed it: load only the functions in use, or fewer shapes",
	Evidence: "not found where the issue places it: sbryngelson/ANEForge docs/capabilities.md and " +
		"docs/developer/op-quirks.md do not state it, nor does MaTriXy/coreai-model-zoo (snapshot 6a3050c). An " +
		"unnamed third-party design note in the public code index cites near 128 loaded programs per process to Bryngelson's ANE paper (arXiv " +
		"2606.22283, p. 85, not read here) and about 119 compiles per process to maderix/ANE issue 5, both through " +
		"the private ANE API, not Core AI's runtime. Counted here: entry functions, which is the program count when " +
		"each gets one region (h18p's all-or-nothing prediction for a legal module); a blocked function adds none and a " +
		"split one (h16g) adds one per region, which this rule, run before the region prediction, does not see",
	Severity: advice,
	Requires: []*fact{factModule},
	Run:      runPrograms,
}

func runPrograms(p *Pass) {
	if !p.Entry {
		return
	}
	mod := p.module()
	n, first := 0, ""
	for _, f := range mod.graphs {
		if f.Entry && f.HasBody() {
			if n == 0 {
				first = f.G.Name()
			}
			n++
		}
	}
	if n > maxLoadedPrograms && first == p.G.Name() {
		p.ReportPort("module", fmt.Sprintf("%d entry functions, above %d", n, maxLoadedPrograms))
	}
}
