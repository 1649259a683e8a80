package passes

import (
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/record"
)

// Pass describes one rewrite pass: its row of the pass table (table.go)
// and the description its own file gives.
type Pass struct {
	Name      string // "strip-fp32-casts"
	DefaultOn bool
	// Func applies the pass (made by bind from a function taking the pass's
	// options struct; call it through Run). It must leave the module
	// verifiable or return an error that names the op
	// (graph.Operation.Describe) and what to do.
	Func runner
	// RunsLast, when set, says why the pass runs after every other pass of
	// a pipeline (dce: one declaration instead of an "X before dce"
	// constraint per pass). CheckOrder refuses a pipeline that puts a pass
	// after it, as it refuses a broken Constraint.
	RunsLast string
	// Requires lists the analyses the pass reads through its Context
	// (analyses.go); Preserves those whose answer it leaves unchanged, so
	// the pipeline keeps them for the next pass instead of computing them
	// again. TestPreservedAnalyses checks every Preserves against a fresh
	// analysis after the pass.
	Requires, Preserves []*Analysis
	About
}

// About is what a pass's file says about it, for `anefix passes` and
// PASSES.md. Its options are declared by its options struct (options.go).
type About struct {
	Summary   string // one line
	Doc       string // longer text: what it does, what it may change numerically, when not to use it
	Addresses string // the compiler message it answers, verbatim ("" if none)
}

// Change is what one pass run did, for the report. Its changes to the
// model's interface are the entries of anefix's record of a rewrite
// (graph/record.Entries, one definition): the pipeline gathers them into
// the bundle's anefix.json (Result.Record), and the report is converted
// from them too. The other fields are the report's only.
type Change struct {
	OpsRemoved int
	OpsAdded   int
	OpsRetyped int // ops with at least one result whose type changed
	// IOChanges, States (promote-states), PlainStates (states-as-outputs),
	// ConstantInputs (externalize-constant) and StateScales (scale-state).
	record.Entries
	Constants []ConstantChange
	Replaced  []OpRef // ops replaced (arm-d), by op id
	// Compressed lists the weights a compression pass rewrote (palettize,
	// quantize-weights, legalize-weights), with their cost.
	Compressed []CompressedWeight
	// Left lists the weights palettize or quantize-weights took (its
	// selector) and left as they are, with why; taken = compressed + left.
	Left []LeftWeight
	// Rules is what each entry of a compression pass's rules option
	// selected, then the pass's own options (RuleUse); empty without rules.
	Rules []RuleUse
	Notes []string
}

// OpRef names an op for reports.
type OpRef struct {
	Graph, OpID, OpName, Source string
}

// ref describes op for a report.
func ref(g *graph.Graph, op *graph.Operation) OpRef {
	name := ""
	if g != nil {
		name = g.Name()
	}
	return OpRef{Graph: name, OpID: op.OpID(), OpName: op.Name, Source: op.Source()}
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
