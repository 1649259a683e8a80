package interp

import (
	"fmt"

	"github.com/anefix/anefix/graph"
)

// The work bound: maxIterations stops one loop and maxDepth one chain of
// calls, but loops nested in loops, or graphs that each call the next
// twice, multiply under both caps (a 1.2 KB file of two nested loops of
// 10^6 iterations, or 40 graphs calling the next twice: 2^40 calls). So
// every Run counts the work of the ops it executes and stops, naming the
// op, when the count passes Options.MaxWork.
//
// Work is counted in units of one element of a plain kernel (an add, a
// reduction, a copy: about 5 ns each here, allocation and all). An op
// costs OpWork (running any op, however small: 1–2 µs of dispatch, maps
// and allocation, counted high) plus the elements it reads or writes,
// whichever is more (its results as declared: the bound is checked before
// the op runs). Except: a gather or slice reads only what it writes (and
// its indices), a slice_update in place writes only its update, a reshape
// (or a weight's 2-D transpose) is a view and costs nothing more, and a
// matmul or convolution's multiply-adds, which its vector kernels do about
// 8 times as fast, count termsPerUnit to a unit when they are more than
// its outputs. Constants cost OpWork only (computed once per Interp), and
// so does each iteration of a loop; a call costs callWork more. The ops
// inside a loop, branch or called graph are counted as they run.

// DefaultMaxWork is the bound of a Run whose Options.MaxWork is 0: 2^33
// (≈ 8.6·10^9) units, 2^23 (≈ 8.4·10^6) ops at most. Measured on issue
// 28's hostile graphs (2026-12-03, a loaded 2-core machine, user CPU): a
// loop adding to a 4M-element tensor stopped after 48 s, two nested loops
// of small ops after 13 s, 40 graphs calling the next twice after 12 s. A
// decode step of full-scale synth arm A counts 2.1·10^8, a fortieth of it
// (BenchmarkDecodeStep's work/token); TestWorkOfDecodeSteps counts the
// tiny arms.
const DefaultMaxWork int64 = 1 << 33

// OpWork is the fixed work of one op.
const OpWork = 1024

// callWork is what a call costs beyond OpWork: a new frame (the callee's
// value map and state), measured at about five ops' time.
const callWork = 4 * OpWork

// termsPerUnit is how many multiply-adds of a matmul or convolution make
// a unit of work.
const termsPerUnit = 8

// workError is the error of a Run stopped by its work bound.
type workError struct {
	Op    *graph.Operation // the op that would have passed the bound
	Done  int64            // work counted before it
	Bound int64
}

func (e *workError) Error() string {
	return fmt.Sprintf("interp: %s: the run has counted %d units of work (an op costs %d plus the elements it reads or writes; loops and calls included), and this op would pass the bound of %d (anefix verify --max-work): the graph's loops or calls repeat too much work to finish; raise the bound if it really does this much",
		e.Op.DescribeInGraph(), e.Done, OpWork, e.Bound)
}

// Work is the work the last Run counted (for tests and reports).
func (in *Interp) Work() int64 { return in.work }

// charge counts op's work before it runs, and refuses it past the bound.
func (in *Interp) charge(op *graph.Operation, ins []*Tensor, inPlace bool) error {
	w := graph.SatAdd(OpWork, opElements(op, ins, inPlace))
	bound := in.opts.MaxWork
	if bound <= 0 {
		bound = DefaultMaxWork
	}
	bound = graph.SatMul(bound, int64(max(in.workLanes, 1))) // RunLanes: the bound of each lane
	if graph.SatAdd(in.work, w) > bound {
		return &workError{Op: op, Done: in.work, Bound: bound}
	}
	in.work += w
	return nil
}

// opElements is op's work beyond its fixed cost. inPlace says a
// slice_update writes into its operand's buffer (only the update is
// written).
func opElements(op *graph.Operation, ins []*Tensor, inPlace bool) int64 {
	switch op.Name {
	case "coreai.constant", "arith.constant":
		return 0
	case "coreai.while", "coreai.if":
		return 0 // what runs inside is counted as it runs
	case "coreai.invoke", "func.call":
		return callWork // and the callee's ops as they run
	}
	size := func(ts []*Tensor) int64 {
		var n int64
		for _, t := range ts {
			if t != nil {
				n = graph.SatAdd(n, int64(t.Len()))
			}
		}
		return n
	}
	var wrote int64
	for _, r := range op.Results() {
		if tt, ok := graph.AsTensor(r.Type()); ok && tt.IsStatic() {
			if n, err := tt.ElementCount(); err == nil {
				wrote = graph.SatAdd(wrote, n)
			}
		}
	}
	first := func() *Tensor {
		if len(ins) == 0 {
			return nil
		}
		return ins[0]
	}()
	switch canonical(op.Name) {
	case "reshape", "expand_dims", "shrink_dims", "flatten":
		return 0 // a view of its operand's data
	case "transpose":
		if first != nil && first.FromWeight() && len(first.Shape) == 2 {
			return 0 // a weight's transpose is a view of its blob (transpose)
		}
	case "gather", "gather_nd", "gather_along_axis", "slice":
		// They read what they write (and their indices), not the table.
		if len(ins) > 0 {
			return graph.SatAdd(wrote, size(ins[1:]))
		}
	case "slice_update":
		if inPlace && len(ins) > 1 {
			return graph.SatAdd(int64(ins[1].Len()), size(ins[2:]))
		}
	case "matmul":
		// Each output sums K products: K is x's last axis (the one
		// before it when x is transposed).
		if first != nil && len(first.Shape) > 0 {
			s := first.Shape
			k := s[len(s)-1]
			if ta, _ := matmulTransposes(op); ta && len(s) >= 2 {
				k = s[len(s)-2]
			}
			return max(wrote, graph.SatMul(wrote, int64(k))/termsPerUnit)
		}
	case "conv", "conv3d", "conv_transpose2d":
		// Each output (each input, transposed) meets a whole filter of
		// the weight (operand 1, output channels first).
		if len(ins) >= 2 && first != nil && ins[1] != nil && len(ins[1].Shape) > 0 && ins[1].Shape[0] > 0 {
			per := int64(ins[1].Len() / ins[1].Shape[0])
			return max(wrote, graph.SatMul(max(wrote, int64(first.Len())), per)/termsPerUnit)
		}
	}
	return max(size(ins), wrote)
}
