package ane

import (
	"fmt"
	"math"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/passes/anefacts"
)

// hazardUnbounded: an exp, softplus, power or sum of squares computed in
// fp16 (or in an fp32 island the default rewrite retypes to fp16) whose
// input comes from a value nothing bounds: a recurrent state (a running
// maximum, an SSM state) or the residual stream (which carries the massive
// activation channels of trained models). hazard_exp.go reports only proven
// overflows; these inputs have no proven bound at all, and they are where
// fp16 recurrences are known to fail, so the rule names them.
var hazardUnbounded = &Rule{
	ID:    "fp16.unbounded-input",
	Title: "exp, softplus, power or sum of squares in fp16 of a state or the residual stream",
	Message: "exp, softplus, power or sum of squares whose input derives from a recurrent state or the residual stream, " +
		"with no bounding op (sigmoid, tanh, softmax, a norm, a clamp) between: nothing keeps it inside fp16 " +
		"(exp overflows past 11.09, x² past 256, softplus drops at ≈ 10.4 on the Neural Engine)",
	Evidence: "IEEE 754 binary16 (max 65504); trained models carry residual channels in the hundreds to thousands " +
		"(exporters keep norms in fp32), and fp16 recurrent states are reported to break trained models " +
		"(TensorRT-Model-Connect PR #725: Qwen3.5 with an fp16 SSM state, MMLU 0.45 -> 0.15; Qwen3.5's config keeps " +
		"mamba_ssm_dtype float32, as llama.cpp and MLX PR #997 do); coremltools issue 2687 for softplus",
	Severity: hazard,
	Requires: []*fact{factFP16Scan, factIslands},
	Run:      runUnbounded,
}

// taint says where an unbounded value comes from ("state \"m\"").
type taint map[*graph.Value]string

// streamScale is, for the values derived from the residual stream, the
// factor by which every contribution to the stream is known to have been
// multiplied (residual-scale's 2^-k, passes/residual_scale.go); a stream
// value without an entry is unscaled (factor 1).
type streamScale map[*graph.Value]float64

// streamSrc marks the taints that start at an embedding lookup.
const streamSrc = "the residual stream"

// runUnbounded walks the graph in op order, marking the values that derive
// from a state or the residual stream (embedding lookups) until an op
// bounds them, and reports the hazardous ops that read a marked value and
// compute in fp16 or sit in an island the default rewrite retypes.
func runUnbounded(p *Pass) {
	t, sc := taint{}, streamScale{}
	for v, i := range p.IsInput {
		if pr, ok := p.States.ForInput(i); ok && accumulates(p, v, pr) {
			t[v] = fmt.Sprintf("state %q", pr.Name)
		}
	}
	retyped := map[*graph.Operation]bool{}
	for _, is := range p.Islands() {
		if is.Why == "" {
			continue
		}
		for _, op := range is.All {
			retyped[op] = true
		}
	}
	for _, op := range p.Ops {
		name := anefacts.BaseOpName(op.Name)
		if src, what := unboundedUse(p, t, sc, op, name); src != "" && op.NumResults() > 0 {
			where := "computed in fp16"
			if !isF16Value(op.Result(0)) {
				where = "in an fp32 island the default rewrite (strip-fp32-casts islands=blockers) retypes to fp16"
			}
			if isF16Value(op.Result(0)) || retyped[op] {
				p.Report(op, "", fmt.Sprintf("%s%s of a value derived from %s with no bounding op between, %s%s",
					numLabel(op), what, src, where, userLabel(op)))
			}
		}
		markTaint(p, t, sc, op, name)
	}
}

