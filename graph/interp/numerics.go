package interp

import (
	"fmt"
	"github.com/anefix/anefix/graph/nearest"
	"math"
	"strings"

	"github.com/anefix/anefix/graph"
)

// The Neural Engine profile (`verify --numerics ane`): how anefix models the
// arithmetic of Apple's Neural Engine when it runs a graph's f16 ops. It is
// a MODEL built from third-party measurements, not from Apple
// documentation, taken on an M2 Pro (filed under the A14 family by the
// project that measured it) and an M5 (A16 family). Every rule below names
// its source in its Source field, and README "4. Did it hurt the numbers?"
// says who measured what. Chips nobody measured may differ.
//
// Scope (anefix's choices, marked as such): the rules apply to ops whose
// result is f16, the only type the sources say the engine computes in; f32
// and bf16 ops keep IEEE arithmetic (on a device they are not placed on the
// Neural Engine at all). Ops no rule names (elementwise arithmetic,
// transcendentals, softmax, shape ops) run as under IEEE: for two f16
// operands an f32 operation rounded once to f16 is the correctly rounded
// fp16 result, which is what "operands and products rounded to fp16" gives
// for them; the engine's own exp/log approximations are not modelled.

// Family is the Neural Engine generation a chip-dependent rule is for.
type Family uint8

const (
	// PreA16 is every family before A16 (M1…M4 class parts in ANEForge's
	// naming). The default: a graph meant for older and newer chips must
	// respect the older limits (docs/numeric-cliffs.md says so too).
	PreA16 Family = iota
	// A16 is the A16 family and later (measured on M5).
	A16
)

func (f Family) String() string {
	if f == A16 {
		return "a16"
	}
	return "pre-a16"
}

// families are the families, the default first.
var families = []Family{PreA16, A16}

// Families are the spellings of --ane-family, the default first.
func Families() []string {
	out := make([]string, len(families))
	for i, f := range families {
		out[i] = f.String()
	}
	return out
}

// ParseFamily reads the spelling of --ane-family.
func ParseFamily(s string) (Family, error) {
	for _, f := range families {
		if f.String() == s {
			return f, nil
		}
	}
	return PreA16, fmt.Errorf("want %s, got %q%s", strings.Join(Families(), " or "), s, nearest.Hint(s, Families(), ""))
}

// ANE selects the Neural Engine profile for one interpreter.
type ANE struct {
	Family Family
}

// The measured limits. Each is used by the rule table and by the code that
// applies it, so the table is their one home for readers.
const (
	// matmulCliff is the largest matmul output magnitude that stays finite.
	// bench/results/numeric_cliffs_results.json records the bisected last
	// finite output as 32758.8 (tolerance 2) for K = 4…128, "expected
	// 32752"; the fp16 values around it are 32752 (= 65504/2) and 32768,
	// so anefix reads the limit as: an output that rounds to more than
	// 32752 in fp16 (true magnitude ≥ 32760, the rounding midpoint)
	// becomes ±inf. That reading is anefix's; it fits the bisection.
	matmulCliff = 32752
	// sliceCliff is the largest magnitude a slice with a nonzero last-axis
	// begin passes on pre-A16 chips (65504/16: an implied ×16 fixed-point
	// crop path, docs/numeric-cliffs.md); larger values become ±inf.
	sliceCliff = 4094
	// FP16Max is the largest finite half.
	FP16Max = 65504
)

// rule is one row of the profile: what it changes, for which ops and
// chips, and where the measurement comes from.
type rule struct {
	Name   string   // stable identifier, also the flag `verify --ranges` prints
	Ops    []string // the op rows (ops.go) that name it; nil: every f16 op
	Family string   // "" for every family, else the only family it holds on
	Limit  float64  // the threshold it applies, 0 when none
	Models string   // what the interpreter does
	Source string   // the third-party document and chips behind it
}

