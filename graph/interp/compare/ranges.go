package compare

import (
	"math"
	"sort"
	"strconv"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
)

// Range is one op whose results, over the whole run, left the fp16 range,
// met a saturation point of the Neural Engine profile, or became inf/NaN
// (`verify --ranges`).
type Range struct {
	Graph  string // "reference" or "candidate"
	OpID   string // opName(op)
	Source string // file:line, or ""
	Op     string
	MaxAbs float64  // largest magnitude of its results: +Inf once one was ±inf, NaN when all were NaN
	Flags  []string // sorted
}

// rangeAcc is what the run has seen of one op.
type rangeAcc struct {
	maxAbs float64
	valued bool // some result element was not NaN
	flags  map[string]bool
}

// rangeRec watches one graph's ops through interp.Options.Observe and
// Saturated. It never changes a value.
type rangeRec struct {
	graph string
	fam   interp.Family
	names *opNames
	accs  map[*graph.Operation]*rangeAcc
}

func newRangeRec(graphName string, fam interp.Family, names *opNames) *rangeRec {
	return &rangeRec{graph: graphName, fam: fam, names: names, accs: map[*graph.Operation]*rangeAcc{}}
}

func (r *rangeRec) acc(op *graph.Operation) *rangeAcc {
	a := r.accs[op]
	if a == nil {
		a = &rangeAcc{flags: map[string]bool{}}
		r.accs[op] = a
	}
	return a
}

// hook wires the recorder into opts (keeping an Observe already there).
func (r *rangeRec) hook(opts *interp.Options) {
	prev, prevSat := opts.Observe, opts.Saturated
	opts.Observe = func(op *graph.Operation, res []*interp.Tensor) {
		if prev != nil {
			prev(op, res)
		}
		r.observe(op, res)
	}
	opts.Saturated = func(op *graph.Operation, rule string, n int) {
		if prevSat != nil {
			prevSat(op, rule, n)
		}
		r.acc(op).flags[rule] = true
	}
}

func (r *rangeRec) observe(op *graph.Operation, res []*interp.Tensor) {
	// Constants are the same every step, and a weight scan per step would
	// cost a read of the model; `check` reports unsafe constants.
	if op.Name == "coreai.constant" || op.Name == "arith.constant" {
		return
	}
	cliff, hasCliff := interp.CliffOf(op, r.fam)
	var a *rangeAcc
	for _, t := range res {
		// A weight passed through a shape-only op (a transposed tied head)
		// is a constant too; widening it would cost a weight read per op.
		if t == nil || !t.Elem.IsFloat() || t.FromWeight() {
			continue
		}
		// |v| as bits: for non-negative floats the bit patterns order as
		// the values do, so the scan is integer compares (it runs over
		// every result, KV caches included, each step).
		const absMask, infBits = 0x7fffffff, 0x7f800000
		limit := math.Float32bits(float32(interp.FP16Max))
		cliffBits := uint32(infBits)
		if hasCliff && cliff.Limit < math.MaxFloat32 {
			// the largest float32 at most Limit: x > Limit ⇔ x > it
			f := float32(cliff.Limit)
			if float64(f) > cliff.Limit {
				f = math.Nextafter32(f, 0)
			}
			cliffBits = math.Float32bits(f)
		}
		var peakBits uint32
		var inf, nan, beyond, past, valued bool
		for _, v := range t.Floats() {
			x := math.Float32bits(v) & absMask
			switch {
			case x > infBits:
				nan = true
			case x == infBits:
				inf = true
			default:
				peakBits = max(peakBits, x)
				valued = true
			}
		}
		beyond = peakBits > limit
		past = hasCliff && peakBits > cliffBits
		peak := float64(math.Float32frombits(peakBits))
		if inf {
			// An op whose values all went inf reached no finite peak: its
			// magnitude is inf, not the 0 a finite-only peak would print.
			peak, valued = math.Inf(1), true
		}
		if a == nil {
			a = r.acc(op)
		}
		a.maxAbs = math.Max(a.maxAbs, peak)
		a.valued = a.valued || valued
		set := func(c bool, f string) {
			if c {
				a.flags[f] = true
			}
		}
		set(nan, "nan")
		set(inf, "inf")
		set(beyond, "beyond-fp16")
		set(past, cliff.Rule)
	}
}

// result lists the flagged ops in the order the graph's ops are written.
func (r *rangeRec) result() []Range {
	var out []Range
	for op, a := range r.accs {
		if len(a.flags) == 0 {
			continue
		}
		e := Range{Graph: r.graph, OpID: r.names.id(op), Source: graph.Source(op.Loc), Op: op.Name, MaxAbs: a.maxAbs}
		if !a.valued && a.flags["nan"] {
			e.MaxAbs = math.NaN() // only NaN: no magnitude to print
		}
		for f := range a.flags {
			e.Flags = append(e.Flags, f)
		}
		sort.Strings(e.Flags)
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return r.names.less(out[i].OpID, out[j].OpID) })
	return out
}

// opNames names the ops of one module for reports: graph.OpLabel of the
// location, else "<op name> #<index>" (its position in a walk of the
// module), and remembers the walk order for sorting.
type opNames struct {
	index map[*graph.Operation]int
	order map[string]int
}

func newOpNames(m *graph.Module) *opNames {
	n := &opNames{index: map[*graph.Operation]int{}, order: map[string]int{}}
	i := 0
	m.Op.Walk(func(op *graph.Operation) bool {
		n.index[op] = i
		i++
		return true
	})
	return n
}

func (n *opNames) id(op *graph.Operation) string {
	s := graph.OpLabel(op.Loc)
	if s == "" {
		s = op.Name + " #" + strconv.Itoa(n.index[op])
	}
	if _, ok := n.order[s]; !ok {
		n.order[s] = n.index[op]
	}
	return s
}

func (n *opNames) less(a, b string) bool {
	if n.order[a] != n.order[b] {
		return n.order[a] < n.order[b]
	}
	return a < b
}