// accumulates reports whether state input v's new value is computed from
// its old value elementwise (an SSM state decayed and added to, a running
// maximum), which nothing bounds, rather than only moved (a conv window
// shifted, a KV cache written at a position), whose elements are only as
// large as what is written in. The walk follows op order from v (through
// read_handle in the handle form) along data movement and elementwise ops
// only: a value that went through a matmul, a convolution or a reduction
// (the next layer's input, written into a stacked window) is no longer the
// state's own. The end is the output pr.Out, or what write_handle writes.
func accumulates(p *Pass, v *graph.Value, pr graph.StatePair) bool {
	moved := map[*graph.Value]bool{v: true}
	mixed := map[*graph.Value]bool{}
	for _, op := range p.Ops {
		name := anefacts.BaseOpName(op.Name)
		if name == "coreai.write_handle" && op.NumOperands() > 1 && op.Operand(0) == v {
			if mixed[op.Operand(1)] {
				return true
			}
			continue
		}
		move, elementwise := movesData(name), isElementwise(name)
		if !move && !elementwise {
			continue
		}
		anyMoved, anyMixed := false, false
		for _, o := range op.Operands() {
			anyMoved = anyMoved || moved[o]
			anyMixed = anyMixed || mixed[o]
		}
		if !anyMoved && !anyMixed {
			continue
		}
		for _, r := range op.Results() {
			if anyMixed || elementwise {
				mixed[r] = true
			} else {
				moved[r] = true
			}
		}
	}
	if pr.Out >= 0 && p.Term != nil && pr.Out < p.Term.NumOperands() {
		return mixed[p.Term.Operand(pr.Out)]
	}
	return false
}

// movesData: ops that copy, select or reshape elements without computing
// new values.
func movesData(name string) bool {
	switch name {
	case "coreai.reshape", "coreai.transpose", "coreai.expand_dims", "coreai.shrink_dims", "coreai.slice",
		"coreai.slice_update", "coreai.concat", "coreai.cast", "coreai.broadcast_to", "coreai.read_handle",
		"coreai.gather_nd", "coreai.gather_along_axis", "coreai.scatter_nd", "coreai.scatter_along_axis", "coreai.tile", "coreai.pad":
		return true
	}
	return false
}

// isElementwise: the op table's unary ops (one data operand, result of its
// type) and the broadcasting binary ops but the batched matmul.
func isElementwise(name string) bool {
	if name == "coreai.broadcasting_batch_matmul" {
		return false
	}
	if strings.HasPrefix(name, "coreai.broadcasting_") {
		return true
	}
	o := coreaiop.Lookup(name)
	return o != nil && o.Result == coreaiop.FollowsData && o.Rest == coreaiop.None &&
		len(o.Operands) == 1 && o.Operands[0] == coreaiop.Data
}

// unboundedUse returns the source of op's hazardous unbounded input and
// what op computes, or "" when op is not one of the rule's ops or its
// input is not marked.
//
// A sum of squares of the residual stream is not named when the stream is
// known to be scaled by 2^-k with k at least anefacts.StreamSafeK: the
// guessed stream (passes/anefacts/stream.go) then fits fp16's sum of
// squares; a smaller scale is named with the k it would need.
func unboundedUse(p *Pass, t taint, sc streamScale, op *graph.Operation, name string) (string, string) {
	if op.NumOperands() == 0 {
		return "", ""
	}
	in := op.Operand(0)
	switch name {
	case "coreai.exp":
		return t[in], "exp (overflows fp16 past 11.09)"
	case "coreai.softplus":
		return t[in], "softplus (drops to 0 past ≈ 10.4 on the Neural Engine, coremltools issue 2687)"
	case "coreai.broadcasting_pow":
		if isSquareOp(p, op) && onlyReduced(op) {
			return "", "" // the sum of squares it feeds is reported
		}
		return t[in], "power"
	case "coreai.reduce_sum", "coreai.reduce_mean":
		if sq := in.DefiningOp(); isSquareOp(p, sq) {
			x := sq.Operand(0)
			src := t[x]
			f, scaled := sc[x]
			if !strings.HasPrefix(src, streamSrc) || !scaled || f >= 1 {
				return src, "sum of squares (x² overflows fp16 past |x| = 256)"
			}
			d := lastAxis(x)
			k := anefacts.StreamSafeK(d)
			if f <= math.Ldexp(1, -k) {
				return "", ""
			}
			return src, fmt.Sprintf("sum of squares (x² overflows fp16 past |x| = 256; the stream is scaled by %.4g, and a guessed stream of %d massive channels at %d needs 2^-%d: passes/anefacts/stream.go)",
				f, anefacts.StreamMassiveGuess, anefacts.StreamPeakGuess, k)
		}
	}
	return "", ""
}

