package ane

import (
	"fmt"
	"math"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/passes/anefacts"
)

// hazardExp: an exp whose input is proven (from constants, clamps and
// interval arithmetic over data movement, add, sub and mul) able to exceed
// ln(65504), so that its fp16 result is +inf. Inputs without a provable
// bound are not reported: the rule never guesses.
var hazardExp = &Rule{
	ID:    "fp16.exp-overflow",
	Title: "exp of an input proven able to exceed ln(65504) ≈ 11.09",
	Message: "exp whose input can exceed ln(65504) ≈ 11.09 overflows fp16 to +inf; the bound is proven from the graph " +
		"(constants, clamps as broadcasting_maximum/minimum, data movement, add/sub/mul of bounded values), never guessed",
	Evidence: "IEEE 754 binary16: exp(x) > 65504 for x > ln(65504) ≈ 11.0898; inputs without a provable bound are not reported",
	Severity: hazard,
	Requires: []*fact{factFP16Scan},
	Run:      runExp,
}

// expLimit is ln(65504): exp of anything larger is not finite in fp16.
var expLimit = math.Log(f16.MaxHalf)

// interval bounds every element of a value: lo ≤ x ≤ hi. A side marked
// open is not proven (it stands at ∓inf); only closed sides are evidence.
type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
	how            string
}

func unbounded() interval {
	return interval{lo: math.Inf(-1), hi: math.Inf(1), loOpen: true, hiOpen: true}
}

func (iv interval) String() string {
	lo, hi := fmtVal(iv.lo), fmtVal(iv.hi)
	if iv.loOpen {
		lo = "?"
	}
	if iv.hiOpen {
		hi = "?"
	}
	return "[" + lo + ", " + hi + "]"
}

// bound proves a range for v from what the graph states: constants, data
// movement (reshape, transpose, expand/shrink dims, slice, cast), clamps
// (broadcasting_maximum then broadcasting_minimum, as coreai-torch lowers
// torch.clamp), and add, sub and mul by interval arithmetic. Anything else
// (graph inputs, states, matmuls) is unbounded: the rule never guesses.
//
// Results are remembered per value and depth (bounder), so a graph whose
// values share operands (x1 = max(x0, x0), x2 = max(x1, x1), …) costs
// time in proportion to its size, not 2^depth.
func bound(scan *anefacts.Scan, v *graph.Value, depth int) interval {
	return (&bounder{scan: scan}).bound(v, depth)
}

// bounder computes bound with a memory of what it has proven.
type bounder struct {
	scan   *anefacts.Scan
	memo   map[boundKey]interval
	proved int // values proven, for the tests' count of work
}

type boundKey struct {
	v     *graph.Value
	depth int
}

func (bd *bounder) bound(v *graph.Value, depth int) interval {
	if v == nil || depth > 32 {
		return unbounded()
	}
	k := boundKey{v, depth}
	if iv, ok := bd.memo[k]; ok {
		return iv
	}
	iv := bd.prove(v, depth)
	bd.proved++
	if bd.memo == nil {
		bd.memo = map[boundKey]interval{}
	}
	bd.memo[k] = iv
	return iv
}