// aneRules is the profile, in the order a reader should check it. Extending
// it means adding a row here, the rule's name in the rules of the op rows
// it changes (ops.go), which fills Ops, and their ane kernel.
var aneRules = []rule{
	{
		Name:   "fp16-operands-products",
		Models: "every operand and every product is rounded to fp16 (round to nearest even); matmul and conv round each product before adding it",
		Source: "ANEForge docs/developer/numerics.md (fp16-only compute model; inputs and products round to fp16), M2 Pro and M5",
	},
	{
		Name:   "wide-accumulator",
		Models: "matmul and conv sum their fp16-rounded products in float32, sequentially in index order (float32 stands in for the 'fp32-class' accumulator; its true width is not public)",
		Source: "ANEForge docs/developer/numerics.md (wide accumulator; 16384 ones sum exactly), M2 Pro and M5",
	},
	{
		Name:   "narrow-reduce",
		Models: "reduce_sum accumulates in fp16: the running sum is rounded to half after every addition; reduce_mean is that sum divided by the count (anefix's guess: the source measures reduce_sum only, and a mean is lowered as sum and scale); reduce_product rounds every product to fp16 (the operands-and-products rule); reduce_max/min are exact either way; ties round to even, so an 8-term row summing to 2049 gives 2048 where ANEForge's bench read 2050 on the device: how the engine breaks ties is not known",
		Source: "ANEForge docs/developer/numerics.md (the reduce_sum trap: matmul wide, reduce_sum narrow) and docs/numeric-cliffs.md (integer row sums exact only through 2048), M2 Pro and M5",
	},
	{
		Name:   "matmul-saturation",
		Limit:  matmulCliff,
		Models: "a matmul output whose fp16 value exceeds 32752 in magnitude becomes ±inf (the limit does not depend on K); not applied to conv, which the sources did not sweep",
		Source: "ANEForge docs/numeric-cliffs.md and bench/results/numeric_cliffs_results.json (last finite 32758.8 for K = 4…128), M2 Pro and M5",
	},
	{
		Name:   "slice-saturation",
		Family: "pre-a16",
		Limit:  sliceCliff,
		Models: "a slice whose begin on the last axis is nonzero turns values above 4094 in magnitude into ±inf; absent on A16",
		Source: "ANEForge docs/numeric-cliffs.md (measured on M2 Pro; M5 exact) and docs/developer/numerics.md (which names only A13 for the same path: the sources disagree on A14/A15, so pre-a16 follows the stricter one)",
	},
}

// Describe names the profile for reports.
func (a *ANE) Describe() string {
	if a == nil {
		return "ieee"
	}
	return "ane (Neural Engine profile, family " + a.Family.String() + "; a model built from third-party measurements on M2 Pro and M5 (sbryngelson/ANEForge), not Apple documentation)"
}

// Cliff is a saturation point of the profile that an op's result can hit.
type Cliff struct {
	Rule  string
	Limit float64
}

// CliffOf returns the saturation point op's results meet on family fam, if
// any: matmul outputs, and slices whose last-axis begin is nonzero (pre-A16
// only). The slice's begin must be an attribute or a constant operand;
// otherwise it is not known and no cliff is reported.
func CliffOf(op *graph.Operation, fam Family) (Cliff, bool) {
	switch canonical(op.Name) {
	case "matmul":
		return Cliff{"matmul-saturation", matmulCliff}, true
	case "slice":
		if fam != PreA16 {
			return Cliff{}, false
		}
		if begin, ok := constInts(op, 1, "begin"); ok && cropsLastAxis(begin) {
			return Cliff{"slice-saturation", sliceCliff}, true
		}
	}
	return Cliff{}, false
}

// cropsLastAxis reports whether a slice's begin is nonzero on the last
// axis: the slices rule slice-saturation applies to.
func cropsLastAxis(begin []int64) bool { return len(begin) > 0 && begin[len(begin)-1] != 0 }

// constInts reads integer parameters from an attribute, or from operand idx
// when a constant defines it.
func constInts(op *graph.Operation, idx int, attr string) ([]int64, bool) {
	if a := op.Inherent(attr); a != nil {
		return attrInts(a)
	}
	if idx >= op.NumOperands() {
		return nil, false
	}
	d := op.Operand(idx).DefiningOp()
	if d == nil || !isConstant(d.Name) {
		return nil, false
	}
	if v := d.Inherent("value"); v != nil {
		return attrInts(v)
	}
	return nil, false
}

