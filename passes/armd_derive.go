package passes

// Pass-through values for arm-d: given a region output of type T and the
// region inputs it depends on, build a value of exactly type T computed from
// one input with rank/size/element-type plumbing only (reshape, slice,
// concat, cast). Never a fresh constant: state writes keep reading data
// that flows from the graph's inputs.

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/internal/ops"
)

// adTier ranks how directly input type c yields output type t (lower is
// better): 1 same type; 2 same element type and count (reshape); 3 other
// element type, same count (cast+reshape); 4/5 more elements (slice,
// without/with cast); 6/7 fewer elements (tile, without/with cast).
// 0 means unusable.
func adTier(c, t *graph.TensorType) int {
	if graph.TypeEqual(c, t) {
		return 1
	}
	n, m := c.NumElements(), t.NumElements()
	if n <= 0 || m < 0 {
		return 0
	}
	diff := 0
	if !graph.TypeEqual(c.Elem, t.Elem) {
		diff = 1
	}
	switch {
	case n == m:
		return 2 + diff
	case n > m:
		return 4 + diff
	default:
		return 6 + diff
	}
}

// adPick chooses the candidate with the best tier. Within a tier, a
// candidate with a preferred name wins (rank from pref: lower is better, -1
// means not preferred; pref may be nil), then the latest candidate (inputs
// are in first-use order, and exporters pass the value / state operands
// after query and key).
func adPick(cands []*graph.Value, t *graph.TensorType, pref func(*graph.Value) int) (*graph.Value, int) {
	var best *graph.Value
	bestTier, bestPref := 0, -1
	rank := func(v *graph.Value) int {
		if pref == nil {
			return -1
		}
		return pref(v)
	}
	better := func(p int) bool { return p >= 0 && (bestPref < 0 || p < bestPref) }
	for i := len(cands) - 1; i >= 0; i-- {
		ct := ops.StaticTensor(cands[i].Type())
		if ct == nil {
			continue
		}
		tier := adTier(ct, t)
		if tier == 0 {
			continue
		}
		p := rank(cands[i])
		if bestTier == 0 || tier < bestTier || (tier == bestTier && better(p)) {
			best, bestTier, bestPref = cands[i], tier, p
		}
	}
	return best, bestTier
}

// adBuilder inserts ops before a fixed op.
type adBuilder struct {
	m      *graph.Module
	before *graph.Operation
	loc    graph.Loc
	added  int
	// style is how m's constants hold their value, asked once (nil: not
	// yet): the constants this builder adds keep it, so it stays the answer.
	style *ops.Style
}

func (b *adBuilder) emit(name string, operands []*graph.Value, t graph.Type) *graph.Value {
	op := graph.NewOp(name, operands, []graph.Type{t}, nil, b.loc)
	op.InsertBefore(b.before)
	b.added++
	return op.Result(0)
}

func (b *adBuilder) constant(a *graph.DenseElementsAttr) *graph.Value {
	if b.style == nil {
		s := ops.StyleOf(b.m)
		b.style = &s
	}
	op := b.style.Const(a, b.loc)
	op.InsertBefore(b.before)
	b.added++
	return op.Result(0)
}

func (b *adBuilder) reshape(x *graph.Value, shape ...int64) *graph.Value {
	xt := x.Type().(*graph.TensorType)
	to := xt.WithShape(shape)
	if graph.TypeEqual(xt, to) {
		return x
	}
	s := b.constant(ops.IntDense(graph.UI32, []int64{int64(len(shape))}, shape))
	return b.emit("coreai.reshape", []*graph.Value{x, s}, to)
}

// derive builds a value of type t from c (chosen by adPick).
func (b *adBuilder) derive(c *graph.Value, t *graph.TensorType) (*graph.Value, error) {
	ct := ops.StaticTensor(c.Type())
	if ct == nil || !t.IsStatic() {
		return nil, fmt.Errorf("needs static tensor types, have %s for %s", c.Type(), t)
	}
	v := c
	if !graph.TypeEqual(ct.Elem, t.Elem) {
		v = b.emit("coreai.cast", []*graph.Value{v}, ct.WithElem(t.Elem))
	}
	n, m := ct.NumElements(), t.NumElements()
	if n != m {
		v = b.reshape(v, n)
		if n < m {
			k := (m + n - 1) / n
			axis := b.constant(ops.IntDense(graph.SI32, nil, []int64{0}))
			parts := []*graph.Value{axis}
			for i := int64(0); i < k; i++ {
				parts = append(parts, v)
			}
			v = b.emit("coreai.concat", parts, graph.Tensor(t.Elem, k*n))
			n = k * n
		}
		if n > m {
			begin := b.constant(ops.IntDense(graph.SI32, []int64{1}, []int64{0}))
			end := b.constant(ops.IntDense(graph.SI32, []int64{1}, []int64{m}))
			stride := b.constant(ops.IntDense(graph.SI32, []int64{1}, []int64{1}))
			v = b.emit("coreai.slice", []*graph.Value{v, begin, end, stride}, graph.Tensor(t.Elem, m))
		}
	}
	return b.reshape(v, t.Shape...), nil
}
