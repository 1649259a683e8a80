package interp

import (
	"math"
	"testing"

	"github.com/anefix/anefix/graph/synth"
)

// The interpreter runs every op the tiny arm A uses and decodes a few
// tokens; repeated runs are bit-identical.
func TestSynthArmA(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Scale: synth.Tiny})
	if err != nil {
		t.Fatalf("synth: %v", err)
	}
	run := func() [][]float32 {
		in := New(m, Options{})
		defer in.Close()
		g := m.Graph("main")
		ports := g.Inputs()
		args := make([]*Tensor, len(ports))
		for i, p := range ports {
			args[i] = zerosOf(t, p.Type)
		}
		var logits [][]float32
		tok := int64(1)
		for step := 0; step < 4; step++ {
			args[0].I[0], args[1].I[0], args[2].I[0] = tok, int64(step), int64(step)
			mask := args[3].F
			for j := range mask {
				mask[j] = 0
				if j > step {
					mask[j] = -65504
				}
			}
			outs, err := in.Run("main", args)
			if err != nil {
				t.Fatal(err)
			}
			outPorts := g.Outputs()
			var lg []float32
			for k, p := range outPorts {
				switch p.Name {
				case "logits":
					lg = outs[k].Floats()
				case "key_cache":
					args[4] = outs[k]
				case "value_cache":
					args[5] = outs[k]
				case "new_conv_state":
					args[6] = outs[k]
				case "new_rec_state":
					args[7] = outs[k]
				}
			}
			best := 0
			for j, v := range lg {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("step %d: logit %d is %v", step, j, v)
				}
				if v > lg[best] {
					best = j
				}
			}
			tok = int64(best)
			logits = append(logits, append([]float32(nil), lg...))
		}
		return logits
	}
	a, b := run(), run()
	for s := range a {
		for j := range a[s] {
			if math.Float32bits(a[s][j]) != math.Float32bits(b[s][j]) {
				t.Fatalf("step %d logit %d differs between runs", s, j)
			}
		}
	}
}

// A transposed raw weight is used in place by matmul and gives the same
// result as the materialized transpose.
func TestLazyTransposeMatMul(t *testing.T) {
	raw := make([]byte, 2*6*5)
	for i := range raw {
		raw[i] = byte(i*37 + 11)
	}
	for i := 1; i < len(raw); i += 2 {
		raw[i] &= 0x3b // keep finite, moderate halves
	}
	w := &Tensor{Elem: F16, Shape: []int{6, 5}, raw: raw, rawEl: F16}
	wt, err := transpose(w, []int64{1, 0})
	if err != nil || !wt.rawT {
		t.Fatalf("lazy transpose: %v", err)
	}
	x := FromF32(F16, []int{2, 6}, []float32{1, -2, 0.5, 3, 0.25, -1, 2, 2, 2, -0.5, 1, 0})
	dense := &Tensor{Elem: F16, Shape: []int{6, 5}, raw: append([]byte(nil), raw...), rawEl: F16}
	dt, _ := transpose(dense, []int64{1, 0})
	dt.Floats() // materialize
	// wᵀ [5,6] as the left operand of [5,6]·[6,2].
	xt, _ := transpose(x, []int64{1, 0})
	got, err := MatMul(wt, xt, false, false, F16, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := MatMul(dt, xt, false, false, F16, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.F {
		if got.F[i] != want.F[i] {
			t.Fatalf("elem %d: lazy %v, materialized %v", i, got.F[i], want.F[i])
		}
	}
	// As the right operand: x [2,6] · (wᵀ)ᵀ, a double lazy transpose.
	wtt, _ := transpose(wt, []int64{1, 0})
	g2, err := MatMul(x, wtt, false, false, F16, false)
	if err != nil {
		t.Fatal(err)
	}
	w2 := &Tensor{Elem: F16, Shape: []int{6, 5}, raw: append([]byte(nil), raw...), rawEl: F16}
	w2.Floats()
	e2, _ := MatMul(x, w2, false, false, F16, false)
	for i := range e2.F {
		if g2.F[i] != e2.F[i] {
			t.Fatalf("right operand elem %d: %v vs %v", i, g2.F[i], e2.F[i])
		}
	}
	// Reshape and gather of a lazily transposed weight see the transposed data.
	r, _ := Reshape(wt, []int{30})
	for i := 0; i < 5; i++ {
		for j := 0; j < 6; j++ {
			if r.F[i*6+j] != dt.F[i*6+j] {
				t.Fatalf("reshape of lazy transpose wrong at %d,%d", i, j)
			}
		}
	}
}
