package passes

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
	"github.com/anefix/anefix/passes/internal/ops"
)

var residualScaleAbout = About{
	Summary: "divide the residual stream by 2^k (embedding output and every residual add's block output) and scale the RMSNorms' epsilon by 2^-2k, which leaves the model's function unchanged",
	Doc: `Finds the residual stream of a decoder, starting at each embedding
lookup (a gather or gather_nd from a rank-2 float table) and following
reshapes, casts and the residual adds, and divides it by 2^k: a multiply by
2^-k follows the lookup, and a multiply by 2^-k precedes every residual add
on its block operand, so every value of the stream is 2^-k times what it
was. The new ops carry the location of the lookup, the add or the
norm's epsilon add they stand next to. Every reader of the stream must be
an RMSNorm (the square of x, a reduce_mean, an add of a constant epsilon,
an rsqrt and the multiply of x by it): RMSNorm(x·2^-k) with epsilon·2^-2k equals RMSNorm(x), so the pass also
replaces each norm's epsilon by epsilon·2^-2k, and nothing downstream of the
norms changes. A stream with any other reader (a logit read straight from
it, a LayerNorm) is left as it is, with a note naming the reader.

Why: trained LLMs carry a few massive activation channels in the residual
stream (hundreds to thousands; anefix synth models them by default, see
graph/synth/massive.go). Their squares overflow fp16 (|x| > 256), so a norm
retyped to fp16 (strip-fp32-casts.islands=all or =norms) returns zeros or
NaN, which is why exporters keep norms in fp32 (ANEForge's Qwen3.5 decode on
the Neural Engine needed a residual scale for the same reason). Scaled by
2^-k, the squares and their fp16 sum stay finite and the norms can run in
fp16.

Numerics: under IEEE arithmetic exact, since multiplying by a power of two
only changes the exponent (the epsilon too), except where a value falls
below fp16's normal range (2^-14·2^k) and loses bits, or where the scaled
epsilon underflows (1e-6·2^-2k is below fp16's smallest subnormal for
k ≥ 5; the note says so; then the norm of an all-zero stream divides by
zero, which a decoder's stream never is). The stream's small values shrink
with it: a channel of 0.02 becomes 0.02·2^-k, whose square is subnormal in
fp16 for k ≥ 3; in an fp16 norm they add less exactly to a sum the massive
channels dominate anyway. Computed in f32 (interp's Wide mode, so no
stream value is subnormal) tiny arm A's logits are bit-identical with and
without the pass for k = 1, 4 and 8 (TestResidualScaleExact); in f16 the
export's own f16 stream loses its small entries' bits (max |Δ| 0.17 at
k = 4, 0.40 at k = 8).

Measured with strip-fp32-casts.islands=all (every norm in fp16), REF the
export, teacher-forced prompts, --numerics ane (anefix verify; the tiny
figures are graph/interp/compare's TestResidualScaleIslandsAll):
- tiny synth arm A, 40 positions: without the pass worst cosine 0 (every
  logit collapses); k=2..8 worst cosine 0.9998-0.99999 (k=4 0.99999, k=5
  0.99989, k=10 0.982: the stream's small entries go subnormal); the
  default pipeline (norms in f32) 0.99994.
- full synth arm A (massive channels up to about 3700), 8 positions:
  without the pass 0/8, 0.64 dB; k=4 the same (each square fits, 229² =
  52441, but the fp16 running sum of four such squares overflows under the
  ane profile's narrow reduce_sum); k=5 8/8, cosine 0.9999999, 52.5 dB,
  beside the default pipeline's 58.7 dB.
So k = 5 suffices on that stand-in, with 18 % to spare (4·3700²·2^-10 ≈
53,500 of 65504), and not always on tiny arm A, whose stream peaks higher
than its typical position: teacher-forced over 8 streams × 256 positions
(cmd/anefix TestNumericsTable), --numerics ane, k=5 has one position at
KLD 5.13 (mean 4.8e-3), where verify --ranges shows a stream norm's
reduce_mean (mean_13) reach inf; at k=6 the largest KLD is 0.038 (mean
6.0e-5), no stream norm leaves fp16, same top-1 98.3 % against the
default pipeline's 98.0 %. The default, k=auto, is a static rule: the pass cannot
run the model (passes do not import graph/interp), so it assumes a stream
of 4 massive channels at 4096 and every other channel at most 1 (a guess
rounded up from that stand-in, passes/anefacts/stream.go) and takes the
smallest k whose scaled sum of squares stays within half of fp16's range:
k = 6 for any width up to 2^20. check's fp16.unbounded-input rule uses the
same guess: a stream scaled by 2^-k with k below it is still named. For
another model set k from the largest stream magnitude verify --ranges
reports: the sum of the squared massive channels times 2^-2k must stay
below 65504.`,
	Addresses: "fp16 overflow of RMSNorm's sum of squares on massive residual activations (norms retyped to fp16)",
}

