package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/mlirtext"
)

// The compensated state of issue 29 (item 5b), measured before any pass is
// written: a gated-delta recurrence state kept as two fp16 tensors, hi and
// lo = 2^10 · (rounding error), updated with error-free transformations
// (Veltkamp/Dekker products, TwoSum, Fast2Sum) built from f16 ops only, run
// by the interpreter against the same recurrence with an fp32 state (the
// exporters' island: the reference) and with a plain fp16 state, all fed
// the same f16 inputs (teacher-forced). If the compensated state does not
// come near the fp32 one, no pass is landed (the rule); this test
// holds the figures.

// ssmGraph writes one decode step of the gated-delta recurrence for H heads
// of DK×DV: Sd = S·g; kv = Σ_k Sd·k; u = (v − kv)·β; S' = Sd + k⊗u;
// o = Σ_k S'·q (graph/synth/variants/hybrid.go's recurrence, without the
// l2 norms, which precede it). form is "f32" (state and arithmetic in f32
// between casts), "f16", "comp" (hi, lo in f16, the accumulation
// error-free) or "full" (the update's products and differences too).
func ssmGraph(form string, H, DK, DV int) string {
	var b strings.Builder
	n := 0
	ty := func(e string, dims ...int) string {
		s := make([]string, len(dims))
		for i, d := range dims {
			s[i] = fmt.Sprint(d)
		}
		return "tensor<" + strings.Join(s, "x") + "x" + e + ">"
	}
	type val struct {
		name, t string
		dims    []int
		e       string
	}
	emit := func(e string, dims []int, format string, args ...any) val {
		v := val{fmt.Sprintf("%%t%d", n), ty(e, dims...), dims, e}
		n++
		fmt.Fprintf(&b, "    %s = "+format+"\n", append([]any{v.name}, args...)...)
		return v
	}
	bdims := func(a, c []int) []int {
		out := make([]int, len(a))
		for i := range a {
			out[i] = max(a[i], c[i])
		}
		return out
	}
	bin := func(op string, x, y val) val {
		return emit(x.e, bdims(x.dims, y.dims), "coreai.decomposable.broadcasting_%s %s, %s : (%s, %s) -> %s",
			op, x.name, y.name, x.t, y.t, ty(x.e, bdims(x.dims, y.dims)...))
	}
	scalar := func(x float64, e string) val {
		return emit(e, []int{1, 1, 1}, "coreai.constant dense<%.9e> : %s", x, ty(e, 1, 1, 1))
	}
	sum := func(x val, axis int) val {
		ax := emit("si32", []int{1}, "coreai.constant dense<[%d]> : tensor<1xsi32>", axis)
		d := append([]int(nil), x.dims...)
		d[axis] = 1
		return emit(x.e, d, "\"coreai.reduce_sum\"(%s, %s) <{keep_dims = true}> : (%s, tensor<1xsi32>) -> %s", x.name, ax.name, x.t, ty(x.e, d...))
	}
	cast := func(x val, e string) val {
		return emit(e, x.dims, "coreai.cast %s : %s to %s", x.name, x.t, ty(e, x.dims...))
	}
	arg := func(name, e string, dims ...int) val { return val{"%" + name, ty(e, dims...), dims, e} }
	st := "f16"
	if form == "f32" {
		st = "f32"
	}
	q, k, v := arg("q", "f16", H, DK, 1), arg("k", "f16", H, DK, 1), arg("v", "f16", H, 1, DV)
	beta, g := arg("beta", "f16", H, 1, 1), arg("g", "f16", H, 1, 1)
	ins := []string{}
	var outs []val
	if form == "comp" || form == "full" {
		hi, lo := arg("hi", "f16", H, DK, DV), arg("lo", "f16", H, DK, DV)
		ins = append(ins, hi.name+": "+hi.t+` {coreai.name = "hi"}`, lo.name+": "+lo.t+` {coreai.name = "lo"}`)
		c65, sc, isc := scalar(65, "f16"), scalar(1024, "f16"), scalar(1.0/1024, "f16")
		split := func(x val) (val, val) { // Veltkamp: x = xh + xl, 5 significant bits each
			c := bin("mul", x, c65)
			xh := bin("sub", c, bin("sub", c, x))
			return xh, bin("sub", x, xh)
		}
		twoProd := func(x, y val) (val, val) { // Dekker: x·y = p + e exactly
			p := bin("mul", x, y)
			xh, xl := split(x)
			yh, yl := split(y)
			e := bin("add", bin("add", bin("sub", bin("mul", xh, yh), p), bin("mul", xh, yl)), bin("mul", xl, yh))
			return p, bin("add", e, bin("mul", xl, yl))
		}
		twoSum := func(x, y val) (val, val) { // Knuth: x + y = s + e exactly
			s := bin("add", x, y)
			bb := bin("sub", s, x)
			return s, bin("add", bin("sub", x, bin("sub", s, bb)), bin("sub", y, bb))
		}
		p, pe := twoProd(hi, g)                      // hi·g
		lod := bin("mul", lo, g)                     // 2^10 · (error · g)
		sdLo := bin("add", pe, bin("mul", lod, isc)) // Sd = p + sdLo
		var upd, err val                             // the update and, for "full", its error
		if form == "comp" {
			kv := bin("add", sum(bin("mul", p, k), 1), sum(bin("mul", sdLo, k), 1))
			u := bin("mul", bin("sub", v, kv), beta)
			upd = bin("mul", k, u)
		} else {
			// The update with its own errors carried: each product and
			// difference of the read and the update is error-free.
			pr, pre := twoProd(p, k)
			kvHi, kvLo := sum(pr, 1), sum(bin("add", pre, bin("mul", sdLo, k)), 1)
			d, de := twoSum(v, bin("mul", kvHi, scalar(-1, "f16")))
			de = bin("sub", de, kvLo)
			u, ue := twoProd(d, beta)
			ue = bin("add", ue, bin("mul", de, beta))
			var upe val
			upd, upe = twoProd(k, u)
			err = bin("add", upe, bin("mul", k, ue))
		}
		s, se := twoSum(p, upd)
		errs := bin("add", pe, se)
		if form == "full" {
			errs = bin("add", errs, err)
		}
		lo2 := bin("add", lod, bin("mul", errs, sc))
		l := bin("mul", lo2, isc)
		hi2 := bin("add", s, l) // Fast2Sum: |s| ≥ |l|
		e := bin("sub", l, bin("sub", hi2, s))
		o := bin("add", sum(bin("mul", hi2, q), 1), sum(bin("mul", e, q), 1))
		outs = []val{hi2, bin("mul", e, sc), o}
	} else {
		S := arg("S", st, H, DK, DV)
		ins = append(ins, S.name+": "+S.t+` {coreai.name = "S"}`)
		cq, ck, cv, cb, cg := q, k, v, beta, g
		if st == "f32" {
			cq, ck, cv, cb, cg = cast(q, "f32"), cast(k, "f32"), cast(v, "f32"), cast(beta, "f32"), cast(g, "f32")
		}
		sd := bin("mul", S, cg)
		kv := sum(bin("mul", sd, ck), 1)
		u := bin("mul", bin("sub", cv, kv), cb)
		s2 := bin("add", sd, bin("mul", ck, u))
		o := sum(bin("mul", s2, cq), 1)
		if st == "f32" {
			o = cast(o, "f16")
		}
		outs = []val{s2, o}
	}
	for _, a := range []val{q, k, v, beta, g} {
		ins = append(ins, a.name+": "+a.t+` {coreai.name = "`+a.name[1:]+`"}`)
	}
	var ot, on, ots []string
	for i, o := range outs {
		ot = append(ot, fmt.Sprintf(`%s {coreai.name = "out%d"}`, o.t, i))
		on = append(on, o.name)
		ots = append(ots, o.t)
	}
	return "module {\n  coreai.graph @main(" + strings.Join(ins, ", ") + ") -> (" + strings.Join(ot, ", ") + ") {\n" +
		b.String() + "    coreai.output " + strings.Join(on, ", ") + " : " + strings.Join(ots, ", ") + "\n  }\n}\n"
}

