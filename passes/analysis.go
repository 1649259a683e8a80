package passes

import (
	"errors"

	"github.com/anefix/anefix/graph"
)

// The Neural Engine rule model (package passes/ane) is the one home of the
// element-type rule; strip-fp32-casts asks it which ops the rule flags.
// passes/ane's tests build pipelines with this package, so this package
// cannot import passes/ane (an import cycle in its tests): passes/ane hands
// its analysis in with SetElementTypeBlockers from its init, the way a
// pass registers itself.
var elementTypeBlockers func(m *graph.Module, states graph.StateOptions) (map[*graph.Operation]bool, error)

// SetElementTypeBlockers installs the analysis that returns the ops a
// Neural Engine element-type rule makes illegal, with states paired under
// the given options. passes/ane calls it.
func SetElementTypeBlockers(f func(m *graph.Module, states graph.StateOptions) (map[*graph.Operation]bool, error)) {
	elementTypeBlockers = f
}

// errNoBlockerAnalysis is returned when no rule model was linked in.
var errNoBlockerAnalysis = errors.New("islands=blockers needs the Neural Engine rule model (package passes/ane), which this program does not link; what to do: import it, or set strip-fp32-casts.islands=all")

// ElementTypeBlockers returns the ops the installed rule model flags under
// its element-type rule, states paired under the given options (the
// pipeline's, so that a pair the pipeline will promote counts as the round
// trip it becomes).
func ElementTypeBlockers(m *graph.Module, states graph.StateOptions) (map[*graph.Operation]bool, error) {
	if elementTypeBlockers == nil {
		return nil, errNoBlockerAnalysis
	}
	return elementTypeBlockers(m, states)
}

// rangeHazardConstants is check's fp16.out-of-range rule (passes/ane
// hazards.go), installed the same way: finite-masks rewrites exactly the
// constants that rule names, so the two never disagree about what a mask
// hazard is.
var rangeHazardConstants func(m *graph.Module) ([]*graph.Operation, error)

// SetRangeHazardConstants installs the analysis that returns the constants
// check's fp16.out-of-range rule flags. passes/ane calls it.
func SetRangeHazardConstants(f func(m *graph.Module) ([]*graph.Operation, error)) {
	rangeHazardConstants = f
}

var errNoHazardAnalysis = errors.New("finite-masks needs the Neural Engine rule model's fp16 hazard rules (package passes/ane), which this program does not link; what to do: import it")

// RangeHazardConstants returns the constants, in module order, that the
// installed rule model's fp16.out-of-range rule flags.
func RangeHazardConstants(m *graph.Module) ([]*graph.Operation, error) {
	if rangeHazardConstants == nil {
		return nil, errNoHazardAnalysis
	}
	return rangeHazardConstants(m)
}