// residualScaleOptions are residual-scale's options.
type residualScaleOptions struct {
	// K divides the stream by 2^K; 0 is auto (anefacts.StreamSafeK of the
	// stream's width).
	K int
}

func (o *residualScaleOptions) declare(d *Decls) {
	Declare(d, &o.K, Option[int]{Name: "k", Default: 0,
		Doc:    "the stream is divided by 2^k, or auto: the smallest k that keeps a guessed stream (4 massive channels at 4096, every other channel at most 1) inside half of fp16's range in an fp16 norm's sum of squares; a static rule that measures nothing (6 for any width up to 2^20); 5 was measured to suffice on full synth arm A (see the pass's doc)",
		Values: append([]string{"auto"}, intValues(1, 14)...), Codec: &Codec[int]{Kind: "string", Parse: rsParseK, Format: rsFormatK,
			Sample: func(r *rand.Rand) int { return r.IntN(15) }}})
}

func rsParseK(s string) (int, error) {
	if s == "auto" {
		return 0, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("want auto or an integer 1..14, got %q", s)
	}
	if k == 0 {
		return 0, fmt.Errorf("want auto or 1..14, got 0")
	}
	return k, nil
}

func rsFormatK(k int) string {
	if k == 0 {
		return "auto"
	}
	return strconv.Itoa(k)
}

// rsNorm is one RMSNorm reading the stream: its epsilon add and operand.
type rsNorm struct {
	epsAdd *graph.Operation
	epsIdx int
}

// rsStream is one embedding's residual stream.
type rsStream struct {
	lookup *graph.Operation
	adds   []graph.Use // the residual adds' block operands
	norms  []rsNorm
}

func residualScale(m *graph.Module, opts *residualScaleOptions) (*Change, error) {
	ch := &Change{}
	var lookups []*graph.Operation
	m.Walk(func(op *graph.Operation) bool {
		if (hasOpSuffix(op.Name, "gather") || hasOpSuffix(op.Name, "gather_nd")) && op.NumOperands() >= 2 && op.NumResults() == 1 {
			if t, ok := graph.AsTensor(op.Operand(0).Type()); ok && len(t.Shape) == 2 && isFloatElem(t.Elem) && op.Operand(0).DefiningOp() != nil {
				lookups = append(lookups, op)
			}
		}
		return true
	})
	for _, lk := range lookups {
		s, why := rsFind(lk)
		if why != "" {
			ch.Notes = append(ch.Notes, fmt.Sprintf("%s: residual stream left as it is: %s", lk.DescribeInGraph(), why))
			continue
		}
		k, how := opts.K, ""
		if k == 0 {
			d := rsWidth(lk)
			k = anefacts.StreamSafeK(d)
			how = fmt.Sprintf(" (k=auto: a guessed stream of width %d, sum of squares %.4g, divided by 2^%d fits within %d; a static rule, nothing measured)", d, anefacts.StreamSumSquares(d), 2*k, anefacts.StreamSquaresBudget)
		}
		if err := rsApply(s, k, ch); err != nil {
			return nil, err
		}
		ch.Notes = append(ch.Notes, fmt.Sprintf("%s: residual stream divided by 2^%d (%d residual adds, %d norms' epsilon scaled by 2^-%d)%s", lk.DescribeInGraph(), k, len(s.adds), len(s.norms), 2*k, how))
	}
	return ch, nil
}

// rsWidth is the stream's width, the last axis of the lookup's result
// (the axis its RMSNorms reduce); 0 when not static.
func rsWidth(lk *graph.Operation) int64 {
	t, ok := graph.AsTensor(lk.Result(0).Type())
	if !ok || len(t.Shape) == 0 || t.Shape[len(t.Shape)-1] < 0 {
		return 0
	}
	return t.Shape[len(t.Shape)-1]
}

func isFloatElem(t graph.Type) bool { _, ok := t.(*graph.FloatType); return ok }

