package interp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/anefix/anefix/graph"
)

// The interpreter's one table of ops: a row per op it runs, with the
// spellings that name it, its kernel, the elementwise function a shared
// kernel applies, and the Neural Engine profile's rules that change it
// (numerics.go). exec's dispatch, canonical's aliases, the refusal's list
// of supported ops (supportedOps) and each rule's Ops derive from it.
// graph/coreaiop keeps the other facts about each coreai op (operand roles,
// result types); TestOpRowsMatchCoreaiop holds the two tables to the same
// ops.

// opCall is one op to run: its operands, the result's element type and the
// settings its kernel reads.
type opCall struct {
	in  *Interp
	op  *graph.Operation
	k   string // the row's name
	ins []*Tensor
	// el is the result's element type (float32 for an f16 or bf16 result
	// under Options.Wide); acc16 rounds running sums to half
	// (Options.AccumulateF16 with an f16 result).
	el    Elem
	acc16 bool
	site
}

// site is where an op runs: its invoke depth, the lane of the graph body
// that runs it (nil inside an if or while region) and, inside a region,
// the values of the enclosing blocks.
type site struct {
	depth int
	lane  *lane
	look  lookupFn
}

// lookup reads the values visible where the op runs.
func (s site) lookup() lookupFn {
	if s.look != nil {
		return s.look
	}
	env := s.lane.env
	return func(v *graph.Value) (*Tensor, bool) { t, ok := env[v]; return t, ok }
}

// opRow is one op of the table.
type opRow struct {
	// name is the kernel name: the op's name without "coreai.",
	// "decomposable." and "broadcasting_" (coreai.decomposable.
	// broadcasting_add is add); aliases are other spellings after the same
	// stripping ("subtract").
	name    string
	aliases []string
	// exact: only coreai.<name> and the aliases, as written, name the op
	// (constants, calls, regions and states, which other code matches by
	// their exact names).
	exact bool
	// group and note place the op in supportedOps.
	group, note string
	// run computes the op's one result; runs an op of several results or
	// one the graph's structure runs (constants, calls, regions, states).
	run  func(c opCall) (*Tensor, error)
	runs func(c opCall) ([]*Tensor, error)
	// refuse says why the interpreter does not run a known op.
	refuse string
	// The function an elementwise kernel applies (unaryOp, binaryOp,
	// compareOp); binI also serves the integer and i1 operands of a
	// binary op.
	unary func(float64) float64
	binF  binFloat
	binI  binInt
	cmp   func(c int) bool
	// rules are the Neural Engine profile's rules (aneRules names) that
	// change the op beyond rounding its operands and products to half;
	// ane runs it under them for an f16 result (handled false: the rule
	// does not apply to this instance, which then runs as under IEEE).
	rules []string
	ane   func(c opCall) (*Tensor, bool, error)
}

// supportedOps groups, in the order the refusal lists them.
const (
	gArith   = "elementwise arithmetic with broadcasting"
	gCompare = "comparisons"
	gLogic   = "logical and bitwise ops"
	gUnary   = "unary math"
	gSelect  = "selection and types"
	gReduce  = "reductions and sorting"
	gLinalg  = "matmul and convolution"
	gSpatial = "pooling and resampling"
	gShape   = "shape ops"
	gGather  = "gather and scatter"
	gQuant   = "compressed weights"
	gControl = "calls and regions"
	gState   = "states"
)

