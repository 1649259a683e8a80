package passes

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sort"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/passes/internal/ops"
)

var fp16SafeReductionsAbout = About{
	Summary: "rewrite f16 reduce_sum/reduce_mean as a matmul against a ones vector (the Neural Engine's wide accumulator)",
	Doc: `Rewrites each coreai.reduce_sum and coreai.reduce_mean whose operand and
result are f16 (static shapes, constant axes) as a contraction: a
coreai.transpose that moves the reduced axes last (only when they are not
last already), a coreai.reshape to [P, R] (P the kept elements, R the
reduced ones), a coreai.decomposable.broadcasting_batch_matmul against an
f16 ones constant [R, 1], and a coreai.reshape to the reduction's result
type. Every new op carries the reduction's location.

Why: third-party measurements of the Neural Engine (sbryngelson/ANEForge
docs/developer/numerics.md and docs/numeric-cliffs.md, M2 Pro and M5; see
/work/shared/docs/coreai-facts.md §0 for the summary anefix relies on)
report that reduce_sum accumulates in fp16 while matmul and conv accumulate
in an fp32-class accumulator; a long f16 sum (the l2 norm of q and k, the
multiply-and-sum state read of a gated-delta step) loses bits with every
addition in the first and rounds once in the second. A model of the
hardware, not Apple's word.

reduce_mean: when R is a power of two, 1/R is folded into the ones vector
(2^-m is exact in fp16 and multiplying by it is exact except where a product
falls below fp16's normal range, 2^-14); otherwise the sum is divided by R
after the matmul (coreai.decomposable.broadcasting_divide by an f16
constant), because 1/R is then not representable and a folded constant
would add its own rounding error to every product, while dividing after adds
exactly one rounding, as the reduction itself does. Dividing after means the
intermediate sum must stay finite: a mean whose sum exceeds 65504 (or the
matmul saturation near 32752 the same measurements report) overflows where
the reduce_mean did not; such means are rare in practice but possible.

Reductions that are not f16, whose axes are not a constant, or whose shapes
are dynamic are left as they are.

Numerics, measured with anefix verify (REF the input, CAND the rewrite;
ane = --numerics ane, the Neural Engine profile of graph/interp/numerics.go,
family pre-a16; graph/interp/compare's TestFP16SafeReductionsANE checks the
module's gain):
- testdata/passes/fp16-safe-reductions.mlir (sums and means over 3 and 8
  f16 elements), 24 steps: ieee PSNR 97.2 dB, max |Δ| 0.00098 (the mean
  over 3 rounds its sum to f16 before dividing; teacher-forced, 4 streams ×
  24 positions: mean KL divergence 3.1e-9 nats, same top-1 100 %); ane PSNR
  97.2 dB, max |Δ| 0.00098, where the module as written gives 82.0 dB, max
  |Δ| 0.0078 under the same profile: the narrow accumulation is gone.
- tiny synth arm A after the default pipeline (12 f16 sums rewritten: the
  l2 norms and the multiply-and-sum state reads; verify's teacher-forced
  mode, 8 streams × 256 positions, cmd/anefix TestNumericsTable): ieee
  unchanged (mean KL divergence 1.3e-5 nats, same top-1 99.0 %); ane 7.6e-5
  → 2.0e-5 nats, 98.0 → 98.0 %. Synth weights are random and the sums short
  (8 elements), so the logits show no consistent gain; the module above is
  where the effect is isolated.`,
	Addresses: "reduce_sum accumulates in fp16 on the Neural Engine (ANEForge's measurements)",
}

// fp16SafeReductionsOptions are fp16-safe-reductions' options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type fp16SafeReductionsOptions struct {
	MinElements int
}

func (o *fp16SafeReductionsOptions) declare(d *Decls) {
	Declare(d, &o.MinElements, Option[int]{Name: "min-elements", Default: 2, Doc: "rewrite only reductions that sum at least this many elements (a sum of one element is exact)", Check: frCheckMin})
}

func frCheckMin(n int) error {
	if n < 1 {
		return fmt.Errorf("want at least 1, got %d", n)
	}
	return nil
}

// frIntConst reads an integer constant operand (the axes).
func frIntConst(v *graph.Value) ([]int64, bool) {
	d := v.DefiningOp()
	if d == nil || d.Name != "coreai.constant" {
		return nil, false
	}
	a, ok := d.Inherent("value").(*graph.DenseElementsAttr)
	if !ok {
		return nil, false
	}
	if _, isInt := a.Type.Elem.(*graph.IntegerType); !isInt {
		return nil, false
	}
	n, err := a.Type.ElementCount()
	if err != nil || n > 1<<16 { // an axis list, not a tensor of data
		return nil, false
	}
	out := make([]int64, 0, n)
	for i := int64(0); i < n; i++ {
		out = append(out, a.Int64At(i))
	}
	return out, true
}

func fp16SafeReductions(m *graph.Module, opts *fp16SafeReductionsOptions) (*Change, error) {
	minN := int64(opts.MinElements)
	ch := &Change{}
	var todo []*graph.Operation
	m.Walk(func(op *graph.Operation) bool {
		if (op.Name == "coreai.reduce_sum" || op.Name == "coreai.reduce_mean") && op.NumOperands() == 2 && op.NumResults() == 1 {
			todo = append(todo, op)
		}
		return true
	})
	for _, op := range todo {
		done, err := frRewrite(op, minN, ch)
		if err != nil {
			return nil, err
		}
		if done {
			ch.Notes = append(ch.Notes, fmt.Sprintf("%s: rewritten as a matmul against ones", op.DescribeInGraph()))
			if err := op.Erase(); err != nil {
				return nil, fmt.Errorf("%s: %v", op.DescribeInGraph(), err)
			}
			ch.OpsRemoved++
		}
	}
	return ch, nil
}

