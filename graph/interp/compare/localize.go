package compare

import (
	"math"
	"sort"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
)

// localizeOp is one matched op of `verify --localize`.
type localizeOp struct {
	OpID, Source, Op string
	// RelError is the largest ‖ref − cand‖/‖ref‖ of the op's results over
	// the run; Growth the largest increase of it over the worst error
	// among the op's operands in the same execution.
	RelError, Growth float64
	order            int
}

// localize ranks the matched ops by how much error each adds.
type localize struct {
	Matched, UnmatchedRef, UnmatchedCand int
	// Skipped counts reference results not kept for comparison because
	// they would have passed localizeBudget.
	Skipped int
	Ops     []localizeOp // all matched ops that ran, largest growth first
}

// localizeBudget bounds the reference results kept per position (float32
// elements: 512 MiB); results past it are skipped and counted.
const localizeBudget = 1 << 27

// matchKey is what identifies an op across a rewrite: its op id (FX name),
// its source location and its name. Ops with neither id nor source cannot
// be matched, nor can constants (a rewrite re-types them) or ops without
// results.
func matchKey(op *graph.Operation) (string, bool) {
	if op.NumResults() == 0 || op.Name == "coreai.constant" || op.Name == "arith.constant" {
		return "", false
	}
	id, src := graph.OpID(op.Loc), graph.Source(op.Loc)
	if id == "" && src == "" {
		return "", false
	}
	return id + "\x00" + src + "\x00" + op.Name, true
}

// localizeBytes bounds what --localize keeps of one position: the float
// results of the reference's matchable ops by their declared shapes (each
// op once), at most localizeBudget elements.
func localizeBytes(m *graph.Module) int64 {
	var n int64
	m.Op.Walk(func(op *graph.Operation) bool {
		if _, ok := matchKey(op); ok {
			for _, r := range op.Results() {
				if tt, ok := graph.AsTensor(r.Type()); ok && tt.IsStatic() && tt.Elem.String() != "i1" {
					c, err := tt.ElementCount()
					if err != nil {
						c = localizeBudget
					}
					n = min(graph.SatAdd(n, c), localizeBudget)
				}
			}
		}
		return true
	})
	return graph.SatMul(4, n)
}

type resKey struct{ pair, exec, result int }

// localizer pairs the ops of the two modules and compares their results
// position by position: the reference runs first and leaves copies, the
// candidate's observer compares against them.
type localizer struct {
	refPair, candPair map[*graph.Operation]int
	pairs             [][2]*graph.Operation
	refExec, candExec map[int]int
	kept              map[resKey][]float32
	keptN             int
	candErr           map[*graph.Value]float64
	rel, growth       []float64
	ran               []bool
	res               localize
	names             *opNames
}

func newLocalizer(ref, cand *graph.Module, candNames *opNames) *localizer {
	l := &localizer{refPair: map[*graph.Operation]int{}, candPair: map[*graph.Operation]int{}, names: candNames}
	collect := func(m *graph.Module) (map[string][]*graph.Operation, []string, int) {
		by := map[string][]*graph.Operation{}
		var order []string
		total := 0
		m.Op.Walk(func(op *graph.Operation) bool {
			if op == m.Op || op.Name == "coreai.constant" || op.Name == "arith.constant" || op.NumResults() == 0 {
				return true
			}
			total++
			if k, ok := matchKey(op); ok {
				if by[k] == nil {
					order = append(order, k)
				}
				by[k] = append(by[k], op)
			}
			return true
		})
		return by, order, total
	}
	rb, _, rTotal := collect(ref)
	cb, cOrder, cTotal := collect(cand)
	for _, k := range cOrder {
		r, c := rb[k], cb[k]
		if len(r) != len(c) {
			continue // ambiguous: which of them is which is not known
		}
		for i := range c {
			l.refPair[r[i]] = len(l.pairs)
			l.candPair[c[i]] = len(l.pairs)
			l.pairs = append(l.pairs, [2]*graph.Operation{r[i], c[i]})
		}
	}
	l.res.Matched = len(l.pairs)
	l.res.UnmatchedRef = rTotal - len(l.pairs)
	l.res.UnmatchedCand = cTotal - len(l.pairs)
	l.rel = make([]float64, len(l.pairs))
	l.growth = make([]float64, len(l.pairs))
	for i := range l.growth {
		l.growth[i] = math.Inf(-1)
	}
	l.ran = make([]bool, len(l.pairs))
	l.endStep()
	return l
}