// opRows is the table, by family.
var opRows = []*opRow{
	// Elementwise binary ops: float operands through binF (evaluated in
	// float32 or float64 and rounded once to the result type), integer
	// and i1 operands through binI (wrapped to the result type).
	{name: "add", group: gArith, run: binaryOp,
		binF: func(a, b float32) float32 { return a + b }, binI: func(a, b int64) (int64, error) { return a + b, nil }},
	{name: "sub", aliases: []string{"subtract"}, group: gArith, run: binaryOp,
		binF: func(a, b float32) float32 { return a - b }, binI: func(a, b int64) (int64, error) { return a - b, nil }},
	{name: "mul", aliases: []string{"multiply"}, group: gArith, run: binaryOp,
		binF: func(a, b float32) float32 { return a * b }, binI: func(a, b int64) (int64, error) { return a * b, nil }},
	{name: "divide", aliases: []string{"div", "real_div"}, group: gArith, run: binaryOp,
		binF: func(a, b float32) float32 { return a / b }, binI: intDivide},
	{name: "maximum", aliases: []string{"max"}, group: gArith, run: binaryOp,
		binF: fmax, binI: func(a, b int64) (int64, error) { return max(a, b), nil }},
	{name: "minimum", aliases: []string{"min"}, group: gArith, run: binaryOp,
		binF: fmin, binI: func(a, b int64) (int64, error) { return min(a, b), nil }},
	{name: "pow", aliases: []string{"power"}, group: gArith, run: binaryOp,
		binF: func(a, b float32) float32 { return float32(math.Pow(float64(a), float64(b))) }},
	{name: "floor_divide", group: gArith, run: binaryOp, binF: floatFloorDivide, binI: intFloorDivide},
	{name: "mod", group: gArith, note: "numpy's: the divisor's sign", run: binaryOp, binF: floatMod, binI: intMod},
	{name: "modulo", group: gArith, note: "C's fmod: the dividend's sign", run: binaryOp, binF: floatFmod, binI: intFmod},

	{name: "equal", group: gCompare, run: compareOp, cmp: func(c int) bool { return c == 0 }},
	{name: "not_equal", group: gCompare, run: compareOp, cmp: func(c int) bool { return c != 0 }},
	{name: "less", group: gCompare, run: compareOp, cmp: func(c int) bool { return c < 0 }},
	{name: "less_equal", group: gCompare, run: compareOp, cmp: func(c int) bool { return c <= 0 }},
	{name: "greater", group: gCompare, run: compareOp, cmp: func(c int) bool { return c > 0 }},
	{name: "greater_equal", group: gCompare, run: compareOp, cmp: func(c int) bool { return c >= 0 }},

	// coreai's i1 ops are broadcasting_and, _or, _xor and not.
	{name: "logical_and", aliases: []string{"and"}, group: gLogic, run: binaryOp,
		binI: func(a, b int64) (int64, error) { return b2i(a != 0 && b != 0), nil }},
	{name: "logical_or", aliases: []string{"or"}, group: gLogic, run: binaryOp,
		binI: func(a, b int64) (int64, error) { return b2i(a != 0 || b != 0), nil }},
	{name: "logical_xor", aliases: []string{"xor"}, group: gLogic, run: binaryOp,
		binI: func(a, b int64) (int64, error) { return b2i((a != 0) != (b != 0)), nil }},
	{name: "logical_not", aliases: []string{"not"}, group: gLogic, run: unaryOp},
	// The bitwise ops act on the two's complement bits; the result wraps
	// to the result type like every integer result.
	{name: "bitwise_and", group: gLogic, run: binaryOp, binI: func(a, b int64) (int64, error) { return a & b, nil }},
	{name: "bitwise_or", group: gLogic, run: binaryOp, binI: func(a, b int64) (int64, error) { return a | b, nil }},
	{name: "bitwise_xor", group: gLogic, run: binaryOp, binI: func(a, b int64) (int64, error) { return a ^ b, nil }},

	// Unary float functions, evaluated in float64 and rounded once
	// (unaryInto also runs neg, abs and square on integers).
	{name: "exp", group: gUnary, run: unaryOp, unary: math.Exp},
	{name: "log", group: gUnary, run: unaryOp, unary: math.Log},
	{name: "sqrt", group: gUnary, run: unaryOp, unary: math.Sqrt},
	{name: "rsqrt", group: gUnary, run: unaryOp, unary: func(x float64) float64 { return 1 / math.Sqrt(x) }},
	{name: "sigmoid", group: gUnary, run: unaryOp, unary: sigmoid64},
	{name: "silu", group: gUnary, run: unaryOp, unary: func(x float64) float64 { return x * sigmoid64(x) }},
	{name: "tanh", group: gUnary, run: unaryOp, unary: math.Tanh},
	{name: "gelu", group: gUnary, note: "erf or tanh form", run: unaryOp,
		unary: func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }},
	{name: "gelu_tanh", group: gUnary, run: unaryOp, unary: geluTanh},
	{name: "softplus", group: gUnary, run: unaryOp,
		unary: func(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }},
	{name: "sin", group: gUnary, run: unaryOp, unary: math.Sin},
	{name: "cos", group: gUnary, run: unaryOp, unary: math.Cos},
	{name: "tan", group: gUnary, run: unaryOp, unary: math.Tan},
	{name: "asin", group: gUnary, run: unaryOp, unary: math.Asin},
	{name: "acos", group: gUnary, run: unaryOp, unary: math.Acos},
	{name: "atan", group: gUnary, run: unaryOp, unary: math.Atan},
	{name: "sinh", group: gUnary, run: unaryOp, unary: math.Sinh},
	{name: "cosh", group: gUnary, run: unaryOp, unary: math.Cosh},
	{name: "asinh", group: gUnary, run: unaryOp, unary: math.Asinh},
	{name: "acosh", group: gUnary, run: unaryOp, unary: math.Acosh},
	{name: "atanh", group: gUnary, run: unaryOp, unary: math.Atanh},
	{name: "neg", aliases: []string{"negative"}, group: gUnary, run: unaryOp, unary: func(x float64) float64 { return -x }},
	{name: "abs", group: gUnary, run: unaryOp, unary: math.Abs},
	{name: "square", group: gUnary, run: unaryOp, unary: func(x float64) float64 { return x * x }},
	{name: "reciprocal", group: gUnary, run: unaryOp, unary: func(x float64) float64 { return 1 / x }},
	{name: "relu", group: gUnary, run: unaryOp, unary: func(x float64) float64 { return math.Max(x, 0) }},
	{name: "erf", group: gUnary, run: unaryOp, unary: math.Erf},
	{name: "floor", group: gUnary, run: unaryOp, unary: math.Floor},
	{name: "ceil", group: gUnary, run: unaryOp, unary: math.Ceil},
	{name: "round", group: gUnary, note: "half to even", run: unaryOp, unary: math.RoundToEven},
	{name: "sign", group: gUnary, run: unaryOp, unary: sign64},

	{name: "where", aliases: []string{"select"}, group: gSelect, run: whereOp},
	{name: "cast", group: gSelect, run: castOp},
	{name: "constant", aliases: []string{"arith.constant"}, exact: true, group: gSelect, runs: constOp},

	{name: "reduce_sum", group: gReduce, run: reduceOp, rules: []string{"narrow-reduce"}, ane: narrowReduceOp},
	{name: "reduce_mean", group: gReduce, run: reduceOp, rules: []string{"narrow-reduce"}, ane: narrowReduceOp},
	// reduce_prod: one name for every rule keyed by it (the profile's
	// narrow-reduce rule once missed the alias).
	{name: "reduce_product", aliases: []string{"reduce_prod"}, group: gReduce, run: reduceOp, rules: []string{"narrow-reduce"}, ane: narrowReduceOp},
	{name: "reduce_max", group: gReduce, run: reduceOp},
	{name: "reduce_min", group: gReduce, run: reduceOp},
	{name: "any", group: gReduce, run: anyOp},
	{name: "argmax", group: gReduce, run: argmaxOp},
	{name: "scan", group: gReduce, note: "sum", run: scanOp},
	{name: "sort", group: gReduce, run: sortOp},
	{name: "argsort", group: gReduce, run: sortOp},
	{name: "softmax", group: gReduce, run: softmaxOp},

	{name: "matmul", aliases: []string{"batch_matmul"}, group: gLinalg, run: matmulOp,
		rules: []string{"wide-accumulator", "matmul-saturation"}, ane: aneMatmulOp},
	// conv applies the wide-accumulator rule itself (convOp).
	{name: "conv", aliases: []string{"conv2d", "conv1d"}, group: gLinalg, run: convOp, rules: []string{"wide-accumulator"}},
	{name: "conv3d", group: gLinalg, run: conv3dOp},
	{name: "conv_transpose2d", group: gLinalg, run: convTranspose2dOp},

	{name: "max_pool_2d", group: gSpatial, run: poolOp},
	{name: "sum_pool_2d", group: gSpatial, run: poolOp},
	{name: "sum_pool_3d", group: gSpatial, run: poolOp},
	{name: "interpolate", group: gSpatial, note: "linear, nearest_neighbor", run: interpolateOp},

	{name: "reshape", group: gShape, run: reshapeOp},
	{name: "expand_dims", aliases: []string{"unsqueeze"}, group: gShape, run: reshapeOp},
	{name: "shrink_dims", aliases: []string{"squeeze"}, group: gShape, run: reshapeOp},
	{name: "flatten", group: gShape, run: reshapeOp},
	{name: "transpose", aliases: []string{"permute"}, group: gShape, run: transposeOp},
	{name: "concat", group: gShape, run: concatOp},
	{name: "split", group: gShape, runs: splitOp},
	{name: "slice", aliases: []string{"slice_"}, group: gShape, run: sliceOp, rules: []string{"slice-saturation"}, ane: aneSliceOp},
	{name: "slice_update", group: gShape, run: sliceUpdateOp},
	{name: "tile", group: gShape, run: tileOp},
	{name: "pad", group: gShape, run: padOp},
	{name: "reverse", group: gShape, run: reverseOp},
	{name: "broadcast_to", aliases: []string{"expand"}, group: gShape, run: broadcastToOp},
	{name: "broadcast_in_dims", group: gShape, run: broadcastInDimsOp},
	{name: "get_shape", group: gShape, run: getShapeOp},
	{name: "broadcast_shapes", group: gShape, run: broadcastShapesOp},
	{name: "range", group: gShape, run: rangeOp},

	{name: "gather", group: gGather, run: gatherOp},
	{name: "gather_nd", group: gGather, run: gatherNDOp},
	{name: "gather_along_axis", group: gGather, run: gatherAlongAxisOp},
	{name: "scatter_nd", group: gGather, run: scatterNDOp},
	{name: "scatter_along_axis", group: gGather, run: scatterAlongAxisOp},
	{name: "non_zero", group: gGather, note: "with a static result", run: nonZeroOp},

	{name: "quantize", group: gQuant, run: quantizeOp},
	{name: "dequantize", group: gQuant, run: quantizeOp},
	{name: "blockwise_shift_scale", group: gQuant, run: blockwiseShiftScaleOp},
	{name: "lut_to_dense", group: gQuant, run: lutToDenseOp},

	{name: "invoke", aliases: []string{"func.call"}, exact: true, group: gControl, runs: invokeOp},
	{name: "if", exact: true, group: gControl, runs: func(c opCall) ([]*Tensor, error) {
		return c.in.runIf(c.op, c.ins, c.lookup(), c.depth)
	}},
	{name: "while", exact: true, group: gControl, runs: func(c opCall) ([]*Tensor, error) {
		return c.in.runWhile(c.op, c.ins, c.lookup(), c.depth)
	}},
	{name: "metal4_kernel", refuse: "its computation is Metal shader source (kernel_source), which anefix does not execute"},

	{name: "create_token", exact: true, group: gState, runs: stateOp},
	{name: "read_handle", exact: true, group: gState, runs: stateOp},
	{name: "write_handle", exact: true, group: gState, runs: stateOp},
}