// countOps is the number of ops but constants in the graph text.
func countOps(src string) int {
	return strings.Count(src, " = ") - strings.Count(src, "coreai.constant")
}

func TestCompensatedStateDrift(t *testing.T) {
	const H, DK, DV, L = 2, 8, 8, 256 // tiny arm A's recurrence (2 heads of 8×8) over its 256-position context
	rng := rand.New(rand.NewPCG(29, 5))
	half := func(x float64) float32 { return f16.ToFloat32(f16.FromFloat64(x)) }
	// Inputs, rounded to f16 once (the recurrence's f16 operands): unit q
	// and k, v ~ N(0, 1), β = sigmoid(N(0, 1)), and trained-like decays
	// g = exp(−A·dt), dt log-uniform in [0.001, 0.1], A in [1, 16] (issue 29).
	unit := func() []float32 {
		x := make([]float64, DK)
		var s float64
		for i := range x {
			x[i] = rng.NormFloat64()
			s += x[i] * x[i]
		}
		out := make([]float32, DK)
		for i := range x {
			out[i] = half(x[i] / math.Sqrt(s))
		}
		return out
	}
	decay := make([]float32, H)
	for h := range decay {
		dt := math.Exp(math.Log(0.001) + rng.Float64()*(math.Log(0.1)-math.Log(0.001)))
		A := math.Exp(rng.Float64() * math.Log(16))
		decay[h] = half(math.Exp(-A * dt))
	}
	type step struct{ q, k, v, beta, g *Tensor }
	steps := make([]step, L)
	for s := range steps {
		var q, k, v, beta []float32
		for range H {
			q, k = append(q, unit()...), append(k, unit()...)
			for range DV {
				v = append(v, half(rng.NormFloat64()))
			}
			beta = append(beta, half(1/(1+math.Exp(-rng.NormFloat64()))))
		}
		steps[s] = step{NewFloat(F16, []int{H, DK, 1}, q), NewFloat(F16, []int{H, DK, 1}, k), NewFloat(F16, []int{H, 1, DV}, v),
			NewFloat(F16, []int{H, 1, 1}, beta), NewFloat(F16, []int{H, 1, 1}, decay)}
	}
	relRMS := func(got, ref []float64) float64 {
		var num, den float64
		for i := range ref {
			num += (got[i] - ref[i]) * (got[i] - ref[i])
			den += ref[i] * ref[i]
		}
		return math.Sqrt(num / den)
	}
	wide := func(ts ...*Tensor) []float64 { // hi + lo/2^10, or the one state
		out := make([]float64, ts[0].Len())
		for i, x := range ts[0].Floats() {
			out[i] = float64(x)
			if len(ts) > 1 {
				out[i] += float64(ts[1].Floats()[i]) / 1024
			}
		}
		return out
	}
	for _, profile := range []string{"ieee", "ane"} {
		t.Run(profile, func(t *testing.T) {
			opts := Options{}
			if profile == "ane" {
				opts.ANE = &ANE{}
			}
			run := map[string]*Interp{}
			srcs := map[string]string{}
			for _, form := range []string{"f32", "f16", "comp", "full"} {
				srcs[form] = ssmGraph(form, H, DK, DV)
				m, _, err := mlirtext.Parse(form+".mlir", srcs[form])
				if err != nil {
					t.Fatalf("%s: %v\n%s", form, err, srcs[form])
				}
				if err := graph.Verify(m); err != nil {
					t.Fatal(err)
				}
				run[form] = New(m, opts)
				defer run[form].Close()
			}
			S32, S16 := Zeros(F32, []int{H, DK, DV}), Zeros(F16, []int{H, DK, DV})
			hi, lo := Zeros(F16, []int{H, DK, DV}), Zeros(F16, []int{H, DK, DV})
			fhi, flo := hi, lo
			var curve []string
			var d16, dc, df float64
			for s, in := range steps {
				x := []*Tensor{in.q, in.k, in.v, in.beta, in.g}
				r32, err := run["f32"].Run("main", append([]*Tensor{S32}, x...))
				if err != nil {
					t.Fatal(err)
				}
				r16, err := run["f16"].Run("main", append([]*Tensor{S16}, x...))
				if err != nil {
					t.Fatal(err)
				}
				rc, err := run["comp"].Run("main", append([]*Tensor{hi, lo}, x...))
				if err != nil {
					t.Fatal(err)
				}
				rf, err := run["full"].Run("main", append([]*Tensor{fhi, flo}, x...))
				if err != nil {
					t.Fatal(err)
				}
				S32, S16, hi, lo, fhi, flo = r32[0], r16[0], rc[0], rc[1], rf[0], rf[1]
				ref := wide(S32)
				d16, dc, df = relRMS(wide(S16), ref), relRMS(wide(hi, lo), ref), relRMS(wide(fhi, flo), ref)
				if (s+1)%32 == 0 {
					curve = append(curve, fmt.Sprintf("%d: %.2e / %.2e / %.2e", s+1, d16, dc, df))
				}
			}
			t.Logf("state drift against the fp32 state, relative RMS (plain fp16 / compensated accumulation / compensated update too), teacher-forced, decays %v:\n  %s",
				decay, strings.Join(curve, "\n  "))
			t.Logf("cost per step: fp32 island %d ops, plain fp16 %d ops, compensated %d / %d f16 ops; state bytes: fp32 %d, fp16 %d, compensated %d",
				countOps(srcs["f32"]), countOps(srcs["f16"]), countOps(srcs["comp"]), countOps(srcs["full"]), 4*H*DK*DV, 2*H*DK*DV, 4*H*DK*DV)
			// The compensation works (it removes the accumulation's own
			// rounding; "full" also the update's products and differences)
			// but the reductions (the read kv = Σ S·k) still round to fp16
			// once each, and an error-free sum over DK would be an unrolled
			// TwoSum chain (DK−1 of 6 ops each), so the state stays far from
			// fp32's (near fp32 would be a drift of order 1e-6): the reason
			// no pass is landed. Revisit if a bound fails.
			if dc >= 0.75*d16 {
				t.Errorf("compensated drift %.3g is not below 0.75 × plain fp16's %.3g: the error-free updates do not work", dc, d16)
			}
			if df >= dc {
				t.Errorf("compensating the update too gives %.3g, not below the accumulation alone's %.3g", df, dc)
			}
			if dc < d16/10 || df < 1e-6 {
				t.Errorf("compensated drifts %.3g / %.3g against plain fp16's %.3g: near fp32 now; the measurement that kept the pass out no longer holds", dc, df, d16)
			}
		})
	}
}
