package compiler

import (
	"fmt"
	"strings"

	"github.com/anefix/anefix/graph/aimodelc"
)

// Settled is the error of a run whose ANE regions the .aimodelc does not
// settle (or that wrote none although the compiler exited 0); nil when
// Regions is a count.
func (r *Result) Settled() error {
	switch {
	case r.Package == nil:
		return fmt.Errorf("%s exited 0 but wrote no .aimodelc, so there are no regions to count", r.Command[0])
	case !r.RegionsKnown:
		why := append([]string(nil), r.Package.Problems...)
		for _, f := range r.Package.Functions {
			why = append(why, f.Disagreements...)
		}
		return fmt.Errorf("the ANE regions of the .aimodelc cannot be counted (%s); no count is reported rather than a guess", strings.Join(why, "; "))
	}
	return nil
}

// RegionsByGraph attributes the compiled entry functions' ANE regions to
// the input's entry graphs by name (FunctionsByGraph). Every graph gets an
// entry; a function whose count is unknown adds nothing (RegionsKnown says
// so). pkg may be nil.
func RegionsByGraph(pkg *aimodelc.Package, graphs []string) map[string]int {
	out := make(map[string]int, len(graphs))
	for _, g := range graphs {
		out[g] = 0
	}
	for g, fns := range FunctionsByGraph(pkg, graphs) {
		for _, f := range fns {
			if f.ANE.Known {
				out[g] += f.ANE.N
			}
		}
	}
	return out
}

// FunctionsByGraph attributes the compiled entry functions to the input's
// entry graphs by name: coreai-build names an entry function after its
// graph plus "_<suffix>" (the corpus's main -> main_9wemocz…), so a
// function belongs to the entry graph whose name it equals or starts with
// followed by "_", the longest such name winning; a function matching none
// is left out. pkg may be nil.
func FunctionsByGraph(pkg *aimodelc.Package, graphs []string) map[string][]*aimodelc.Function {
	out := map[string][]*aimodelc.Function{}
	if pkg == nil {
		return out
	}
	for _, f := range pkg.Functions {
		best := ""
		for _, name := range graphs {
			if (f.Name == name || strings.HasPrefix(f.Name, name+"_")) && len(name) > len(best) {
				best = name
			}
		}
		if best != "" {
			out[best] = append(out[best], f)
		}
	}
	return out
}
