package interp

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"unsafe"

	"github.com/anefix/anefix/graph"
)

// RunLanes runs graph name once for each of len(inputs) independent sets
// of inputs (lanes: the token streams of `verify`), in lockstep, op by op,
// and returns each lane's outputs. The results are Run's, lane by lane, bit
// for bit; what changes is the work:
//   - an op whose operands are the same in every lane (constants and what
//     is computed from them alone: a transposed or dequantized weight) runs
//     once for all lanes;
//   - a conv whose weight is such a value, and a matmul whose right operand
//     is, run once on the lanes' activations stacked along the batch (conv)
//     or row (matmul) axis, so the weight is read once per position for
//     every lane (a matrix–matrix product instead of one matrix–vector
//     product per lane; WeightBytesRead counts it);
//   - every other op runs per lane, as Run runs it.
//
// Inputs are the lanes' own (never shared with another lane, never
// written unless Options.DonateInputs hands them over). Regions (coreai.if, coreai.while) and invoked graphs run per
// lane.
func (in *Interp) RunLanes(name string, inputs [][]*Tensor) (_ [][]*Tensor, err error) {
	if len(inputs) == 1 {
		outs, err := in.Run(name, inputs[0])
		if err != nil {
			return nil, err
		}
		return [][]*Tensor{outs}, nil
	}
	defer debug.SetPanicOnFault(panicOnFault())
	defer in.catchFault(&err)
	g := in.graphs[name]
	if g == nil {
		return nil, fmt.Errorf("interp: no graph @%s in the module", name)
	}
	body := g.Body()
	if body == nil {
		return nil, fmt.Errorf("interp: @%s has no body (a declaration); the interpreter can only run graphs with bodies", g.Name())
	}
	ports := g.Inputs()
	for li, ins := range inputs {
		if len(ins) != len(ports) {
			return nil, fmt.Errorf("interp: @%s takes %d inputs, lane %d has %d", name, len(ports), li, len(ins))
		}
		for i, p := range ports {
			if err := checkPort(p.Type, in.widened(p.Type, ins[i])); err != nil {
				return nil, fmt.Errorf("interp: @%s lane %d input %d (%q): %w", name, li, i, p.Name, err)
			}
		}
	}
	p, err := in.planFor(g)
	if err != nil {
		return nil, err
	}
	in.work, in.workLanes = 0, len(inputs)
	outs, err := in.runLanes(g, p, inputs)
	if we := (*workError)(nil); errors.As(err, &we) {
		return nil, we // as Run: its message names the op
	}
	return outs, err
}

// runLanes is RunLanes' loop over the plan.
func (in *Interp) runLanes(g *graph.Graph, p *plan, inputs [][]*Tensor) (_ [][]*Tensor, err error) {
	body := g.Body()
	var owned map[unsafe.Pointer]bool
	if in.opts.donateInputs {
		owned = donated(inputs)
	}
	lanes := make([]*lane, len(inputs))
	for li, ins := range inputs {
		lanes[li] = newLane(body, ins, owned)
		lanes[li].pool = in.poolFor()
	}
	shared := map[*graph.Value]bool{} // values equal in every lane
	term := graph.TerminatorName(g.Op.Name)
	for i, op := range p.ops {
		if op.Name == term {
			outs := make([][]*Tensor, len(lanes))
			for li, l := range lanes {
				if outs[li], err = l.outputs(g, p, op); err != nil {
					return nil, err
				}
				for k, t := range outs[li] {
					if t.raw != nil {
						outs[li][k] = t.Clone()
					}
				}
			}
			if err := in.checkMapped(); err != nil {
				return nil, err
			}
			return outs, nil
		}
		ins := make([][]*Tensor, len(lanes))
		for li, l := range lanes {
			if ins[li], err = l.operands(g, op); err != nil {
				return nil, err
			}
		}
		switch {
		case laneInvariant(op, shared):
			// Once, in lane 0, then the same tensors in every lane, pinned
			// so that no lane updates them in place.
			if err := in.charge(op, ins[0], false); err != nil {
				return nil, err
			}
			res, err := in.dispatch(p, i, op, ins[0], lanes[0], 0)
			if err != nil {
				return nil, fmt.Errorf("interp: @%s: %s: %w", g.Name(), op.Describe(), err)
			}
			if err := in.bind(g, op, res, lanes[0]); err != nil {
				return nil, err
			}
			for _, r := range op.Results() {
				shared[r] = true
				t := lanes[0].env[r]
				for _, l := range lanes {
					l.env[r] = t
					l.refs.pin(t)
				}
			}
		default:
			for li, l := range lanes {
				if err := in.charge(op, ins[li], in.updatesInPlace(p, i, op, ins[li], l)); err != nil {
					return nil, err
				}
			}
			res, ok, err := in.stacked(op, ins, shared)
			if err != nil {
				return nil, fmt.Errorf("interp: @%s: %s: %w", g.Name(), op.Describe(), err)
			}
			for li, l := range lanes {
				var r []*Tensor
				if ok {
					r = []*Tensor{res[li]}
				} else if r, err = in.dispatch(p, i, op, ins[li], l, 0); err != nil {
					return nil, fmt.Errorf("interp: @%s: %s: %w", g.Name(), op.Describe(), err)
				}
				if err := in.bind(g, op, r, l); err != nil {
					return nil, err
				}
			}
		}
		for _, l := range lanes {
			l.free(p, i)
		}
	}
	return nil, fmt.Errorf("interp: @%s does not end in %s", g.Name(), term)
}

