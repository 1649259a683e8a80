package interp

import (
	"fmt"

	"github.com/anefix/anefix/graph"
)

// States in the handle form (testdata/states/handle-f32.mlir, after coreai-torch's
// make_stateful): a `!coreai.handle<tensor<…>>` graph argument read with
// `%v, %t1 = coreai.read_handle %h, %t0` and written with
// `%t2 = coreai.write_handle %h, %v, %t1`, the accesses ordered by
// `!coreai.token`s that start at `coreai.create_token`; the graph returns a
// token for each state. The interpreter runs the body in block order, which
// (SSA dominance) respects every token dependency, and treats a token as
// carrying no data. The caller passes a handle argument its state's current
// tensor and gets back, for each token output, the tensor last written to
// the handle that output carries (graph/states.go: the input whose
// MutableBuffers.buffer_mutation or coreai.name equals the output's name),
// so a handle-form graph steps exactly like its tensor-form twin.
// Guess, unconfirmed: that a read after a write on one token chain sees the
// written value (the printed IR shows the chain, not its runtime meaning).

func isHandle(t graph.Type) bool { return graph.IsHandle(t) }
func isToken(t graph.Type) bool  { return graph.IsToken(t) }

func isStateOp(name string) bool {
	switch name {
	case "coreai.create_token", "coreai.read_handle", "coreai.write_handle":
		return true
	}
	return false
}

// token is the value a token-typed result holds: no elements.
var token = &Tensor{Elem: Bool, Shape: []int{0}}

// handleState is what one graph run's handles hold.
type handleState struct {
	contents map[*graph.Value]*Tensor      // handle argument -> its current tensor
	writer   map[*graph.Value]*graph.Value // write_handle token -> the handle it wrote
}

func newHandleState() *handleState {
	return &handleState{contents: map[*graph.Value]*Tensor{}, writer: map[*graph.Value]*graph.Value{}}
}

// exec runs create_token, read_handle or write_handle.
func (s *handleState) exec(op *graph.Operation, ins []*Tensor, refs bufRefs) ([]*Tensor, error) {
	switch op.Name {
	case "coreai.create_token":
		if op.NumOperands() != 0 || op.NumResults() != 1 || !isToken(op.Result(0).Type()) {
			return nil, fmt.Errorf("expected no operands and one !coreai.token result")
		}
		return []*Tensor{token}, nil
	case "coreai.read_handle":
		if op.NumOperands() != 2 || op.NumResults() != 2 || !isToken(op.Result(1).Type()) {
			return nil, fmt.Errorf("expected operands (handle, token) and results (tensor, token)")
		}
		t, err := s.handle(op.Operand(0))
		if err != nil {
			return nil, err
		}
		return []*Tensor{t, token}, nil
	case "coreai.write_handle":
		if op.NumOperands() != 3 || op.NumResults() != 1 || !isToken(op.Result(0).Type()) {
			return nil, fmt.Errorf("expected operands (handle, value, token) and one !coreai.token result")
		}
		h := op.Operand(0)
		old, err := s.handle(h)
		if err != nil {
			return nil, err
		}
		v := ins[1]
		if v.Elem != old.Elem || v.Len() != old.Len() {
			return nil, fmt.Errorf("writes %s into a handle holding %s", v, old)
		}
		if len(v.Shape) != len(old.Shape) {
			c := *v
			c.Shape = old.Shape
			v = &c
		}
		// The handle keeps this buffer past the value's last use in the
		// body: no later op may update it in place.
		refs.pin(v)
		s.contents[h] = v
		s.writer[op.Result(0)] = h
		return []*Tensor{token}, nil
	}
	return nil, fmt.Errorf("not a state op")
}

func (s *handleState) handle(h *graph.Value) (*Tensor, error) {
	t, ok := s.contents[h]
	if !ok {
		return nil, fmt.Errorf("operand 0 is not a !coreai.handle argument of this graph (type %s)", h.Type())
	}
	return t, nil
}

// final is what a token output returns: the last tensor written to handle
// h, the handle the state analysis pairs with the output (graph/states.go:
// the input naming it, else the handle its write_handle wrote), or, when
// it pairs none, the handle the token's own write_handle wrote.
func (s *handleState) final(h, v *graph.Value) (*Tensor, error) {
	if h != nil {
		return s.contents[h], nil
	}
	if h, ok := s.writer[v]; ok {
		return s.contents[h], nil
	}
	return nil, fmt.Errorf("returns a !coreai.token that no handle input names (by MutableBuffers.buffer_mutation or coreai.name) and no write_handle produced; the interpreter cannot tell which state it stands for")
}