// rsView reports whether op passes its first operand's values through
// unchanged but for shape or float type.
func rsView(op *graph.Operation) bool {
	for _, s := range []string{"reshape", "expand_dims", "squeeze", "cast"} {
		if hasOpSuffix(op.Name, s) {
			return op.NumResults() == 1 && isFloatTensor(op.Result(0).Type())
		}
	}
	return false
}

func isFloatTensor(t graph.Type) bool {
	tt, ok := graph.AsTensor(t)
	return ok && isFloatElem(tt.Elem)
}

// rsFind walks the stream from the lookup; why is non-empty when a reader
// is neither a view, a residual add nor an RMSNorm.
func rsFind(lk *graph.Operation) (*rsStream, string) {
	s := &rsStream{lookup: lk}
	in := map[*graph.Value]bool{}
	work := []*graph.Value{lk.Result(0)}
	in[lk.Result(0)] = true
	push := func(v *graph.Value) {
		if !in[v] {
			in[v] = true
			work = append(work, v)
		}
	}
	normMul := map[*graph.Operation]bool{} // the x·rsqrt multiplies of found norms
	var pending []graph.Use                // uses to judge once every norm is known
	seenSq := map[*graph.Operation]bool{}
	for len(work) > 0 {
		v := work[0]
		work = work[1:]
		for _, u := range v.Uses() {
			op := u.Op
			switch {
			case rsView(op) && u.Index == 0:
				push(op.Result(0))
			case isSquare(op):
				if seenSq[op] {
					continue // x·x reads the stream twice
				}
				seenSq[op] = true
				n, muls, ok := rsMatchNorm(op, v)
				if !ok {
					return nil, fmt.Sprintf("%s squares the stream but is not an RMSNorm (square, reduce_mean, add of a constant epsilon, rsqrt, multiply by x)", op.DescribeInGraph())
				}
				for _, mm := range muls {
					normMul[mm] = true
				}
				s.norms = append(s.norms, n)
			case hasAnyOpSuffix(op.Name, []string{"add", "broadcasting_add"}) && op.NumOperands() == 2 && isFloatTensor(op.Result(0).Type()):
				s.adds = append(s.adds, graph.Use{Op: op, Index: 1 - u.Index})
				push(op.Result(0))
			default:
				pending = append(pending, u)
			}
		}
	}
	for _, u := range pending {
		op := u.Op
		if normMul[op] {
			continue
		}
		return nil, fmt.Sprintf("%s reads the stream and is not an RMSNorm, a reshape or a residual add", op.DescribeInGraph())
	}
	for _, a := range s.adds {
		if in[a.Op.Operand(a.Index)] {
			return nil, fmt.Sprintf("%s adds two values of the stream (or a value derived from it without a norm)", a.Op.DescribeInGraph())
		}
	}
	if len(s.norms) == 0 {
		return nil, "no RMSNorm reads it"
	}
	return s, ""
}

// rsMatchNorm matches sq = x·x → reduce_mean → add ε → rsqrt → x·r (every
// use of the rsqrt a multiply by x) and returns the epsilon slot and the
// multiplies.
func rsMatchNorm(sq *graph.Operation, x *graph.Value) (rsNorm, []*graph.Operation, bool) {
	one := func(v *graph.Value) *graph.Operation {
		if us := v.Uses(); len(us) == 1 {
			return us[0].Op
		}
		return nil
	}
	mean := one(sq.Result(0))
	if mean == nil || !hasOpSuffix(mean.Name, "reduce_mean") {
		return rsNorm{}, nil, false
	}
	add := one(mean.Result(0))
	if add == nil || !hasAnyOpSuffix(add.Name, []string{"add", "broadcasting_add"}) || add.NumOperands() != 2 {
		return rsNorm{}, nil, false
	}
	ei := 1
	if add.Operand(1) == mean.Result(0) {
		ei = 0
	}
	if _, ok := rsScalar(add.Operand(ei)); !ok {
		return rsNorm{}, nil, false
	}
	rs := one(add.Result(0))
	if rs == nil || !hasOpSuffix(rs.Name, "rsqrt") {
		return rsNorm{}, nil, false
	}
	var muls []*graph.Operation
	for _, u := range rs.Result(0).Uses() {
		mo := u.Op
		if !hasAnyOpSuffix(mo.Name, []string{"mul", "broadcasting_mul"}) || mo.NumOperands() != 2 || mo.Operand(1-u.Index) != x {
			return rsNorm{}, nil, false
		}
		muls = append(muls, mo)
	}
	return rsNorm{epsAdd: add, epsIdx: ei}, muls, len(muls) > 0
}

