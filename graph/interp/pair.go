package interp

import (
	"fmt"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/anefix/anefix/graph"
)

// Pair runs two interpreters' graphs side by side (verify's REF and CAND)
// so that a conv or matmul that applies the same weight bytes in both
// (a blob SharedBlobs holds once, or what the same ops compute from it)
// in the same way runs once on both graphs' stacked lanes: the weight is
// read once per position for both graphs instead of once per graph. The
// results are RunLanes', bit for bit: a row of a product does not depend
// on the other rows (RunLanes' stacking rests on the same fact), and the
// ops are paired only when both interpreters compute alike (the same
// numerics options, no Saturated hook).
//
// Pairing cannot deadlock: the paired ops are a common subsequence of both
// plans (in the order each graph runs them), so the k-th pair is the next
// one both goroutines meet; a side that runs a paired op alone (its lanes
// could not be stacked) releases the other, and a side that ends (an
// error) releases any op the other waits at.
type Pair struct {
	a, b         *Interp
	aName, bName string
	// order is the paired ops, (a's, b's), in the order both runs meet
	// them; matched at the first Run.
	order   [][2]*graph.Operation
	matched bool
}

// NewPair prepares a and b to run graphs aName and bName together. Both
// must hold their weights in one SharedBlobs (Options.Blobs) for any op
// to pair.
func NewPair(a *Interp, aName string, b *Interp, bName string) *Pair {
	return &Pair{a: a, b: b, aName: aName, bName: bName}
}

// Paired is how many ops run once for both graphs (0 before the first
// Run).
func (p *Pair) Paired() int { return len(p.order) }

// pairSlot is where the two sides of one paired op meet, for one run.
type pairSlot struct {
	mu      sync.Mutex
	offer   *pairOffer
	skipped bool // the side that came first ran alone
}

type pairOffer struct {
	xs    []*Tensor // the offering side's lanes' activations
	axis  int
	taken bool
	reply chan pairReply
}

type pairReply struct {
	out   []*Tensor
	alone bool // compute alone
	err   error
}

// pairSide is an interpreter's part in a run of its Pair.
type pairSide struct {
	slots map[*graph.Operation]*pairSlot
	other chan struct{} // closed when the other side's run ends
}

// Run runs both graphs on their lanes (RunLanes each, on two goroutines)
// and returns each one's outputs and error.
func (p *Pair) Run(ain, bin [][]*Tensor) (aout, bout [][]*Tensor, aerr, berr error) {
	if !p.matched {
		p.safeMatch()
		p.matched = true
	}
	ends := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	if len(p.order) > 0 && len(ain) > 1 && len(bin) > 1 {
		slots := [2]map[*graph.Operation]*pairSlot{{}, {}}
		for _, ops := range p.order {
			s := &pairSlot{}
			slots[0][ops[0]], slots[1][ops[1]] = s, s
		}
		p.a.pairing = &pairSide{slots: slots[0], other: ends[1]}
		p.b.pairing = &pairSide{slots: slots[1], other: ends[0]}
		defer func() { p.a.pairing, p.b.pairing = nil, nil }()
	}
	go func() {
		defer close(ends[1])
		bout, berr = p.b.RunLanes(p.bName, bin)
	}()
	func() {
		defer close(ends[0])
		aout, aerr = p.a.RunLanes(p.aName, ain)
	}()
	<-ends[1]
	return
}

// safeMatch is match with a weight file's fault (truncated under anefix:
// matching maps and compares blobs) leaving the ops unpaired; the runs then
// meet the fault themselves and name the file.
func (p *Pair) safeMatch() {
	defer debug.SetPanicOnFault(panicOnFault())
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(faultAddr); !ok {
				panic(r)
			}
			p.order = nil
		}
	}()
	p.match()
}

// match pairs the ops of both plans that stack on a shared weight with
// the same signature, as the longest common subsequence of the two
// sequences (the order both runs meet them).
func (p *Pair) match() {
	if p.a.opts.Blobs == nil || p.a.opts.Blobs != p.b.opts.Blobs || !sameNumerics(p.a.opts, p.b.opts) {
		return
	}
	seqs := [2][]stackOp{}
	for s, side := range []struct {
		in   *Interp
		name string
	}{{p.a, p.aName}, {p.b, p.bName}} {
		g := side.in.graphs[side.name]
		if g == nil || g.Body() == nil {
			return
		}
		pl, err := side.in.planFor(g)
		if err != nil {
			return
		}
		seqs[s] = side.in.stackOps(pl)
	}
	p.order = commonOrder(seqs[0], seqs[1])
}

// maxPairCells bounds commonOrder's table (4 bytes a cell: 64 MiB). Past
// it the ops run unpaired: the same results, each graph reading its own
// weights (a real model pairs a few hundred ops; full-scale arm A 133).
const maxPairCells = 1 << 24

// commonOrder is the longest common subsequence of x and y by signature,
// as pairs in the order both runs meet them; nil when the table would
// pass maxPairCells.
func commonOrder(x, y []stackOp) [][2]*graph.Operation {
	if int64(len(x)+1)*int64(len(y)+1) > maxPairCells {
		return nil
	}
	var order [][2]*graph.Operation
	// lcs[i][j]: the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i].sig == y[j].sig {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i].sig == y[j].sig:
			order = append(order, [2]*graph.Operation{x[i].op, y[j].op})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	return order
}

// sameNumerics reports whether two interpreters compute an op alike.
func sameNumerics(a, b Options) bool {
	return a.AccumulateF16 == b.AccumulateF16 && a.ANE == b.ANE && a.Wide == b.Wide && a.Saturated == nil && b.Saturated == nil
}