// markTaint marks op's float results when a float operand is marked and op
// does not bound its result, and follows the residual stream's scale.
func markTaint(p *Pass, t taint, sc streamScale, op *graph.Operation, name string) {
	if name == "coreai.read_handle" && op.NumOperands() > 0 && op.NumResults() > 0 && isFloatValue(op.Result(0)) {
		if src := t[op.Operand(0)]; src != "" {
			t[op.Result(0)] = src
		}
		return
	}
	if isEmbedding(op, name) {
		t[op.Result(0)] = streamSrc + " (embedding " + opLabelOrName(op) + ")"
		return
	}
	if boundsResult(p, op, name) {
		return
	}
	// A state's taint wins over the stream's: a scaled stream is bounded
	// by the guess (passes/anefacts/stream.go), a state by nothing.
	src := ""
	for _, v := range op.Operands() {
		if s := t[v]; s != "" && isFloatValue(v) && (src == "" || strings.HasPrefix(src, streamSrc)) {
			src = s
		}
	}
	if src == "" {
		return
	}
	f := 1.0
	if strings.HasPrefix(src, streamSrc) {
		f = streamFactor(p, t, sc, op, name)
	}
	for _, r := range op.Results() {
		if isFloatValue(r) {
			t[r] = src
			if f < 1 {
				sc[r] = f
			}
		}
	}
}

// streamFactor is the scale of the stream value op computes from a stream
// operand: kept by data movement, multiplied by |c| by a multiply with a
// value c bounded on both sides, and, for an add (the residual add), the
// largest scale of its operands, where an operand not derived from the
// stream counts as scaled only when it is such a multiply (residual-scale
// multiplies every block output by 2^-k before its add). Any other op: 1.
func streamFactor(p *Pass, t taint, sc streamScale, op *graph.Operation, name string) float64 {
	of := func(v *graph.Value) float64 {
		if f, ok := sc[v]; ok {
			return f
		}
		if t[v] != "" {
			return 1
		}
		if d := v.DefiningOp(); d != nil {
			if _, c, ok := constMul(p, d); ok {
				return c
			}
		}
		return 1
	}
	switch {
	case movesData(name) && op.NumOperands() > 0:
		return of(op.Operand(0))
	case name == "coreai.broadcasting_mul" || name == "coreai.mul":
		if x, c, ok := constMul(p, op); ok && t[x] != "" {
			return min(1, of(x)*c)
		}
	case name == "coreai.broadcasting_add" || name == "coreai.add":
		f := 0.0
		for _, v := range op.Operands() {
			f = max(f, of(v))
		}
		return min(1, f)
	}
	return 1
}

// constMul: op multiplies a value x by an operand the interval analysis
// proves to be one finite value c (a splat constant, as residual-scale
// writes 2^-k); it returns x and |c|.
func constMul(p *Pass, op *graph.Operation) (*graph.Value, float64, bool) {
	n := anefacts.BaseOpName(op.Name)
	if n != "coreai.broadcasting_mul" && n != "coreai.mul" || op.NumOperands() != 2 {
		return nil, 0, false
	}
	for i := 1; i >= 0; i-- {
		iv := p.bound(op.Operand(i))
		if !iv.loOpen && !iv.hiOpen && iv.lo == iv.hi && !math.IsInf(iv.lo, 0) {
			return op.Operand(1 - i), math.Abs(iv.lo), true
		}
	}
	return nil, 0, false
}

// lastAxis is the length of v's last axis, 0 when not static.
func lastAxis(v *graph.Value) int64 {
	tt, ok := graph.AsTensor(v.Type())
	if !ok || len(tt.Shape) == 0 || tt.Shape[len(tt.Shape)-1] < 0 {
		return 0
	}
	return tt.Shape[len(tt.Shape)-1]
}

// isEmbedding: a gather from a float table that is a constant (or derived
// from one: dequantized, palettized), the start of the residual stream.
func isEmbedding(op *graph.Operation, name string) bool {
	if name != "coreai.gather_nd" && name != "coreai.gather_along_axis" || op.NumOperands() == 0 || op.NumResults() != 1 {
		return false
	}
	if !isFloatValue(op.Result(0)) {
		return false
	}
	for v, depth := op.Operand(0), 0; depth < 8; depth++ {
		d := v.DefiningOp()
		if d == nil {
			return false
		}
		if anefacts.BaseOpName(d.Name) == "coreai.constant" {
			return true
		}
		if d.NumOperands() == 0 {
			return false
		}
		v = d.Operand(0)
	}
	return false
}