// Derived from opRows (init): the rows by name and alias, the elementwise
// kernels' functions by row name, and the refusal's list.
var (
	opKeys       map[string]*opRow
	unaryFloat   map[string]func(float64) float64
	binaryFloat  map[string]binFloat
	binaryInt    map[string]binInt
	compareOps   map[string]func(c int) bool
	supportedOps string
)

func init() {
	opKeys = map[string]*opRow{}
	unaryFloat, binaryFloat, binaryInt, compareOps = map[string]func(float64) float64{}, map[string]binFloat{}, map[string]binInt{}, map[string]func(c int) bool{}
	var groups []string
	names := map[string][]string{}
	for _, r := range opRows {
		for _, k := range append([]string{r.name}, r.aliases...) {
			if opKeys[k] != nil {
				panic("interp: op " + k + " has two rows")
			}
			opKeys[k] = r
		}
		if r.unary != nil {
			unaryFloat[r.name] = r.unary
		}
		if r.binF != nil {
			binaryFloat[r.name] = r.binF
		}
		if r.binI != nil {
			binaryInt[r.name] = r.binI
		}
		if r.cmp != nil {
			compareOps[r.name] = r.cmp
		}
		if r.refuse != "" {
			continue
		}
		if names[r.group] == nil {
			groups = append(groups, r.group)
		}
		n := r.name
		if r.note != "" {
			n += " (" + r.note + ")"
		}
		names[r.group] = append(names[r.group], n)
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = g + ": " + strings.Join(names[g], ", ")
	}
	supportedOps = strings.Join(parts, "; ")
	for i := range aneRules {
		for _, r := range opRows {
			if slices.Contains(r.rules, aneRules[i].Name) {
				aneRules[i].Ops = append(aneRules[i].Ops, r.name)
			}
		}
	}
}