func (bd *bounder) prove(v *graph.Value, depth int) interval {
	scan := bd.scan
	d := v.DefiningOp()
	if d == nil {
		return unbounded()
	}
	name := anefacts.BaseOpName(d.Name)
	switch name {
	case "coreai.constant":
		s := scan.FloatConstStats(d)
		if s == nil || s.N == 0 || s.SawNaN || !s.HaveMin {
			return unbounded()
		}
		return interval{lo: s.Min, hi: s.Max, how: "constant " + graph.OpLabel(d.Loc)}
	case "coreai.reshape", "coreai.transpose", "coreai.expand_dims", "coreai.shrink_dims", "coreai.slice", "coreai.cast":
		if d.NumOperands() == 0 || !isFloatValue(v) {
			return unbounded()
		}
		iv := bd.bound(d.Operand(0), depth+1)
		if name == "coreai.cast" && isF16Value(v) { // rounding is monotonic
			iv.lo, iv.hi = f16.ToFloat64(f16.FromFloat64(iv.lo)), f16.ToFloat64(f16.FromFloat64(iv.hi))
		}
		return iv
	}
	if d.NumOperands() != 2 {
		return unbounded()
	}
	a, b := bd.bound(d.Operand(0), depth+1), bd.bound(d.Operand(1), depth+1)
	how := func(op string) string {
		var parts []string
		for _, x := range []interval{a, b} {
			if x.how != "" {
				parts = append(parts, x.how+" "+x.String())
			}
		}
		return op + " of " + strings.Join(parts, " and ")
	}
	var r interval
	switch name {
	case "coreai.broadcasting_minimum":
		// min(x, y) ≤ y.hi whatever x is.
		r = interval{lo: math.Min(a.lo, b.lo), hi: math.Min(a.hi, b.hi),
			loOpen: a.loOpen || b.loOpen, hiOpen: a.hiOpen && b.hiOpen, how: how("minimum")}
	case "coreai.broadcasting_maximum":
		r = interval{lo: math.Max(a.lo, b.lo), hi: math.Max(a.hi, b.hi),
			loOpen: a.loOpen && b.loOpen, hiOpen: a.hiOpen || b.hiOpen, how: how("maximum")}
	case "coreai.broadcasting_add":
		r = interval{lo: a.lo + b.lo, hi: a.hi + b.hi, loOpen: a.loOpen || b.loOpen, hiOpen: a.hiOpen || b.hiOpen, how: how("sum")}
	case "coreai.broadcasting_sub":
		r = interval{lo: a.lo - b.hi, hi: a.hi - b.lo, loOpen: a.loOpen || b.hiOpen, hiOpen: a.hiOpen || b.loOpen, how: how("difference")}
	case "coreai.broadcasting_mul":
		if a.loOpen || a.hiOpen || b.loOpen || b.hiOpen {
			return unbounded()
		}
		p := []float64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
		r = interval{lo: p[0], hi: p[0], how: how("product")}
		for _, x := range p {
			r.lo, r.hi = math.Min(r.lo, x), math.Max(r.hi, x)
		}
	default:
		return unbounded()
	}
	if math.IsNaN(r.lo) || math.IsNaN(r.hi) { // inf - inf, 0 × inf
		return unbounded()
	}
	if r.loOpen && r.hiOpen {
		return unbounded()
	}
	return r
}

func isFloatValue(v *graph.Value) bool {
	_, ok := graph.ElementType(v.Type()).(*graph.FloatType)
	return ok
}

func isF16Value(v *graph.Value) bool { return graph.IsFloat(graph.ElementType(v.Type()), "f16") }

// expHazard flags an exp whose input is proven able to exceed ln(65504):
// its proven upper bound is above it (the bound is reached by a constant, or
// by a clamp's limit when the clamped value gets there), or its proven lower
// bound is, so that every element overflows.
func runExp(p *Pass) {
	for _, op := range p.Ops {
		if anefacts.BaseOpName(op.Name) == "coreai.exp" && op.NumOperands() > 0 {
			expHazard(p, op)
		}
	}
}

func expHazard(p *Pass, op *graph.Operation) {
	iv := p.bound(op.Operand(0))
	hiOver := !iv.hiOpen && iv.hi > expLimit
	loOver := !iv.loOpen && iv.lo > expLimit
	if !hiOver && !loOver {
		return
	}
	var reach string
	switch {
	case hiOver && math.IsInf(iv.hi, 1):
		reach = "it can be +inf"
	case hiOver:
		reach = "exp(" + fmtVal(iv.hi) + ") = " + fmtVal(math.Exp(iv.hi))
	default:
		reach = "exp(" + fmtVal(iv.lo) + ") = " + fmtVal(math.Exp(iv.lo))
	}
	always := ""
	if loOver {
		always = "; every element overflows (lower bound " + fmtVal(iv.lo) + ")"
	}
	p.Report(op, "", fmt.Sprintf("%sinput range %s from %s: %s, above ln(65504) ≈ %.4f, so the result is +inf in fp16%s",
		numLabel(op), iv, iv.how, reach, expLimit, always))
}
