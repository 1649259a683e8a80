package aimodelc

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/samber/lo"
)

// settle decides the counts of one function from the specialized graph
// (gp; nil when it could not be read, graphErr says why) and the region
// directories attributed to it.
func (fn *Function) settle(gp *graphPlacement, graphErr string, dirs []regionDir, p *Package) {
	for _, d := range dirs {
		fn.RegionDirs = append(fn.RegionDirs, d.Rel)
	}
	sort.Strings(fn.RegionDirs)
	var incomplete []string
	for _, d := range dirs {
		if !d.Complete() {
			incomplete = append(incomplete, d.Rel)
		}
	}
	dirEv := fmt.Sprintf("%d ANE region %s <fn>_ANE_region_<i>_<j>.bc named after the function (one region each; layout from public build scripts)", len(dirs), plural(len(dirs), "directory", "directories"))

	// The device requested, as the specialized graph and main file say.
	if gp != nil {
		if v, ok := gp.moduleInt("mps.preferredDevice"); ok {
			fn.RequestedEvidence = append(fn.RequestedEvidence, fmt.Sprintf("%s: module attribute mps.preferredDevice = %d (%s)", q(fn.GraphFile), v, deviceName(v)))
			switch {
			case fn.Requested == "":
				fn.Requested = deviceName(v)
			case fn.Requested != deviceName(v):
				fn.Disagreements = append(fn.Disagreements, fmt.Sprintf("requested device: the manifest's preferredDevice reads as %s, %s's mps.preferredDevice as %s", fn.Requested, q(fn.GraphFile), deviceName(v)))
			}
		}
	}

	fn.settleStates(gp)
	if gp != nil && len(gp.FXTypes[fn.Symbol]) > 0 {
		fn.FXRegionTypes = gp.FXTypes[fn.Symbol]
	}

	switch {
	case fn.Symbol == "":
		why := "the manifest maps no symbol to this entry function (no \"Key to Symbol Name\" entry)"
		fn.ANE.Evidence = []string{why}
		fn.GPU.Evidence = []string{why}
	case gp == nil:
		why := "the specialized graph could not be read"
		if graphErr != "" {
			why += ": " + graphErr
		}
		fn.GPU.Evidence = []string{why}
		fn.ANE.Evidence = []string{why, dirEv}
		if len(incomplete) == 0 {
			// The directories alone are a count of what the tree holds.
			fn.ANE = Count{N: len(dirs), Known: true, Evidence: []string{dirEv + "; the specialized graph could not be read to confirm it"}}
		}
	case !gp.hasSymbol(fn.Symbol):
		why := fmt.Sprintf("%s has no function @%s, the symbol the manifest names", q(fn.GraphFile), q(fn.Symbol))
		fn.Disagreements = append(fn.Disagreements, why)
		fn.ANE.Evidence = []string{why, dirEv}
		fn.GPU.Evidence = []string{why}
	case gp.totalCalls(fn.Symbol) == 0:
		// A compiled entry function runs somewhere: no region at all means
		// the graph is not what this reader understands, not "0 and 0".
		why := fmt.Sprintf("%s: @%s holds no #placement.region_type entry, so where it runs is unknown", q(fn.GraphFile), q(fn.Symbol))
		fn.ANE.Evidence = []string{why, dirEv}
		fn.GPU.Evidence = []string{why}
		p.problem("%s", why)
	default:
		calls, nested := gp.callsOf(fn.Symbol)
		syms := gp.symbolsOf(fn.Symbol)
		for typ, ss := range calls {
			for _, s := range ss {
				fn.RegionSymbols = append(fn.RegionSymbols, typ+" @"+s)
			}
		}
		sort.Strings(fn.RegionSymbols)
		callEv := func(typ string) string {
			e := fmt.Sprintf("%s: %d #placement.region_type<%s> %s in @%s", q(fn.GraphFile), len(calls[typ]), typ, plural(len(calls[typ]), "entry", "entries"), q(fn.Symbol))
			if n := nested[typ]; n > 0 {
				e += fmt.Sprintf(" (and %d inside those regions, counted as parts of them)", n)
			}
			return e
		}
		// Region symbols must tell the same story as the calls.
		for _, typ := range unionKeys(calls, syms) {
			if len(calls[typ]) != len(syms[typ]) {
				fn.Disagreements = append(fn.Disagreements, fmt.Sprintf("%s: %d region_type<%s> %s in @%s but %d symbol(s) named %s_%s_region_<i>",
					q(fn.GraphFile), len(calls[typ]), typ, plural(len(calls[typ]), "entry", "entries"), q(fn.Symbol), len(syms[typ]), q(fn.Symbol), typ))
			}
		}
		fn.GPU = Count{N: len(calls["GPU"]), Known: true, Evidence: []string{callEv("GPU")}}
		fn.ANE = Count{N: len(calls["ANE"]), Known: true, Evidence: []string{callEv("ANE"), dirEv}}
		if len(dirs) != len(calls["ANE"]) {
			fn.Disagreements = append(fn.Disagreements, fmt.Sprintf("ANE regions: the specialized graph has %d region_type<ANE> %s, the package %d region %s", len(calls["ANE"]), plural(len(calls["ANE"]), "entry", "entries"), len(dirs), plural(len(dirs), "directory", "directories")))
			fn.ANE.Known = false
		}
		for typ, ss := range calls {
			if typ != "GPU" && typ != "ANE" {
				if fn.OtherRegions == nil {
					fn.OtherRegions = map[string]int{}
				}
				fn.OtherRegions[typ] = len(ss)
			}
		}
	}
	if len(incomplete) > 0 {
		fn.Disagreements = append(fn.Disagreements, fmt.Sprintf("%d ANE region %s hold no *.mlir.bc binary: %s", len(incomplete), plural(len(incomplete), "directory", "directories"), strings.Join(qs(incomplete), ", ")))
		fn.ANE.Known = false
	}

	// Fully on the Neural Engine: the counts, checked against the manifest's
	// own attributes.
	claimsANE := slices.Contains(fn.Attributes, "mps.fullyPlacedOnANE")
	noGPU := slices.Contains(fn.Attributes, "mps.noGPUActivity")
	others := 0
	for _, n := range fn.OtherRegions {
		others += n
	}
	switch {
	case fn.ANE.Known && fn.ANE.N == 0:
		fn.FullyOnANE = flag{Value: false, Known: true, Evidence: []string{"0 ANE regions"}}
	case fn.ANE.Known && fn.GPU.Known:
		fn.FullyOnANE = flag{Value: fn.GPU.N == 0 && others == 0, Known: true,
			Evidence: []string{fmt.Sprintf("%d ANE, %d GPU, %d other region(s)", fn.ANE.N, fn.GPU.N, others)}}
	case claimsANE:
		fn.FullyOnANE = flag{Value: true, Known: true, Evidence: []string{"manifest attribute mps.fullyPlacedOnANE only (the region counts are unknown)"}}
	default:
		fn.FullyOnANE.Evidence = []string{"the region counts are unknown"}
	}
	if claimsANE {
		fn.FullyOnANE.Evidence = append(fn.FullyOnANE.Evidence, "manifest: mps.fullyPlacedOnANE")
		if fn.FullyOnANE.Known && !fn.FullyOnANE.Value {
			fn.Disagreements = append(fn.Disagreements, "the manifest says mps.fullyPlacedOnANE, the regions say the function is not fully on the Neural Engine")
		}
	}
	if noGPU && fn.GPU.Known && fn.GPU.N > 0 {
		fn.Disagreements = append(fn.Disagreements, fmt.Sprintf("the manifest says mps.noGPUActivity, the specialized graph has %d GPU region(s)", fn.GPU.N))
	}
}