// laneInvariant reports whether op computes the same values in every lane:
// all its operands are (constants have none), and it neither touches state
// nor holds regions (which may read lane values of the enclosing graph).
func laneInvariant(op *graph.Operation, shared map[*graph.Value]bool) bool {
	if isStateOp(op.Name) || len(op.Regions) > 0 || op.Name == "coreai.invoke" || op.Name == "func.call" {
		return false
	}
	for _, r := range op.Results() {
		if isToken(r.Type()) {
			return false
		}
	}
	for _, v := range op.Operands() {
		if !shared[v] {
			return false
		}
	}
	return true
}

// stacksLanes reports whether op is a conv or matmul whose operands but
// the first are the same in every lane: one stacked may run once on the
// lanes' activations (EstimateLanesMemory counts the stacked copies).
func stacksLanes(op *graph.Operation, shared map[*graph.Value]bool) bool {
	k := canonical(op.Name)
	if (k != "conv" && k != "matmul") || op.NumResults() != 1 || op.NumOperands() < 2 || shared[op.Operand(0)] {
		return false
	}
	for j := 1; j < op.NumOperands(); j++ {
		if !shared[op.Operand(j)] {
			return false
		}
	}
	return true
}

// stacked runs a conv or matmul whose weight is shared by every lane once
// on the lanes' activations stacked along the batch axis (conv) or the row
// axis (matmul), and splits the result per lane. ok is false for any other
// op, or when the lanes' activations cannot be stacked that way (shapes
// that differ, a batch axis other than 1, a transposed left operand).
func (in *Interp) stacked(op *graph.Operation, ins [][]*Tensor, shared map[*graph.Value]bool) ([]*Tensor, bool, error) {
	if !stacksLanes(op, shared) {
		return nil, false, nil
	}
	res, ok, err := in.stackLanes(op, ins)
	if !ok && in.pairing != nil {
		in.pairing.pairSkip(op) // runs per lane: the other side runs it alone
	}
	return res, ok, err
}

// stackLanes is stacked past its first test.
func (in *Interp) stackLanes(op *graph.Operation, ins [][]*Tensor) ([]*Tensor, bool, error) {
	k := canonical(op.Name)
	x0 := ins[0][0]
	if !x0.Elem.IsFloat() || len(x0.Shape) < 2 {
		return nil, false, nil
	}
	for _, l := range ins[1:] {
		if l[0].Elem != x0.Elem || !slices.Equal(l[0].Shape, x0.Shape) {
			return nil, false, nil
		}
	}
	// The axis the lanes are stacked on: conv's batch (0); matmul's rows
	// (rank−2), with every axis before it of size 1 so that the stacked
	// rows are the lanes' data one after the other.
	axis := 0
	if k == "matmul" {
		if ta, _ := matmulTransposes(op); ta {
			return nil, false, nil
		}
		axis = len(x0.Shape) - 2
		w := ins[0][1]
		if len(w.Shape) < 2 || len(w.Shape) > len(x0.Shape) {
			return nil, false, nil
		}
		for _, d := range append(slices.Clone(x0.Shape[:axis]), w.Shape[:len(w.Shape)-2]...) {
			if d != 1 {
				return nil, false, nil
			}
		}
	} else if x0.Shape[0] != 1 {
		return nil, false, nil
	}
	xs := make([]*Tensor, len(ins))
	for li, l := range ins {
		xs[li] = l[0]
	}
	if ps := in.pairing; ps != nil {
		if out, ok, err := ps.pairStacked(in, op, ins[0], xs, axis); ok || err != nil {
			return out, true, err
		}
	}
	out, err := in.stackExec(op, ins[0], xs, axis)
	return out, true, err
}

// stackExec runs op once with operand 0 the activations xs stacked on
// axis (its other operands args') and splits the result per activation.
func (in *Interp) stackExec(op *graph.Operation, args, xs []*Tensor, axis int) ([]*Tensor, error) {
	x0 := xs[0]
	n := x0.Len()
	data := make([]float32, 0, n*len(xs))
	for _, x := range xs {
		data = append(data, x.Floats()[:n]...)
	}
	shape := slices.Clone(x0.Shape)
	shape[axis] *= len(xs)
	args = slices.Clone(args)
	args[0] = NewFloat(x0.Elem, shape, data)
	res, err := in.safeExec(op, refOf(op.Name), args, site{})
	if err != nil {
		return nil, err
	}
	if len(res) != 1 || !res[0].Elem.IsFloat() || len(res[0].Shape) <= axis || res[0].Shape[axis]%len(xs) != 0 {
		return nil, fmt.Errorf("stacked %d lanes gave %v", len(xs), res)
	}
	r := res[0]
	m := r.Len() / len(xs)
	per := slices.Clone(r.Shape)
	per[axis] /= len(xs)
	rf := r.Floats()
	out := make([]*Tensor, len(xs))
	for li := range xs {
		out[li] = NewFloat(r.Elem, slices.Clone(per), slices.Clone(rf[li*m:(li+1)*m]))
	}
	return out, nil
}
