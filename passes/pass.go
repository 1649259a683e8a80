// Package passes holds anefix's rewrite passes and the registry that lists
// them. A pass receives a module and its options and returns what it
// changed; it never opens a file and never prints (README "Layout").
//
// Each pass is one file (strip_fp32_casts.go, fold_io_unsqueeze.go, …) that
// registers a *Pass in an init function; the pipeline order is the order of
// Registry's Order list below (one place, like cmd/compile's pass table).
package passes

import (
	"fmt"
	"sort"

	"github.com/anefix/anefix/graph"
)

// Pass describes one rewrite pass.
type Pass struct {
	Name      string // "strip-fp32-casts"
	Summary   string // one line
	Doc       string // longer text: what it does, what it may change numerically, when not to use it
	Addresses string // the compiler message it answers, verbatim ("" if none)
	DefaultOn bool
	Options   []OptionSpec
	// Run applies the pass. It must leave the module verifiable or return an
	// error that names the op (graph.Operation.Describe) and what to do.
	Run func(m *graph.Module, opts Options) (*Change, error)
}

// OptionKind is the type of an option value.
type OptionKind int

const (
	OptBool OptionKind = iota
	OptString
	OptInt
	OptStringList // comma-separated
)

// OptionSpec declares one typed option with its default.
type OptionSpec struct {
	Name    string
	Kind    OptionKind
	Default string // textual default, parsed like a --set value
	Doc     string
	// Check, when set, rejects a value of the right kind that is still
	// malformed (such as a pair without "="), so that --set reports it as a
	// usage error before any pass runs.
	Check func(v any) error
}

// Options holds parsed option values for one pass run, keyed by option name.
type Options map[string]any

// Bool, String, Int and Strings read typed option values (defaults applied by
// the pipeline before Run, so every declared option is present).
func (o Options) Bool(name string) bool        { v, _ := o[name].(bool); return v }
func (o Options) String(name string) string    { v, _ := o[name].(string); return v }
func (o Options) Int(name string) int          { v, _ := o[name].(int); return v }
func (o Options) Strings(name string) []string { v, _ := o[name].([]string); return v }

// Change is what one pass run did, for the report.
type Change struct {
	OpsRemoved int
	OpsAdded   int
	OpsRetyped int // ops with at least one result whose type changed
	IOChanges  []IOChange
	Constants  []ConstantChange
	States     []StatePromotion
	Replaced   []OpRef // ops replaced (arm-d), by op id
	// PlainStates lists states turned back into a plain input and output
	// (states-as-outputs): Input is fed Output of the previous step.
	PlainStates []StatePromotion
	// Externalized lists constants turned into graph inputs
	// (externalize-constant), for the record verify reads.
	Externalized []ExternalizedConstant
	// StateScales lists the states scale-state rescaled; a host and
	// verify must account for them (the bundle's anefix.json records them).
	StateScales []StateScale
	Notes       []string
}

// OpRef names an op for reports.
type OpRef struct {
	Graph, OpID, OpName, Source string
}

// Ref describes op for a report.
func Ref(g *graph.Graph, op *graph.Operation) OpRef {
	name := ""
	if g != nil {
		name = g.Name()
	}
	return OpRef{Graph: name, OpID: op.OpID(), OpName: op.Name, Source: op.Source()}
}

// IOChange records a graph input/output whose type or role changed.
type IOChange struct {
	Graph    string
	Port     string // coreai.name
	IsOutput bool
	Before   string // type before
	After    string // type after
	Why      string
}

// ConstantChange records a constant converted to another element type.
type ConstantChange struct {
	Op        OpRef
	Resource  string // resource key when the data lived in a blob
	From, To  string // element types
	Elements  int64
	Overflow  int64 // finite values that became ±inf
	Underflow int64 // nonzero values that became zero
}

// StatePromotion records an input/output pair turned into a runtime state.
type StatePromotion struct {
	Graph, Input, Output string
}

// registry holds every registered pass by name.
var registry = map[string]*Pass{}

// Register adds a pass; called from each pass file's init.
func Register(p *Pass) {
	if _, dup := registry[p.Name]; dup {
		panic("passes: registered twice: " + p.Name)
	}
	registry[p.Name] = p
}

// Order is the default pipeline order: the one list of passes. Every
// registered pass must appear here exactly once (a test checks it).
//
// arm-d comes first: Constraints require it before strip-fp32-casts (it
// deletes the recurrence whose constants stripping would convert).
var Order = []string{
	"arm-d",
	"finite-masks",
	"strip-fp32-casts",
	"fold-io-unsqueeze",
	"promote-states",
	"states-as-outputs",
	"externalize-constant",
	"scale-state",
	"fold-casts",
	"fp16-safe-reductions",
	"dce",
}

// Constraint says that pass Before must run before pass After whenever both
// are in a pipeline.
type Constraint struct {
	Before, After, Why string
}

// Constraints are checked for every pipeline (CheckOrder).
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
}

// Lookup returns a registered pass.
func Lookup(name string) (*Pass, bool) {
	p, ok := registry[name]
	return p, ok
}

// Names lists registered passes in default order, then any not in Order.
func Names() []string {
	out := make([]string, 0, len(registry))
	seen := map[string]bool{}
	for _, n := range Order {
		if _, ok := registry[n]; ok {
			out = append(out, n)
			seen[n] = true
		}
	}
	var rest []string
	for n := range registry {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// CheckOrder refuses a pipeline that names an unknown pass, repeats one, or
// breaks an ordering constraint.
func CheckOrder(pipeline []string) error {
	pos := map[string]int{}
	for i, n := range pipeline {
		if _, ok := registry[n]; !ok {
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