// rsScalar reads a constant whose elements are all one float value.
func rsScalar(v *graph.Value) (float64, bool) {
	d := v.DefiningOp()
	if d == nil || !hasOpSuffix(d.Name, "constant") {
		return 0, false
	}
	a, ok := d.Inherent("value").(*graph.DenseElementsAttr)
	if !ok || !isFloatElem(a.Type.Elem) {
		return 0, false
	}
	n, err := a.Type.ElementCount()
	if err != nil || n < 1 {
		return 0, false
	}
	x := a.Float64At(0)
	for i := int64(1); i < n && i < 1<<16; i++ {
		if a.Float64At(i) != x {
			return 0, false
		}
	}
	return x, n <= 1<<16
}

// rsConst builds a splat constant of type t (a float tensor) holding x.
func rsConst(t *graph.TensorType, x float64, loc graph.Loc) *graph.Operation {
	ft := t.Elem.(*graph.FloatType)
	nb := graph.ElemBytes(ft)
	bits := graph.FloatBits(x, ft.Name)
	raw := make([]byte, nb)
	for i := range raw {
		raw[i] = byte(bits >> (8 * i))
	}
	return ops.ConstInProps(&graph.DenseElementsAttr{Type: t, Raw: raw, Splat: true}, loc)
}

// rsMul inserts v·2^-k before op (a scalar constant of v's element type),
// located at the op it stands for, and returns the product.
func rsMul(v *graph.Value, k int, before *graph.Operation, at graph.Loc, ch *Change) (*graph.Value, error) {
	tt, ok := graph.AsTensor(v.Type())
	if !ok || !isFloatElem(tt.Elem) || graph.ElemBytes(tt.Elem.(*graph.FloatType)) == 0 {
		return nil, fmt.Errorf("%s: residual-scale: the stream value of type %s is not a float tensor", before.DescribeInGraph(), v.Type())
	}
	c := rsConst(graph.Tensor(tt.Elem), math.Ldexp(1, -k), at)
	mul := graph.NewOp("coreai.decomposable.broadcasting_mul", []*graph.Value{v, c.Result(0)}, []graph.Type{tt}, nil, at)
	c.InsertBefore(before)
	mul.InsertBefore(before)
	ch.OpsAdded += 2
	return mul.Result(0), nil
}

func rsApply(s *rsStream, k int, ch *Change) error {
	// The lookup's result: every reader takes the scaled value.
	lk := s.lookup
	next := lk.Next()
	if next == nil {
		return fmt.Errorf("%s: residual-scale: the lookup ends its block", lk.DescribeInGraph())
	}
	old := lk.Result(0)
	scaled, err := rsMul(old, k, next, lk.Loc, ch)
	if err != nil {
		return err
	}
	mul := scaled.DefiningOp()
	old.ReplaceUsesIf(scaled, func(u graph.Use) bool { return u.Op != mul })
	for _, u := range s.adds {
		r, err := rsMul(u.Op.Operand(u.Index), k, u.Op, u.Op.Loc, ch)
		if err != nil {
			return err
		}
		u.Op.SetOperand(u.Index, r)
	}
	for _, n := range s.norms {
		ev := n.epsAdd.Operand(n.epsIdx)
		eps, _ := rsScalar(ev)
		et, ok := graph.AsTensor(ev.Type())
		if !ok {
			return fmt.Errorf("%s: residual-scale: epsilon of type %s", n.epsAdd.DescribeInGraph(), ev.Type())
		}
		scaledEps := math.Ldexp(eps, -2*k)
		ft := et.Elem.(*graph.FloatType)
		got, _ := graph.FloatValue(graph.FloatBits(scaledEps, ft.Name), ft.Name)
		if eps != 0 && got == 0 {
			ch.Notes = append(ch.Notes, fmt.Sprintf("%s: epsilon %g·2^-%d underflows to 0 in %s", n.epsAdd.DescribeInGraph(), eps, 2*k, ft.Name))
		}
		c := rsConst(et, scaledEps, n.epsAdd.Loc)
		c.InsertBefore(n.epsAdd)
		n.epsAdd.SetOperand(n.epsIdx, c.Result(0))
		ch.OpsAdded++
	}
	return nil
}