// frRewrite inserts the contraction before op and redirects op's uses to
// it; it reports false (and changes nothing) when op is not eligible.
func frRewrite(op *graph.Operation, minN int64, ch *Change) (bool, error) {
	x, res := op.Operand(0), op.Result(0)
	xt, ok1 := graph.AsTensor(x.Type())
	rt, ok2 := graph.AsTensor(res.Type())
	if !ok1 || !ok2 || !graph.IsFloat(xt.Elem, "f16") || !graph.IsFloat(rt.Elem, "f16") {
		return false, nil
	}
	rank := len(xt.Shape)
	for _, d := range xt.Shape {
		if d < 0 {
			return false, nil
		}
	}
	for _, d := range rt.Shape {
		if d < 0 {
			return false, nil
		}
	}
	axes, ok := frIntConst(op.Operand(1))
	if !ok || rank == 0 {
		return false, nil
	}
	red := map[int]bool{}
	for _, a := range axes {
		if a < 0 {
			a += int64(rank)
		}
		if a < 0 || a >= int64(rank) {
			return false, fmt.Errorf("%s: axis %d is out of range for rank %d", op.DescribeInGraph(), a, rank)
		}
		red[int(a)] = true
	}
	if len(red) == 0 {
		return false, nil
	}
	var kept, reduced []int
	for i := 0; i < rank; i++ {
		if red[i] {
			reduced = append(reduced, i)
		} else {
			kept = append(kept, i)
		}
	}
	sort.Ints(reduced)
	P, R := int64(1), int64(1)
	for _, i := range kept {
		P = graph.SatMul(P, xt.Shape[i])
	}
	for _, i := range reduced {
		R = graph.SatMul(R, xt.Shape[i])
	}
	if n, ok := graph.MulSize(P, R); R < minN || !ok || n != xt.NumElements() || rt.NumElements() != P {
		return false, nil
	}
	mean := op.Name == "coreai.reduce_mean"
	if mean && R&(R-1) != 0 && f16.ToFloat64(f16.FromFloat64(float64(R))) != float64(R) {
		ch.Notes = append(ch.Notes, fmt.Sprintf("%s: left as it is: a mean over %d elements, a divisor fp16 cannot hold exactly", op.DescribeInGraph(), R))
		return false, nil
	}
	loc := op.Loc
	before := func(n *graph.Operation) *graph.Operation {
		n.InsertBefore(op)
		ch.OpsAdded++
		return n
	}
	cur := x
	perm := append(append([]int(nil), kept...), reduced...)
	identity := true
	for i, p := range perm {
		if p != i {
			identity = false
		}
	}
	if !identity {
		pv := make([]int64, len(perm))
		shape := make([]int64, len(perm))
		for i, p := range perm {
			pv[i], shape[i] = int64(p), xt.Shape[p]
		}
		pc := before(ops.ConstInProps(frUI32(pv), loc))
		cur = before(graph.NewOp("coreai.transpose", []*graph.Value{cur, pc.Result(0)}, []graph.Type{xt.WithShape(shape)}, nil, loc)).Result(0)
	}
	sc := before(ops.ConstInProps(frUI32([]int64{P, R}), loc))
	cur = before(graph.NewOp("coreai.reshape", []*graph.Value{cur, sc.Result(0)}, []graph.Type{xt.WithShape([]int64{P, R})}, nil, loc)).Result(0)
	one, divide := 1.0, false
	if mean {
		if R&(R-1) == 0 { // a power of two: 2^-m is exact
			one = 1 / float64(uint64(1)<<bits.TrailingZeros64(uint64(R)))
		} else {
			divide = true
		}
	}
	ones := before(ops.ConstInProps(frF16Splat(one, []int64{R, 1}), loc))
	cur = before(graph.NewOp("coreai.decomposable.broadcasting_batch_matmul", []*graph.Value{cur, ones.Result(0)}, []graph.Type{xt.WithShape([]int64{P, 1})}, nil, loc)).Result(0)
	if divide {
		nc := before(ops.ConstInProps(frF16Splat(float64(R), nil), loc))
		cur = before(graph.NewOp("coreai.decomposable.broadcasting_divide", []*graph.Value{cur, nc.Result(0)}, []graph.Type{xt.WithShape([]int64{P, 1})}, nil, loc)).Result(0)
	}
	oc := before(ops.ConstInProps(frUI32(rt.Shape), loc))
	cur = before(graph.NewOp("coreai.reshape", []*graph.Value{cur, oc.Result(0)}, []graph.Type{rt}, nil, loc)).Result(0)
	res.ReplaceAllUsesWith(cur)
	return true, nil
}

// frUI32 is a rank-1 ui32 constant, the form coreai's shape and
// permutation operands take (testdata/mlir/coreai).
func frUI32(vals []int64) *graph.DenseElementsAttr {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
	}
	return &graph.DenseElementsAttr{Type: graph.Tensor(graph.UI32, int64(len(vals))), Raw: raw}
}

// frF16Splat is an f16 constant of one value (shape nil: a scalar).
func frF16Splat(v float64, shape []int64) *graph.DenseElementsAttr {
	raw := make([]byte, 2)
	binary.LittleEndian.PutUint16(raw, f16.FromFloat64(v))
	return &graph.DenseElementsAttr{Type: graph.Tensor(graph.F16, shape...), Raw: raw, Splat: true}
}
