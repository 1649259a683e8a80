package ane

import (
	"fmt"
	"math"
	"strconv"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// fp16 hazards (hazard_range.go, hazard_flush.go, hazard_exp.go): constants
// and bounded inputs whose values do not survive IEEE binary16 arithmetic.
// They are advisory (severity Hazard): they never change a verdict, a
// region count or the exit code, because the compiler accepts such graphs;
// what they threaten is the numbers, not placement. They read the module's
// fp16 constant scan (anefacts.Scan, factFP16Scan). This file holds what
// their details share.

func fmtVal(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// numLabel is "op_id N: " when op's location carries a numeric op id (the
// FX name is the group's op id already), else "".
func numLabel(op *graph.Operation) string {
	if n, ok := graph.OpNumber(op.Loc); ok {
		return "op_id " + strconv.FormatUint(n, 10) + ": "
	}
	return ""
}

// userLabel names the first op that reads op's result, for the finding's
// detail ("used by add_3 (op_id 9)").
func userLabel(op *graph.Operation) string {
	if op.NumResults() == 0 {
		return ""
	}
	for _, u := range op.Result(0).Uses() {
		if l := graph.OpLabel(u.Op.Loc); l != "" {
			return "; used by " + l
		}
		return "; used by " + u.Op.Name
	}
	return ""
}

func hazardWhat(op *graph.Operation, s *anefacts.ConstStats) string {
	what := numLabel(op)
	if s.Resource != "" {
		what += "dense_resource<" + s.Resource + ">, "
	}
	return what
}

// constRange is the constant's range over its elements, for the details.
func constRange(s *anefacts.ConstStats) string {
	return fmt.Sprintf("range [%s, %s] over %d element(s)", fmtVal(s.Min), fmtVal(s.Max), s.N)
}
