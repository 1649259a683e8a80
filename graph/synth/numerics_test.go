package synth

import (
	"math"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/interp"
)

// inputs builds zero inputs for graph g, then lets set fill some by name.
func inputs(t *testing.T, g *graph.Graph, set map[string]func(*interp.Tensor)) []*interp.Tensor {
	t.Helper()
	args := make([]*interp.Tensor, 0, len(g.Inputs()))
	for _, p := range g.Inputs() {
		tt, _ := graph.AsTensor(p.Type)
		el, err := interp.ElemOf(tt.Elem)
		if err != nil {
			t.Fatal(err)
		}
		shape := make([]int, len(tt.Shape))
		for k, d := range tt.Shape {
			shape[k] = int(d)
		}
		x := interp.Zeros(el, shape)
		if f := set[p.Name]; f != nil {
			f(x)
		}
		args = append(args, x)
	}
	return args
}

// realistic runs graph name and checks the weights' scales are realistic:
// every value the graph computes is finite (no fp16 overflow), and
// the first output (logits) has a sane spread. It returns that spread.
func realistic(t *testing.T, m *graph.Module, name string, args []*interp.Tensor) float64 {
	t.Helper()
	bad := 0
	ip := interp.New(m, interp.Options{Observe: func(op *graph.Operation, res []*interp.Tensor) {
		for _, r := range res {
			if r == nil || !r.Elem.IsFloat() {
				continue
			}
			for _, v := range r.Floats() {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					if bad < 5 {
						t.Errorf("@%s: %s produced %v", name, op.Describe(), v)
					}
					bad++
					break
				}
			}
		}
	}})
	defer ip.Close()
	outs, err := ip.Run(name, args)
	if err != nil {
		t.Fatal(err)
	}
	var lg []float32
	for k, p := range m.Graph(name).Outputs() {
		if !p.IsState {
			lg = outs[k].Floats()
			break
		}
	}
	var s, s2 float64
	for _, v := range lg {
		s += float64(v)
		s2 += float64(v) * float64(v)
	}
	n := float64(len(lg))
	return math.Sqrt(s2/n - (s/n)*(s/n))
}

// The weights are realistic enough for the numerics work: a decode step of
// tiny arm A with two full-attention layers, and arm E's extend, stay
// finite in fp16 everywhere and give logits with a spread like a trained
// model's (neither collapsed nor exploding).
func TestRealisticScales(t *testing.T) {
	m := gen(t, Options{Arm: ArmA, Layers: 8, Ctx: 16})
	args := inputs(t, m.Graph("main"), map[string]func(*interp.Tensor){
		"input_ids": func(x *interp.Tensor) { x.I[0] = 17 },
		"causal_mask": func(x *interp.Tensor) {
			for j := 1; j < len(x.F); j++ {
				x.F[j] = -65504
			}
		},
	})
	sd := realistic(t, m, "main", args)
	t.Logf("arm A logits std %.4f", sd)
	if sd < 0.05 || sd > 20 {
		t.Errorf("arm A logits std %.4f, want 0.05..20", sd)
	}

	e := gen(t, Options{Arm: ArmE, Ctx: 256})
	table := newBlob(1, "table", normal(0.02), int64(qwen3Tiny.Vocab), 1, int64(qwen3Tiny.Hidden))
	eargs := inputs(t, e.Graph("extend_256_8"), map[string]func(*interp.Tensor){
		"transformer_input": func(x *interp.Tensor) {
			for i := range x.F {
				x.F[i] = float32(0.02 * math.Sin(float64(i)))
			}
		},
		"position_ids": func(x *interp.Tensor) {
			for i := range x.I {
				x.I[i] = int64(i)
			}
		},
		"causal_mask": func(x *interp.Tensor) { // [1, 256, 1, 8]: query q sees keys 0..q
			for k := 0; k < 256; k++ {
				for q := 0; q < 8; q++ {
					if k > q {
						x.F[k*8+q] = -65504
					}
				}
			}
		},
		"embedding_table": func(x *interp.Tensor) {
			for i := range x.F {
				x.F[i] = float32(f16bits(table.Elem(int64(i))))
			}
		},
	})
	sd = realistic(t, e, "extend_256_8", eargs)
	t.Logf("arm E logits std %.4f", sd)
	if sd < 0.01 || sd > 20 {
		t.Errorf("arm E logits std %.4f, want 0.01..20", sd)
	}
}

func f16bits(h uint16) float64 { return f16.ToFloat64(h) }
