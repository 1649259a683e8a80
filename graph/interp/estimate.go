package interp

import (
	"math"

	"github.com/anefix/anefix/graph"
)

// EstimateMemory returns the anonymous memory (heap) one Run of graph name
// needs, in bytes, computed from the declared types before anything runs,
// so that a tiny file declaring a huge shape is refused instead of ending
// in Go's out-of-memory crash:
//   - constants the interpreter materializes: dense<…> and integer or f8
//     dense_resource<…> at 4 bytes per float element and 8 per integer
//     (Tensor.F is float32, Tensor.I int64), cached for the Interp's life;
//     float dense_resource blobs cost nothing: they are read in place,
//     from a file mapping (page cache, not counted) or the loaded blob,
//     and so do palette indices that only folded lut_to_dense ops read;
//   - each lut_to_dense of constants, computed once and kept in its
//     element type's bytes (fold.go), like a constant;
//   - the live set of values over the graph's op order (a value lives from
//     its op to its last reader, as planFor frees them), its inputs
//     included; an op with regions or a call adds the peak of its
//     regions or callee while it runs.
//
// It over-counts views (a reshape shares its operand's buffer but is
// counted again) and dynamic dimensions count as 1 (a guess: the
// interpreter runs only static shapes). Sizes saturate at MaxInt64
// (graph.SatMul, graph.SatAdd), never wrap.
func EstimateMemory(m *graph.Module, name string) int64 {
	return EstimateLanesMemory(m, name, 1)
}

// EstimateLanesMemory is EstimateMemory for RunLanes with the given number
// of lanes: the constants once; the values RunLanes computes once for all
// lanes (laneInvariant: a transposed or dequantized weight) once; every
// other live value once per lane; and at a matmul or conv on a shared
// weight, the lanes' activations and results stacked (RunLanes' stacked).
func EstimateLanesMemory(m *graph.Module, name string, lanes int) int64 {
	e := &estimator{m: m, peaks: map[*graph.Operation]int64{}, busy: map[*graph.Operation]bool{}}
	g := m.Graph(name)
	if g == nil {
		return 0
	}
	for _, gg := range m.Graphs() {
		gg.Op.Walk(func(o *graph.Operation) bool {
			e.consts = graph.SatAdd(e.consts, e.constBytes(o))
			return true
		})
	}
	if lanes <= 1 {
		return graph.SatAdd(e.consts, e.graphPeak(g))
	}
	return graph.SatAdd(e.consts, e.blockPeak(g.Body(), int64(lanes)))
}

type estimator struct {
	m      *graph.Module
	consts int64
	peaks  map[*graph.Operation]int64
	busy   map[*graph.Operation]bool // graphs being estimated (recursion)
}

// valueBytes is the heap a value of type t takes in the interpreter.
func valueBytes(t graph.Type) int64 {
	tt, ok := graph.AsTensor(t)
	if !ok {
		return 0
	}
	per := int64(8)
	if el, err := ElemOf(tt.Elem); err == nil && el.IsFloat() {
		per = 4
	}
	n := per
	for _, d := range tt.Shape {
		if d == graph.Dynamic {
			d = 1
		}
		n = graph.SatMul(n, d) // a 0 dim makes the value empty, whatever the others
	}
	return n
}

func (e *estimator) constBytes(o *graph.Operation) int64 {
	if foldsLUT(o) {
		tt, _ := graph.AsTensor(o.Result(0).Type())
		n, err := tt.ByteSize()
		if err != nil {
			return math.MaxInt64
		}
		return n
	}
	if !isConstant(o.Name) || len(o.Results()) != 1 || lazyIndices(o) {
		return 0
	}
	if a, ok := o.Inherent("value").(*graph.DenseResourceAttr); ok {
		if el, err := ElemOf(a.Type.Elem); err == nil && el.IsFloat() && el != F8E4M3FN {
			return 0 // read in place (resourceTensor)
		}
	}
	return valueBytes(o.Result(0).Type())
}

// graphPeak is the peak live set of one run of g's body (constants apart).
func (e *estimator) graphPeak(g *graph.Graph) int64 {
	if p, ok := e.peaks[g.Op]; ok {
		return p
	}
	if e.busy[g.Op] {
		return 0 // recursion: the interpreter bounds its depth
	}
	e.busy[g.Op] = true
	p := e.blockPeak(g.Body(), 1)
	delete(e.busy, g.Op)
	e.peaks[g.Op] = p
	return p
}

// blockPeak is the peak live set of b run for the given number of lanes
// (1: Run; more: RunLanes, which runs a lane-invariant op once for all
// lanes and regions and callees once per lane).
func (e *estimator) blockPeak(b *graph.Block, lanes int64) int64 {
	if b == nil {
		return 0 // a declaration: the interpreter refuses to call it, by name
	}
	ops := b.Ops()
	last := map[*graph.Value]int{}
	for i, op := range ops {
		op.Walk(func(o *graph.Operation) bool {
			for _, v := range o.Operands() {
				last[v] = i
			}
			return true
		})
	}
	// live and frees per lane; liveOnce and freesOnce for the values
	// computed once for all lanes.
	frees, freesOnce := make([]int64, len(ops)), make([]int64, len(ops))
	var live, liveOnce int64
	for _, a := range b.Args() {
		live = graph.SatAdd(live, valueBytes(a.Type()))
		if i, ok := last[a]; ok {
			frees[i] = graph.SatAdd(frees[i], valueBytes(a.Type()))
		}
	}
	shared := map[*graph.Value]bool{}
	peak := graph.SatMul(live, lanes)
	for i, op := range ops {
		var inner int64
		for _, r := range op.Regions {
			for _, rb := range r.Blocks {
				inner = max(inner, e.blockPeak(rb, 1))
			}
		}
		if c, ok := graph.Callee(op); ok {
			if cg := e.m.Graph(c); cg != nil {
				inner = max(inner, e.graphPeak(cg))
			}
		}
		once := lanes > 1 && laneInvariant(op, shared)
		if lanes > 1 && !once && stacksLanes(op, shared) {
			// The lanes' activations and results, stacked, beside theirs.
			inner = graph.SatAdd(inner, graph.SatAdd(valueBytes(op.Operand(0).Type()), valueBytes(op.Result(0).Type())))
		}
		var res, resOnce int64
		constant := isConstant(op.Name) || foldsLUT(op)
		for _, v := range op.Results() {
			if once {
				shared[v] = true
			}
			if constant {
				continue // counted once in consts
			}
			s := valueBytes(v.Type())
			j, ok := last[v]
			if !ok {
				j = i // unused: dropped after its op
			}
			if once {
				resOnce = graph.SatAdd(resOnce, s)
				freesOnce[j] = graph.SatAdd(freesOnce[j], s)
			} else {
				res = graph.SatAdd(res, s)
				frees[j] = graph.SatAdd(frees[j], s)
			}
		}
		live, liveOnce = graph.SatAdd(live, res), graph.SatAdd(liveOnce, resOnce)
		peak = max(peak, graph.SatAdd(liveOnce, graph.SatMul(graph.SatAdd(live, inner), lanes)))
		live -= frees[i]
		liveOnce -= freesOnce[i]
	}
	return peak
}
