package passes

import (
	"github.com/anefix/anefix/graph/nearest"

	"fmt"
	"slices"
)

// table is every pass in default pipeline order: name, whether the default
// pipeline runs it, its function with its options struct, and its
// description (in the pass's own file). It is filled in init because the passes' functions refer back to it
// (through Lookup); init also checks Constraints against it.
//
// arm-d comes first: Constraints require it before strip-fp32-casts (it
// deletes the recurrence whose constants stripping would convert).
//
// Requires and Preserves name the analyses of analyses.go. A pass
// preserves the state pairs when it changes no port, no state path and no
// pairing evidence: finite-masks rewrites constants' values in place;
// strip-fp32-casts retypes both sides of a pair together (its islands join
// them); fold-io-unsqueeze folds both sides of a pair or neither;
// externalize-constant adds an input after the others; the weight passes
// rewrite constants, which no state path reads from an input. finite-masks alone
// preserves the islands too (values change, types and ops do not).
// TestPreservedAnalyses checks each declaration.
var table []*Pass

func init() {
	table = []*Pass{
		{Name: "arm-d", DefaultOn: false, Func: bind[ArmDOptions](runArmD), About: armDAbout},
		{Name: "finite-masks", DefaultOn: false, Func: bind[finiteMasksOptions](finiteMasks), About: finiteMasksAbout, Preserves: []*Analysis{analysisStates, analysisIslands}},
		{Name: "strip-fp32-casts", DefaultOn: true, Func: bindCtx[stripFP32CastsOptions](stripFP32Casts), About: stripFP32CastsAbout, Requires: []*Analysis{analysisStates, analysisIslands}, Preserves: []*Analysis{analysisStates}},
		{Name: "fold-io-unsqueeze", DefaultOn: true, Func: bindCtx[foldIOUnsqueezeOptions](runFoldIOUnsqueeze), About: foldIOUnsqueezeAbout, Requires: []*Analysis{analysisStates}, Preserves: []*Analysis{analysisStates}},
		{Name: "promote-states", DefaultOn: true, Func: bindCtx[promoteStatesOptions](runPromoteStates), About: promoteStatesAbout, Requires: []*Analysis{analysisStates}},
		{Name: "states-as-outputs", DefaultOn: false, Func: bindCtx[statesAsOutputsOptions](runStatesAsOutputs), About: statesAsOutputsAbout, Requires: []*Analysis{analysisStates}},
		{Name: "externalize-constant", DefaultOn: false, Func: bind[externalizeConstantOptions](runExternalizeConstant), About: externalizeConstantAbout, Preserves: []*Analysis{analysisStates}},
		{Name: "legalize-weights", DefaultOn: false, Func: bindCtx[legalizeWeightsOptions](legalizeWeights), About: legalizeWeightsAbout, Preserves: []*Analysis{analysisStates}},
		{Name: "palettize", DefaultOn: false, Func: bindCtx[palettizeOptions](palettize), About: palettizeAbout, Preserves: []*Analysis{analysisStates}},
		{Name: "quantize-weights", DefaultOn: false, Func: bindCtx[quantizeWeightsOptions](quantizeWeights), About: quantizeWeightsAbout, Preserves: []*Analysis{analysisStates}},
		{Name: "scale-state", DefaultOn: false, Func: bindCtx[scaleStateOptions](scaleState), About: scaleStateAbout, Requires: []*Analysis{analysisStates}},
		{Name: "residual-scale", DefaultOn: false, Func: bind[residualScaleOptions](residualScale), About: residualScaleAbout},
		{Name: "fold-casts", DefaultOn: true, Func: bind[noOptions](foldCasts), About: foldCastsAbout},
		{Name: "fp16-safe-reductions", DefaultOn: false, Func: bind[fp16SafeReductionsOptions](fp16SafeReductions), About: fp16SafeReductionsAbout},
		{Name: "dce", DefaultOn: true, Func: bind[DCEOptions](dce), About: dceAbout,
			RunsLast: "it removes what the other passes leave dead: the ops a rewrite bypasses, the blob an externalized constant or a converted weight leaves unreferenced, the token ops handle accesses leave, the constants scaled or rewritten ones replace"},
	}
	if err := checkTable(table, Constraints); err != nil {
		panic("passes: " + err.Error())
	}
	for _, g := range settingGroups {
		if err := checkOptions(g); err != nil {
			panic("passes: settings: " + err.Error())
		}
		if _, ok := Lookup(g.Name); ok {
			panic("passes: settings group " + g.Name + " has a pass's name") // a pipeline string could not tell them apart
		}
	}
}

// Constraint says that pass Before must run before pass After whenever both
// are in a pipeline.
type Constraint struct {
	Before, After, Why string
}