// stackOp is an op RunLanes may stack (stacksLanes) and what decides
// whether another graph's op computes the same from the same weight.
type stackOp struct {
	op  *graph.Operation
	sig string
}

// stackOps are the ops of plan pl RunLanes runs on stacked lanes, with
// their signatures; ops whose weight has none (not from held blobs and
// short inline values alone) are left out.
func (in *Interp) stackOps(pl *plan) []stackOp {
	shared := map[*graph.Value]bool{}
	sigs := map[*graph.Value]string{}
	var out []stackOp
	for _, op := range pl.ops {
		if laneInvariant(op, shared) {
			for _, r := range op.Results() {
				shared[r] = true
			}
			continue
		}
		if !stacksLanes(op, shared) {
			continue
		}
		sig := opSig(op)
		ok := true
		for _, v := range op.Operands()[1:] {
			vs, vok := in.valueSig(v, sigs, 0)
			if !vok {
				ok = false
				break
			}
			sig += "(" + vs + ")"
		}
		if ok {
			out = append(out, stackOp{op, sig})
		}
	}
	return out
}

// opSig is an op's name, attributes and operand and result types.
func opSig(op *graph.Operation) string {
	sig := op.Name
	if op.Props != nil {
		sig += " " + op.Props.String()
	}
	if op.Attrs != nil {
		sig += " " + op.Attrs.String()
	}
	for _, v := range op.Operands() {
		sig += " " + v.Type().String()
	}
	for _, v := range op.Results() {
		sig += " -> " + v.Type().String()
	}
	return sig
}

// maxSigBytes bounds a value's signature: a value that uses another twice
// doubles its text at every level (40 chained x+x would need terabytes);
// past the bound the value has none and its op runs unpaired.
const maxSigBytes = 64 << 10

// valueSig is what a lane-invariant value is computed from, as text: a
// weight blob by the address of the bytes the store holds for it, a short
// inline value by its text, another op's result by the op's signature
// and its operands'. false when some part has none or it would pass
// maxSigBytes.
func (in *Interp) valueSig(v *graph.Value, memo map[*graph.Value]string, depth int) (string, bool) {
	if s, ok := memo[v]; ok {
		return s, s != ""
	}
	d := v.DefiningOp()
	if d == nil || depth > 32 || len(d.Regions) > 0 {
		return "", false
	}
	var sig string
	if isConstant(d.Name) {
		switch a := d.Inherent("value").(type) {
		case *graph.DenseResourceAttr:
			r := in.m.Resource(a.Key)
			if r == nil || r.Blob == nil {
				break
			}
			// Through the store, as the constant's first run would: the
			// same bytes for a blob byte-identical in both modules.
			if data, err := in.blobBytes(r); err == nil && len(data) > 0 {
				sig = fmt.Sprintf("blob %p %d %s", &data[0], len(data), a.Type)
			}
		case *graph.DenseElementsAttr:
			if n, err := a.Type.ByteSize(); err == nil && n <= 64<<10 {
				sig = a.String()
			}
		}
	} else {
		sig = opSig(d)
		for i, r := range d.Results() {
			if r == v {
				sig += fmt.Sprintf(" #%d", i)
			}
		}
		for _, o := range d.Operands() {
			os, ok := in.valueSig(o, memo, depth+1)
			if !ok || len(sig)+len(os) > maxSigBytes {
				sig = ""
				break
			}
			sig += "(" + os + ")"
		}
	}
	memo[v] = sig
	return sig, sig != ""
}

// pairStacked runs op, which RunLanes stacks on axis for this side's
// lanes' activations xs, once for both sides when op is paired and the
// other side's lanes stack alike; ok is false when op runs alone.
func (ps *pairSide) pairStacked(in *Interp, op *graph.Operation, args, xs []*Tensor, axis int) ([]*Tensor, bool, error) {
	sl := ps.slots[op]
	if sl == nil {
		return nil, false, nil
	}
	sl.mu.Lock()
	if sl.skipped {
		sl.mu.Unlock()
		return nil, false, nil
	}
	if o := sl.offer; o != nil {
		o.taken = true
		sl.mu.Unlock()
		x0, y0 := xs[0], o.xs[0]
		if o.axis != axis || x0.Elem != y0.Elem || !slices.Equal(x0.Shape, y0.Shape) {
			o.reply <- pairReply{alone: true}
			return nil, false, nil
		}
		out, err := in.stackExec(op, args, append(slices.Clone(xs), o.xs...), axis)
		if err != nil {
			o.reply <- pairReply{err: err}
			return nil, true, err
		}
		o.reply <- pairReply{out: out[len(xs):]}
		return out[:len(xs)], true, nil
	}
	o := &pairOffer{xs: xs, axis: axis, reply: make(chan pairReply, 1)}
	sl.offer = o
	sl.mu.Unlock()
	select {
	case r := <-o.reply:
		return r.out, !r.alone, r.err
	case <-ps.other:
		sl.mu.Lock()
		taken := o.taken
		sl.offer, sl.skipped = nil, true
		sl.mu.Unlock()
		if !taken {
			return nil, false, nil
		}
		r := <-o.reply // the taker always replies
		return r.out, !r.alone, r.err
	}
}

// pairSkip tells the other side that this side runs op alone.
func (ps *pairSide) pairSkip(op *graph.Operation) {
	sl := ps.slots[op]
	if sl == nil {
		return
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if o := sl.offer; o != nil && !o.taken {
		o.taken = true
		o.reply <- pairReply{alone: true}
		return
	}
	sl.skipped = true
}