// boundsResult: ops whose result is bounded whatever their input (sigmoid,
// tanh, softmax, sin, cos, erf), a clamp the interval analysis proves on
// both sides, and the multiply or divide that completes a norm.
func boundsResult(p *Pass, op *graph.Operation, name string) bool {
	switch name {
	case "coreai.sigmoid", "coreai.tanh", "coreai.softmax", "coreai.sin", "coreai.cos", "coreai.erf":
		return true
	case "coreai.broadcasting_minimum", "coreai.broadcasting_maximum", "coreai.clip":
		if op.NumResults() == 1 {
			iv := p.bound(op.Result(0))
			return !iv.loOpen && !iv.hiOpen
		}
	case "coreai.broadcasting_mul", "coreai.broadcasting_divide":
		want := "coreai.rsqrt"
		if name == "coreai.broadcasting_divide" {
			want = "coreai.sqrt"
		}
		for _, v := range op.Operands() {
			if normFactor(p, v, want) {
				return true
			}
		}
	}
	return false
}

// normFactor reports whether v is an rsqrt (or sqrt) of a sum or mean of
// squares, through data movement and the addition of a constant ε: the
// factor that turns x into x / ‖x‖ (RMSNorm, an L2 norm), bounded by √n.
func normFactor(p *Pass, v *graph.Value, want string) bool {
	d := v.DefiningOp()
	for depth := 0; d != nil && depth < 8; depth++ {
		switch anefacts.BaseOpName(d.Name) {
		case "coreai.reshape", "coreai.expand_dims", "coreai.shrink_dims", "coreai.cast", "coreai.broadcast_to", "coreai.transpose":
			d = d.Operand(0).DefiningOp()
			continue
		case want:
			return sumOfSquares(p, d.Operand(0))
		}
		return false
	}
	return false
}

// sumOfSquares: v is a reduce_sum or reduce_mean of a square, plus an
// optional constant ε, through data movement.
func sumOfSquares(p *Pass, v *graph.Value) bool {
	d := v.DefiningOp()
	for depth := 0; d != nil && depth < 8; depth++ {
		switch anefacts.BaseOpName(d.Name) {
		case "coreai.reshape", "coreai.expand_dims", "coreai.shrink_dims", "coreai.cast", "coreai.broadcasting_add", "coreai.broadcasting_maximum":
			// The ε term: continue through the non-constant operand.
			next := d.Operand(0)
			if d.NumOperands() > 1 && next.DefiningOp() != nil && anefacts.BaseOpName(next.DefiningOp().Name) == "coreai.constant" {
				next = d.Operand(1)
			}
			d = next.DefiningOp()
			continue
		case "coreai.reduce_sum", "coreai.reduce_mean":
			return isSquareOp(p, d.Operand(0).DefiningOp())
		}
		return false
	}
	return false
}

// isSquareOp: coreai.square, a multiply of a value by itself, or a power
// whose exponent is proven to be exactly 2 (torch's x.pow(2)).
func isSquareOp(p *Pass, op *graph.Operation) bool {
	if op == nil || op.NumOperands() == 0 {
		return false
	}
	switch anefacts.BaseOpName(op.Name) {
	case "coreai.square":
		return true
	case "coreai.broadcasting_mul":
		return op.NumOperands() == 2 && op.Operand(0) == op.Operand(1)
	case "coreai.broadcasting_pow":
		if op.NumOperands() != 2 {
			return false
		}
		iv := p.bound(op.Operand(1))
		return !iv.loOpen && !iv.hiOpen && iv.lo == 2 && iv.hi == 2
	}
	return false
}

// onlyReduced: every use of op's result is a reduce_sum or reduce_mean.
func onlyReduced(op *graph.Operation) bool {
	if op.NumResults() != 1 || !op.Result(0).HasUses() {
		return false
	}
	for _, u := range op.Result(0).Uses() {
		if n := anefacts.BaseOpName(u.Op.Name); n != "coreai.reduce_sum" && n != "coreai.reduce_mean" {
			return false
		}
	}
	return true
}

// opLabelOrName names op by its location's label, else by its op name.
func opLabelOrName(op *graph.Operation) string {
	if l := graph.OpLabel(op.Loc); l != "" {
		return l
	}
	return op.Name
}
