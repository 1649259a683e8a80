package anefacts

import "github.com/anefix/anefix/graph"

// ConstScalarInt reads a one-element integer constant (dense<…>), its value
// where the readers put it: among the op's properties, or its attributes
// (graph.Operation.Inherent). One home for check's rules and the passes
// (a copy that read only the attributes made perf.softmax-axis blind on
// every parsed module).
func ConstScalarInt(v *graph.Value) (int64, bool) {
	d := v.DefiningOp()
	if d == nil || d.Name != "coreai.constant" {
		return 0, false
	}
	a, ok := d.Inherent("value").(*graph.DenseElementsAttr)
	if !ok || a.NumElements() != 1 {
		return 0, false
	}
	if _, isInt := a.Type.Elem.(*graph.IntegerType); !isInt {
		return 0, false
	}
	return a.Int64At(0), true
}