// hook wires the localizer into both sides' options.
func (l *localizer) hook(ref, cand *interp.Options) {
	chain := func(prev func(*graph.Operation, []*interp.Tensor), f func(*graph.Operation, []*interp.Tensor)) func(*graph.Operation, []*interp.Tensor) {
		return func(op *graph.Operation, res []*interp.Tensor) {
			if prev != nil {
				prev(op, res)
			}
			f(op, res)
		}
	}
	ref.Observe = chain(ref.Observe, l.observeRef)
	cand.Observe = chain(cand.Observe, l.observeCand)
}

func (l *localizer) endStep() {
	l.refExec, l.candExec = map[int]int{}, map[int]int{}
	l.kept, l.keptN = map[resKey][]float32{}, 0
	l.candErr = map[*graph.Value]float64{}
}

// inputErrors records the error the candidate's inputs (its states, after
// the first position) carry into this position, so that an op reading a
// drifted state is not charged with that drift.
func (l *localizer) inputErrors(rs, cs *side) {
	byName := map[string]int{}
	for k, p := range cs.ins {
		byName[p.Name] = k
	}
	args := cs.g.Body().Args()
	for i, p := range rs.ins {
		k, ok := byName[p.Name]
		if !ok || !rs.args[i].Elem.IsFloat() || !cs.args[k].Elem.IsFloat() || rs.args[i].Len() != cs.args[k].Len() {
			continue
		}
		l.candErr[args[k]] = relError(rs.args[i].Floats(), cs.args[k].Floats())
	}
}

func (l *localizer) observeRef(op *graph.Operation, res []*interp.Tensor) {
	p, ok := l.refPair[op]
	if !ok {
		return
	}
	e := l.refExec[p]
	l.refExec[p]++
	for i, t := range res {
		if t == nil || !t.Elem.IsFloat() {
			continue
		}
		if l.keptN+t.Len() > localizeBudget {
			l.res.Skipped++
			continue
		}
		// A copy: later ops may update a buffer in place.
		l.kept[resKey{p, e, i}] = append([]float32(nil), t.Floats()...)
		l.keptN += t.Len()
	}
}

func (l *localizer) observeCand(op *graph.Operation, res []*interp.Tensor) {
	in := 0.0
	for _, v := range op.Operands() {
		if x, ok := l.candErr[v]; ok {
			in = math.Max(in, x)
		}
	}
	p, ok := l.candPair[op]
	if !ok {
		// An op REF lacks (a cast a rewrite added, or one whose REF twin is
		// ambiguous) passes on the worst error it read, so that the next
		// matched op is not charged with it.
		for _, r := range op.Results() {
			l.candErr[r] = in
		}
		return
	}
	e := l.candExec[p]
	l.candExec[p]++
	for i, t := range res {
		ref, ok := l.kept[resKey{p, e, i}]
		if !ok || t == nil || !t.Elem.IsFloat() || t.Len() != len(ref) {
			continue
		}
		rel := relError(ref, t.Floats())
		l.candErr[op.Result(i)] = rel
		l.ran[p] = true
		l.rel[p] = math.Max(l.rel[p], rel)
		g := rel - in
		if math.IsInf(rel, 1) && math.IsInf(in, 1) {
			g = 0 // already broken upstream
		}
		l.growth[p] = math.Max(l.growth[p], g)
	}
}

// relError is ‖r − c‖/‖r‖; +inf when a value is non-finite on one side
// only (or differently), or when r is zero and c is not.
func relError(r, c []float32) float64 {
	var num, den float64
	for i, a := range r {
		x, y := float64(a), float64(c[i])
		if math.IsInf(x, 0) || math.IsInf(y, 0) || x != x || y != y {
			if x == y || x != x && y != y {
				continue
			}
			return math.Inf(1)
		}
		d := x - y
		num += d * d
		den += x * x
	}
	switch {
	case num == 0:
		return 0
	case den == 0:
		return math.Inf(1)
	}
	return math.Sqrt(num / den)
}

func (l *localizer) result() *localize {
	out := l.res
	for p, pr := range l.pairs {
		if !l.ran[p] {
			continue
		}
		c := pr[1]
		out.Ops = append(out.Ops, localizeOp{OpID: l.names.id(c), Source: graph.Source(c.Loc), Op: c.Name,
			RelError: l.rel[p], Growth: l.growth[p], order: l.names.index[c]})
	}
	sort.SliceStable(out.Ops, func(i, j int) bool {
		a, b := out.Ops[i], out.Ops[j]
		if a.Growth != b.Growth {
			return a.Growth > b.Growth
		}
		if a.RelError != b.RelError {
			return a.RelError > b.RelError
		}
		return a.order < b.order
	})
	return &out
}