// settleStates gives the states the manifest names their types from the
// specialized graph's function, and says where an index names no input
// (or a token index no result) of it.
func (fn *Function) settleStates(gp *graphPlacement) {
	if gp == nil || fn.Symbol == "" || (fn.States == nil && fn.TokenResults == nil) {
		return
	}
	sig, ok := gp.Signatures[fn.Symbol]
	if !ok {
		return
	}
	var types []string
	for i := range fn.States {
		s := &fn.States[i]
		if s.Index >= len(sig.Args) {
			fn.Disagreements = append(fn.Disagreements, fmt.Sprintf("the manifest's mps.stateInputIndices names input %d, but @%s in %s has %d input(s)", s.Index, q(fn.Symbol), q(fn.GraphFile), len(sig.Args)))
			continue
		}
		s.Type = sig.Args[s.Index]
		types = append(types, fmt.Sprintf("%d: %s", s.Index, s.Type))
	}
	if len(types) > 0 {
		fn.StatesEvidence = append(fn.StatesEvidence, fmt.Sprintf("%s: the inputs of @%s (%s)", q(fn.GraphFile), q(fn.Symbol), strings.Join(types, ", ")))
	}
	for _, r := range fn.TokenResults {
		if sig.Results >= 0 && r >= sig.Results {
			fn.Disagreements = append(fn.Disagreements, fmt.Sprintf("the manifest's mps.tokenResIndices names result %d, but @%s in %s returns %d value(s)", r, q(fn.Symbol), q(fn.GraphFile), sig.Results))
		}
	}
}

func unionKeys(a, b typeCounts) []string {
	out := lo.UniqKeys(a, b)
	slices.Sort(out)
	return out
}

// ANERegions is the package's total of ANE regions, known only when every
// function's count is known and no region directory is unattributed.
func (p *Package) ANERegions() Count {
	c := Count{Known: len(p.Functions) > 0 && len(p.Unattributed) == 0}
	for _, f := range p.Functions {
		c.N += f.ANE.N
		c.Known = c.Known && f.ANE.Known
	}
	switch {
	case len(p.Functions) == 0:
		c.Evidence = []string{"no entry function could be read"}
	case len(p.Unattributed) > 0:
		c.Evidence = []string{fmt.Sprintf("%d region %s belong to no entry function", len(p.Unattributed), plural(len(p.Unattributed), "directory", "directories"))}
	}
	return c
}

// plural picks the word form for a count in evidence lines.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