// opRef is an op name's row (nil when no row names it) and the kernel
// name it runs under (canonical).
type opRef struct {
	row *opRow
	k   string
}

// refOf finds the row of an op name.
func refOf(name string) opRef {
	n := name
	for _, p := range [...]string{"coreai.", "decomposable.", "broadcasting_"} {
		n = strings.TrimPrefix(n, p)
	}
	r := opKeys[n]
	switch {
	case r == nil:
		return opRef{nil, n}
	case r.exact && name != "coreai."+r.name && !slices.Contains(r.aliases, name):
		return opRef{nil, n}
	}
	return opRef{r, r.name}
}

// canonical strips the dialect and the decomposable./broadcasting_ prefixes
// and maps spelling variants to one kernel name (opRows).
func canonical(name string) string { return refOf(name).k }

// exec runs one op (its row ref) at site s.
func (in *Interp) exec(op *graph.Operation, ref opRef, ins []*Tensor, s site) ([]*Tensor, error) {
	r := ref.row
	c := opCall{in: in, op: op, k: ref.k, ins: ins, site: s}
	switch {
	case r != nil && r.runs != nil:
		return r.runs(c)
	case r != nil && r.refuse != "":
		return nil, fmt.Errorf("the interpreter cannot run op %q: %s", op.Name, r.refuse)
	case op.NumResults() != 1:
		return nil, fmt.Errorf("the interpreter cannot run op %q (%d results)", op.Name, op.NumResults())
	}
	el, err := resultElem(op, 0)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("the interpreter cannot run op %q; supported: %s", op.Name, supportedOps)
	}
	c.el, c.acc16 = el, in.opts.AccumulateF16 && el == F16
	if r.ane != nil && in.opts.ANE != nil && el == F16 {
		if t, ok, err := r.ane(c); ok {
			return one(t, err)
		}
	}
	if in.opts.Wide && (el == F16 || el == BF16) {
		c.el = F32
	}
	return one(r.run(c))
}

