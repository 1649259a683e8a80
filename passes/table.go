package passes

import "fmt"

// table is every pass in default pipeline order: name, whether the default
// pipeline runs it, its function with its options struct, and its
// description (in the pass's own file). It is filled in init because the passes' functions refer back to it
// (through Lookup); init also checks Constraints against it.
//
// arm-d comes first: Constraints require it before strip-fp32-casts (it
// deletes the recurrence whose constants stripping would convert).
var table []*Pass

func init() {
	table = []*Pass{
		{Name: "arm-d", DefaultOn: false, Func: bind[ArmDOptions](runArmD), About: armDAbout},
		{Name: "finite-masks", DefaultOn: false, Func: bind[FiniteMasksOptions](finiteMasks), About: finiteMasksAbout},
		{Name: "strip-fp32-casts", DefaultOn: true, Func: bindCtx[StripFP32CastsOptions](stripFP32Casts), About: stripFP32CastsAbout},
		{Name: "fold-io-unsqueeze", DefaultOn: true, Func: bindCtx[FoldIOUnsqueezeOptions](runFoldIOUnsqueeze), About: foldIOUnsqueezeAbout},
		{Name: "promote-states", DefaultOn: true, Func: bindCtx[PromoteStatesOptions](runPromoteStates), About: promoteStatesAbout},
		{Name: "states-as-outputs", DefaultOn: false, Func: bindCtx[StatesAsOutputsOptions](runStatesAsOutputs), About: statesAsOutputsAbout},
		{Name: "externalize-constant", DefaultOn: false, Func: bind[ExternalizeConstantOptions](runExternalizeConstant), About: externalizeConstantAbout},
		{Name: "legalize-weights", DefaultOn: false, Func: bindCtx[LegalizeWeightsOptions](legalizeWeights), About: legalizeWeightsAbout},
		{Name: "palettize", DefaultOn: false, Func: bindCtx[PalettizeOptions](palettize), About: palettizeAbout},
		{Name: "quantize-weights", DefaultOn: false, Func: bindCtx[QuantizeWeightsOptions](quantizeWeights), About: quantizeWeightsAbout},
		{Name: "scale-state", DefaultOn: false, Func: bindCtx[ScaleStateOptions](scaleState), About: scaleStateAbout},
		{Name: "residual-scale", DefaultOn: false, Func: bind[ResidualScaleOptions](residualScale), About: residualScaleAbout},
		{Name: "fold-casts", DefaultOn: true, Func: bind[NoOptions](foldCasts), About: foldCastsAbout},
		{Name: "fp16-safe-reductions", DefaultOn: false, Func: bind[FP16SafeReductionsOptions](fp16SafeReductions), About: fp16SafeReductionsAbout},
		{Name: "dce", DefaultOn: true, Func: bind[DCEOptions](dce), About: dceAbout},
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
	{"fold-casts", "dce", "dce removes what the other passes leave dead"},
	{"strip-fp32-casts", "dce", "dce removes what the other passes leave dead"},
	{"fold-io-unsqueeze", "dce", "dce removes what the other passes leave dead"},
	{"arm-d", "dce", "dce removes what the other passes leave dead"},
	{"promote-states", "states-as-outputs", "states-as-outputs undoes promote-states; in the other order promote-states would make the returned updates states again"},
	{"strip-fp32-casts", "externalize-constant", "the new input takes the constant's type after stripping, so the caller feeds what the graph computes with"},
	{"externalize-constant", "dce", "dce drops the blob the externalized constant leaves unreferenced"},
	{"states-as-outputs", "dce", "dce removes the token ops the handle accesses leave dead"},
	{"finite-masks", "strip-fp32-casts", "stripping refuses (or clamps) an f32 constant past the fp16 range; finite-masks makes a -1e9 mask finite first"},
	{"finite-masks", "dce", "dce removes what the other passes leave dead"},
	{"promote-states", "scale-state", "scale-state scales the states promote-states made (it finds plain pairs on its own too)"},
	{"fold-io-unsqueeze", "scale-state", "fold-io-unsqueeze reshapes I/O ports; the scaling multiplies sit right next to them"},
	{"scale-state", "dce", "dce removes what the other passes leave dead"},
	{"strip-fp32-casts", "fp16-safe-reductions", "stripping turns fp32 reductions into f16 ones, the ones this pass rewrites"},
	{"fp16-safe-reductions", "dce", "dce removes what the other passes leave dead (the reductions' axis constants)"},
	{"strip-fp32-casts", "palettize", "stripping converts the f32 weights of the islands it retypes; palettizing first would leave f32 palettes in them"},
	{"externalize-constant", "palettize", "an externalized table stays a plain input; palettizing first would make its palette indices the input"},
	{"palettize", "dce", "dce removes what the other passes leave dead"},
	{"palettize", "quantize-weights", "with both on, a weight is palettized (quantize-weights then leaves the lut_to_dense it feeds)"},
	{"strip-fp32-casts", "quantize-weights", "stripping converts the f32 weights of the islands it retypes first"},
	{"quantize-weights", "dce", "dce removes what the other passes leave dead"},
	{"strip-fp32-casts", "legalize-weights", "stripping retypes the dequantized f32 weights of the islands it retypes first, so the palettes take the type the graph computes with"},
	{"legalize-weights", "dce", "dce removes what the other passes leave dead"},
	{"strip-fp32-casts", "residual-scale", "stripping retypes the norms' epsilon constants; scaling them after keeps the scaled value in the type the norm computes with"},
	{"residual-scale", "fp16-safe-reductions", "residual-scale finds each RMSNorm by its reduce_mean, which fp16-safe-reductions rewrites as a matmul"},
	{"residual-scale", "dce", "dce drops the epsilon constants the scaled ones replace"},
	{"legalize-weights", "quantize-weights", "legalize-weights rewrites the INT4 weights the input has; quantize-weights after it writes the type it is asked for"},
}

// checkTable refuses a table with a repeated name or a pass without a
// function, and a constraint that names an unknown pass or that the table's
// order breaks.
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
		seen[p.Name] = true
		pos[p.Name] = i
	}
	for _, c := range constraints {
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

// CheckOrder refuses a pipeline that names an unknown pass, repeats one, or
// breaks an ordering constraint.
func CheckOrder(pipeline []string) error {
	pos := map[string]int{}
	for i, n := range pipeline {
		if _, ok := Lookup(n); !ok {
			return fmt.Errorf("unknown pass %q (valid: %v)", n, Names())
		}
		if _, dup := pos[n]; dup {
			return fmt.Errorf("pass %q appears twice in the pipeline", n)
		}
		pos[n] = i
	}
	for _, c := range Constraints {
		b, okB := pos[c.Before]
		a, okA := pos[c.After]
		if okB && okA && b > a {
			return fmt.Errorf("pass %q must run before %q: %s", c.Before, c.After, c.Why)
		}
	}
	return nil
}
