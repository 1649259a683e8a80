package interp

import (
	"fmt"

	"github.com/anefix/anefix/graph"
)

// coreai.if (coreai-torch prints `%r = coreai.if %c { … coreai.yield %a }
// else { … coreai.yield %b } : tensor<i1> -> T`): the branches have no
// block arguments and read the enclosing graph's values directly.

type lookupFn func(v *graph.Value) (*Tensor, bool)

// runIf runs the then (region 0) or else (region 1) branch on the
// condition's single element and returns what the branch yields.
func (in *Interp) runIf(op *graph.Operation, ins []*Tensor, outer lookupFn, depth int) ([]*Tensor, error) {
	if len(ins) != 1 || ins[0].Len() != 1 {
		return nil, fmt.Errorf("coreai.if needs one condition operand with one element")
	}
	if len(op.Regions) != 2 || len(op.Regions[0].Blocks) != 1 || len(op.Regions[1].Blocks) != 1 {
		return nil, fmt.Errorf("coreai.if needs a then and an else region of one block each")
	}
	r := 1
	if ins[0].Float64At(0) != 0 {
		r = 0
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("regions nested deeper than %d", maxDepth)
	}
	return in.runBlock(op.Regions[r].Entry(), outer, depth+1)
}

// runBlock runs a region's block and returns the operands of its
// terminating coreai.yield.
func (in *Interp) runBlock(b *graph.Block, outer lookupFn, depth int) ([]*Tensor, error) {
	local := map[*graph.Value]*Tensor{}
	look := func(v *graph.Value) (*Tensor, bool) {
		if t, ok := local[v]; ok {
			return t, true
		}
		return outer(v)
	}
	for _, op := range b.Ops() {
		ins := make([]*Tensor, op.NumOperands())
		for k, v := range op.Operands() {
			t, ok := look(v)
			if !ok {
				return nil, fmt.Errorf("%s: operand %d has no value", op.Describe(), k)
			}
			ins[k] = t
		}
		if op.Name == "coreai.yield" {
			return ins, nil
		}
		var res []*Tensor
		var err error
		switch {
		case op.Name == "coreai.if":
			res, err = in.runIf(op, ins, look, depth)
		case isStateOp(op.Name):
			err = fmt.Errorf("state ops inside a region are not run by the interpreter")
		default:
			res, err = in.safeExec(op, ins, depth)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Describe(), err)
		}
		if len(res) != op.NumResults() {
			return nil, fmt.Errorf("%s: produced %d results, op declares %d", op.Describe(), len(res), op.NumResults())
		}
		for k, r := range op.Results() {
			if err := fitResult(r.Type(), res[k]); err != nil {
				return nil, fmt.Errorf("%s: result %d: %w", op.Describe(), k, err)
			}
			local[r] = fitted(r.Type(), res[k])
		}
	}
	return nil, fmt.Errorf("region block does not end in coreai.yield")
}