// The profile's kernels (the ane field of the rows in ops.go) for an f16
// result; handled is false where the rule does not apply, and the op runs
// as under IEEE.

// narrowReduceOp is narrow-reduce: the f16 accumulation of reduce.
func narrowReduceOp(c opCall) (*Tensor, bool, error) {
	c.acc16 = true
	t, err := reduceOp(c)
	return t, true, err
}

// aneMatmulOp is wide-accumulator with each product rounded to half, then
// matmul-saturation.
func aneMatmulOp(c opCall) (*Tensor, bool, error) {
	if err := need(c.ins, 2); err != nil {
		return nil, true, err
	}
	ta, tb := matmulTransposes(c.op)
	t, err := matMul(c.ins[0], c.ins[1], ta, tb, c.el, false, true, c.in.counts())
	if err == nil {
		c.in.saturate(c.op, t, "matmul-saturation", matmulCliff)
	}
	return t, true, err
}

// aneSliceOp is slice-saturation: the IEEE slice (sliceOp reads its
// parameters; a begin that does not read is its error to report), then
// the cliff where the rule's begin applies.
func aneSliceOp(c opCall) (*Tensor, bool, error) {
	begin, ok := intArg(c.op, c.ins, 1, "begin")
	if !ok || c.in.opts.ANE.Family != PreA16 || !cropsLastAxis(begin) {
		return nil, false, nil
	}
	// Slice copies, so saturating its result leaves the input alone.
	t, err := sliceOp(c)
	if err == nil {
		c.in.saturate(c.op, t, "slice-saturation", sliceCliff)
	}
	return t, true, err
}

// saturate turns finite values above limit in magnitude into ±inf and tells
// Options.Saturated how many it changed.
func (in *Interp) saturate(op *graph.Operation, t *Tensor, rule string, limit float32) {
	n := 0
	for i, v := range t.F {
		if v > limit && v <= math.MaxFloat32 {
			t.F[i] = float32(math.Inf(1))
			n++
		} else if v < -limit && v >= -math.MaxFloat32 {
			t.F[i] = float32(math.Inf(-1))
			n++
		}
	}
	if n > 0 && in.opts.Saturated != nil {
		in.opts.Saturated(op, rule, n)
	}
}

// roundProd rounds a float32 product to fp16 (ties to even) without a
// call or a table, so that the compiler inlines it into the kernels
// (numerics_linalg.go). In the normal half range it is Veltkamp's split:
// c = 8193·p, then c − (c − p) keeps the top 11 significand bits, rounded
// to nearest even (the explicit float32 conversions forbid fusing the
// operations). Below 2^-14 the half grid is the fixed subnormal step 2^-24,
// which adding and removing 0.75 (whose float32 spacing is 2^-24) rounds
// to; magnitudes past 65504 become ±inf. TestRoundProd checks it against
// f16.Round32, also on arbitrary float32 bit patterns.
func roundProd(p float32) float32 {
	c := float32(p * 8193)
	q := c - float32(c-p)
	switch {
	case math.Float32bits(p)&0x7fffffff < 0x38800000: // |p| < 2^-14 in one test: a test of p's sign would mispredict
		q = roundSubnormal(p)
	case !(q <= FP16Max && q >= -FP16Max):
		// Past the half range, ±inf, NaN, or so large that 8193·p
		// overflowed (Veltkamp gives NaN then): p·inf is ±inf or NaN.
		q = p * posInf
	}
	return q
}

var posInf = float32(math.Inf(1))

// roundSubnormal rounds |p| < 2^-14 to the half subnormal grid, keeping
// the sign of zero.
func roundSubnormal(p float32) float32 {
	r := float32(p+0.75) - 0.75
	if r == 0 {
		r = p * 0 // zero with p's sign
	}
	return r
}