// isConstant reports whether name is a spelling of the constant row: the
// ops whose value the interpreter caches across runs (bind pins it).
func isConstant(name string) bool { return name == "coreai.constant" || name == "arith.constant" }

// one is a kernel's single result as exec returns it.
func one(t *Tensor, err error) ([]*Tensor, error) {
	if err != nil {
		return nil, err
	}
	return []*Tensor{t}, nil
}

func constOp(c opCall) ([]*Tensor, error) { return one(c.in.constant(c.op)) }

func invokeOp(c opCall) ([]*Tensor, error) {
	ref, ok := c.op.Inherent("callee").(*graph.SymbolRefAttr)
	if !ok {
		return nil, fmt.Errorf("has no callee symbol")
	}
	g := c.in.graphs[ref.Root]
	if g == nil {
		return nil, fmt.Errorf("callee @%s is not a graph of this module", ref.Root)
	}
	return c.in.runGraph(g, c.ins, c.depth+1)
}

// stateOp runs create_token, read_handle and write_handle in the body of
// the graph the caller runs.
func stateOp(c opCall) ([]*Tensor, error) {
	switch {
	case c.lane == nil:
		return nil, fmt.Errorf("state ops inside a region are not run by the interpreter")
	case c.depth > 0 && c.k == "write_handle":
		// The caller's handle would not see the write.
		return nil, fmt.Errorf("writes a handle inside an invoked graph; the interpreter runs state writes only in the graph it is asked to run")
	}
	return c.lane.st.exec(c.op, c.ins, c.lane.refs)
}
