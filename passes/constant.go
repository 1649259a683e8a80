package passes

import (
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/internal/ops"
)

// NewConstantOp builds a detached coreai.constant holding a, with its value
// attribute named and placed (properties or attributes) as the module's
// existing constants have it. anefix reduce uses it to replace ops by
// constants.
func NewConstantOp(m *graph.Module, a *graph.DenseElementsAttr, loc graph.Loc) *graph.Operation {
	return ops.Const(m, a, loc)
}
