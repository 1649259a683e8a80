package ane

import (
	"fmt"
)

// maxLoadedPrograms is about how many Neural Engine programs one process
// held loaded in a third-party measurement (advicePrograms).
const maxLoadedPrograms = 128

// advicePrograms: a module whose entry functions, at one Neural Engine
// program each at least, exceed about 128 loaded programs per process.
var advicePrograms = &Rule{
	ID:    "perf.loaded-programs",
	Title: "more entry functions than about 128 loaded Neural Engine programs per process",
	Message: "the module's entry functions, each at least one Neural Engine program once compiled (one per region), " +
		"exceed the about 128 programs one process was measured to hold loaded; load only the functions in use, or " +
		"fewer shapes",
	Evidence: "not found where the issue places it: sbryngelson/ANEForge docs/capabilities.md and " +
		"docs/developer/op-quirks.md do not state it, nor does MaTriXy/coreai-model-zoo (snapshot 6a3050c). An " +
		"unnamed third-party design note in the public code index cites near 128 loaded programs per process to Bryngelson's ANE paper (arXiv " +
		"2606.22283, p. 85, not read here) and about 119 compiles per process to maderix/ANE issue 5, both through " +
		"the private ANE API, not Core AI's runtime. Counted here: entry functions, a lower bound on programs (a " +
		"partitioning compiler writes one per region)",
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