// Constraints are checked for every pipeline (CheckOrder) and, at init,
// against the table's own order.
var Constraints = []Constraint{
	{"strip-fp32-casts", "fold-casts", "fold-casts cleans up the casts that stripping leaves as identities"},
	{"arm-d", "strip-fp32-casts", "arm-d removes the recurrence; stripping first would convert constants arm-d then deletes"},
	{"promote-states", "states-as-outputs", "states-as-outputs undoes promote-states; in the other order promote-states would make the returned updates states again"},
	{"strip-fp32-casts", "externalize-constant", "the new input takes the constant's type after stripping, so the caller feeds what the graph computes with"},
	{"finite-masks", "strip-fp32-casts", "stripping refuses (or clamps) an f32 constant past the fp16 range; finite-masks makes a -1e9 mask finite first"},
	{"promote-states", "scale-state", "scale-state scales the states promote-states made (it finds plain pairs on its own too)"},
	{"fold-io-unsqueeze", "scale-state", "fold-io-unsqueeze reshapes I/O ports; the scaling multiplies sit right next to them"},
	{"strip-fp32-casts", "fp16-safe-reductions", "stripping turns fp32 reductions into f16 ones, the ones this pass rewrites"},
	{"strip-fp32-casts", "palettize", "stripping converts the f32 weights of the islands it retypes; palettizing first would leave f32 palettes in them"},
	{"externalize-constant", "palettize", "an externalized table stays a plain input; palettizing first would make its palette indices the input"},
	{"palettize", "quantize-weights", "with both on, a weight is palettized (quantize-weights then leaves the lut_to_dense it feeds)"},
	{"strip-fp32-casts", "quantize-weights", "stripping converts the f32 weights of the islands it retypes first"},
	{"strip-fp32-casts", "legalize-weights", "stripping retypes the dequantized f32 weights of the islands it retypes first, so the palettes take the type the graph computes with"},
	{"strip-fp32-casts", "residual-scale", "stripping retypes the norms' epsilon constants; scaling them after keeps the scaled value in the type the norm computes with"},
	{"residual-scale", "fp16-safe-reductions", "residual-scale finds each RMSNorm by its reduce_mean, which fp16-safe-reductions rewrites as a matmul"},
	{"legalize-weights", "quantize-weights", "legalize-weights rewrites the INT4 weights the input has; quantize-weights after it writes the type it is asked for"},
}

// checkTable refuses a table with a repeated name or a pass without a
// function, a constraint that names an unknown pass or that the table's
// order breaks, a pass that runs last with another after it, and an
// analysis required or preserved that the pipeline does not know.
func checkTable(table []*Pass, constraints []Constraint) error {
	seen := map[string]bool{}
	pos := map[string]int{}
	for i, p := range table {
		if seen[p.Name] || p.Func.fn == nil {
			return fmt.Errorf("table: pass %q repeated or without a function", p.Name)
		}
		if err := checkOptions(p); err != nil {
			return fmt.Errorf("table: %w", err)
		}
		if p.RunsLast != "" && i != len(table)-1 {
			return fmt.Errorf("table: pass %q runs last (%s) but %q comes after it", p.Name, p.RunsLast, table[i+1].Name)
		}
		for _, a := range append(slices.Clone(p.Requires), p.Preserves...) {
			if !slices.Contains(analyses, a) {
				return fmt.Errorf("table: pass %q names an analysis the pipeline does not compute", p.Name)
			}
		}
		seen[p.Name] = true
		pos[p.Name] = i
	}
	for _, c := range orderRules(table, constraints) {
		if !seen[c.Before] || !seen[c.After] {
			return fmt.Errorf("constraint %s < %s names a pass not in the table", c.Before, c.After)
		}
		if pos[c.Before] > pos[c.After] {
			return fmt.Errorf("table: pass %q must come before %q: %s", c.Before, c.After, c.Why)
		}
	}
	return nil
}

// Lookup returns the pass of the table with that name.
func Lookup(name string) (*Pass, bool) {
	for _, p := range table {
		if p.Name == name {
			return p, true
		}
	}
	return nil, false
}

// lookup returns a pass this package's own code names; a name missing from
// the table is a bug in the table.
func lookup(name string) *Pass {
	p, ok := Lookup(name)
	if !ok {
		panic("passes: no pass " + name + " in the table")
	}
	return p
}

// Names lists the passes in default pipeline order (the table's).
func Names() []string {
	out := make([]string, len(table))
	for i, p := range table {
		out[i] = p.Name
	}
	return out
}

// orderRules are the constraints and, for each pass of table that runs
// last, one constraint putting every other pass before it.
func orderRules(table []*Pass, constraints []Constraint) []Constraint {
	out := slices.Clone(constraints)
	for _, last := range table {
		if last.RunsLast == "" {
			continue
		}
		for _, p := range table {
			if p != last {
				out = append(out, Constraint{p.Name, last.Name, last.Name + " runs last: " + last.RunsLast})
			}
		}
	}
	return out
}

// CheckOrder refuses a pipeline that names an unknown pass, repeats one,
// breaks an ordering constraint or puts a pass after one that runs last.
func CheckOrder(pipeline []string) error {
	pos := map[string]int{}
	for i, n := range pipeline {
		if _, ok := Lookup(n); !ok {
			return fmt.Errorf("unknown pass %q%s (valid: %v)", n, nearest.Hint(n, Names(), ""), Names())
		}
		if _, dup := pos[n]; dup {
			return fmt.Errorf("pass %q appears twice in the pipeline", n)
		}
		pos[n] = i
	}
	for _, c := range orderRules(table, Constraints) {
		b, okB := pos[c.Before]
		a, okA := pos[c.After]
		if okB && okA && b > a {
			return fmt.Errorf("pass %q must run before %q: %s", c.Before, c.After, c.Why)
		}
	}
	return nil
}
