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
	return in.runBlock(op.Regions[r].Entry(), nil, outer, depth+1)
}

// maxIterations bounds a coreai.while loop, so a condition that never
// turns false is an error naming the op, not a hang (a variable so that a
// test can lower it).
var maxIterations = 1 << 20

// runWhile runs coreai.while as scf.while (the layout the op table guesses,
// graph/coreaiop: coreai-torch's lowering of torch's while_loop,
// coreai_torch/_aten_to_core.py replace_while_loop, builds a before region
// ending in coreai.condition(flag, carried…) and an after region ending in
// coreai.yield of the next carried values): the before region runs on the
// carried values; while its flag is true, the values it forwards feed the
// after region, whose yield carries on; when it is false, the forwarded
// values are the op's results. Both regions may read the enclosing graph's
// values, as coreai.if's branches do.
func (in *Interp) runWhile(op *graph.Operation, ins []*Tensor, outer lookupFn, depth int) ([]*Tensor, error) {
	if len(op.Regions) != 2 || len(op.Regions[0].Blocks) != 1 || len(op.Regions[1].Blocks) != 1 {
		return nil, fmt.Errorf("coreai.while needs a condition and a body region of one block each")
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("regions nested deeper than %d", maxDepth)
	}
	before, after := op.Regions[0].Entry(), op.Regions[1].Entry()
	carried := ins
	for it := 0; ; it++ {
		if it == maxIterations {
			return nil, fmt.Errorf("coreai.while ran %d iterations without its condition turning false", maxIterations)
		}
		// Every iteration is work, even of regions with no op to count
		// (work.go): empty loops nested in loops would otherwise multiply.
		if err := in.charge(op, nil, false); err != nil {
			return nil, err
		}
		cond, err := in.runBlock(before, carried, outer, depth+1)
		if err != nil {
			return nil, err
		}
		if len(cond) == 0 || cond[0].Len() != 1 {
			return nil, fmt.Errorf("coreai.while: the condition region must end in coreai.condition with a one-element flag first")
		}
		forwarded := cond[1:]
		if cond[0].Float64At(0) == 0 {
			if len(forwarded) != op.NumResults() {
				return nil, fmt.Errorf("coreai.while: the condition forwards %d values for %d results", len(forwarded), op.NumResults())
			}
			return forwarded, nil
		}
		if carried, err = in.runBlock(after, forwarded, outer, depth+1); err != nil {
			return nil, err
		}
	}
}

// runBlock runs a region's block with its arguments bound to args and
// returns the operands of its terminator (coreai.yield, or a while
// condition region's coreai.condition).
func (in *Interp) runBlock(b *graph.Block, args []*Tensor, outer lookupFn, depth int) ([]*Tensor, error) {
	local := map[*graph.Value]*Tensor{}
	if len(args) != len(b.Args()) {
		return nil, fmt.Errorf("region block takes %d arguments, given %d", len(b.Args()), len(args))
	}
	for i, a := range b.Args() {
		if err := fitResult(a.Type(), in.widened(a.Type(), args[i])); err != nil {
			return nil, fmt.Errorf("region block argument %d: %w", i, err)
		}
		local[a] = fitted(a.Type(), args[i])
	}
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
		if op.Name == "coreai.yield" || op.Name == "coreai.condition" {
			return ins, nil
		}
		if err := in.charge(op, ins, false); err != nil {
			return nil, err
		}
		res, err := in.safeExec(op, refOf(op.Name), ins, site{depth: depth, look: look})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Describe(), err)
		}
		if len(res) != op.NumResults() {
			return nil, fmt.Errorf("%s: produced %d results, op declares %d", op.Describe(), len(res), op.NumResults())
		}
		for k, r := range op.Results() {
			if err := fitResult(r.Type(), in.widened(r.Type(), res[k])); err != nil {
				return nil, fmt.Errorf("%s: result %d: %w", op.Describe(), k, err)
			}
			local[r] = fitted(r.Type(), res[k])
		}
	}
	return nil, fmt.Errorf("region block does not end in coreai.yield or coreai.condition")
}
