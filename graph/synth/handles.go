package synth

import (
	"fmt"

	"github.com/anefix/anefix/graph"
)

// State forms (testdata/mlir/coreai/README.md). The converter emits tensor-typed states
// marked by MutableBuffers.buffer_mutation; AIProgram.optimize(), which
// Apple's iOS export runs, turns each into a `!coreai.handle<tensor<…>>`
// input read with coreai.read_handle and written with coreai.write_handle,
// threaded by `!coreai.token`s, and returns the final token.
const (
	StateTensor = "tensor"
	StateHandle = "handle"
)

var tokenType = &graph.OpaqueType{Text: "!coreai.token"}

// toHandleStates rewrites every state of every graph from the tensor form
// to the handle form: create_token, one read_handle per state at the top
// (in input order), one write_handle per state before coreai.output (in
// output order), the state outputs returning the write tokens.
func toHandleStates(m *graph.Module) error {
	for _, g := range m.Graphs() {
		body, term := g.Body(), g.Terminator()
		if body == nil || term == nil {
			continue
		}
		// The output carrying each state's new value, as every pass pairs
		// them (graph/states.go).
		sa := graph.States(g, graph.StateOptions{NoAuto: true})
		var tok *graph.Value
		var anchor *graph.Operation // last op inserted at the top
		insertTop := func(op *graph.Operation) {
			if anchor == nil {
				body.Prepend(op)
			} else {
				op.InsertAfter(anchor)
			}
			anchor = op
		}
		handles := map[int]*graph.Value{}
		for _, in := range g.Inputs() {
			sp, ok := sa.ForInput(in.Index)
			if !ok || sp.Form != graph.StateAttribute {
				continue
			}
			if sp.Out < 0 {
				return fmt.Errorf("synth: @%s: state %s names missing output %q", g.Name(), in.Name, in.StateOutput)
			}
			t, ok := in.Type.(*graph.TensorType)
			if !ok {
				continue // already a handle
			}
			if tok == nil {
				c := graph.NewOp("coreai.create_token", nil, []graph.Type{tokenType}, nil, graph.Unknown)
				insertTop(c)
				tok = c.Result(0)
			}
			h := body.Arg(in.Index)
			uses := append([]graph.Use(nil), h.Uses()...)
			rd := graph.NewOp("coreai.read_handle", []*graph.Value{h, tok}, []graph.Type{t, tokenType}, nil, graph.Unknown)
			insertTop(rd)
			for _, u := range uses {
				u.Op.SetOperand(u.Index, rd.Result(0))
			}
			tok = rd.Result(1)
			g.SetInputType(in.Index, &graph.OpaqueType{Text: "!coreai.handle<" + t.String() + ">"})
			handles[sp.Out] = h
		}
		for j := 0; j < term.NumOperands(); j++ {
			h, ok := handles[j]
			if !ok {
				continue
			}
			wr := graph.NewOp("coreai.write_handle", []*graph.Value{h, term.Operand(j), tok}, []graph.Type{tokenType}, nil, graph.Unknown)
			wr.InsertBefore(term)
			tok = wr.Result(0)
			term.SetOperand(j, tok)
			g.SetOutputType(j, tokenType)
		}
	}
	return nil
}
