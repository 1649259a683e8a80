package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
)

// Ops run in an operand's buffer (inPlace) give the bits of the same ops
// run into fresh tensors (Observe turns inPlace off), over the synth arms'
// graphs with random inputs, run twice; and the caller's tensors are never
// written.
func TestInPlaceSameBits(t *testing.T) {
	for _, o := range []synth.Options{
		{Arm: synth.ArmA},
		{Arm: synth.ArmA, Recurrence: synth.RecurrenceComposite},
		{Arm: synth.ArmA, StateRead: synth.StateReadMatmul},
		{Arm: synth.ArmB, StateForm: synth.StateHandle},
		{Arm: synth.ArmE},
	} {
		name := string(rune(o.Arm)) + o.Recurrence + o.StateRead + o.StateForm
		t.Run(name, func(t *testing.T) {
			m, err := synth.Generate(o)
			if err != nil {
				t.Fatal(err)
			}
			g := m.Graph("main")
			if g == nil {
				g = m.Graphs()[0]
			}
			r := rand.New(rand.NewPCG(3, uint64(o.Arm)))
			var args []*Tensor
			for _, p := range g.Inputs() {
				tt, ok := graph.AsTensor(p.Type)
				if !ok {
					t.Fatalf("input %s is not a tensor (every arm listed here has tensor inputs)", p.Name)
				}
				el, err := ElemOf(tt.Elem)
				if err != nil {
					t.Fatal(err)
				}
				shape := make([]int, len(tt.Shape))
				for k, d := range tt.Shape {
					shape[k] = int(d)
				}
				a := Zeros(el, shape)
				for k := range a.F {
					a.F[k] = el.round(float32(r.NormFloat64()))
				}
				args = append(args, a)
			}
			snapshot := func() [][]uint32 {
				var out [][]uint32
				for _, a := range args {
					out = append(out, bitsOf(a))
				}
				return out
			}
			before := snapshot()
			fast := New(m, Options{})
			defer fast.Close()
			plain := New(m, Options{Observe: func(*graph.Operation, []*Tensor) {}})
			defer plain.Close()
			for run := range 2 {
				got, err := fast.Run(g.Name(), args)
				if err != nil {
					t.Fatal(err)
				}
				want, err := plain.Run(g.Name(), args)
				if err != nil {
					t.Fatal(err)
				}
				for k := range want {
					if w, gt := bitsOf(want[k]), bitsOf(got[k]); !slices.Equal(w, gt) {
						t.Fatalf("run %d, output %d: in place differs from fresh tensors", run, k)
					}
				}
				for k, b := range snapshot() {
					if !slices.Equal(b, before[k]) {
						t.Fatalf("run %d: argument %d was written", run, k)
					}
				}
			}
			if fast.inPlaced == 0 {
				t.Error("no op ran in place: the case proves nothing")
			}
			if plain.inPlaced != 0 {
				t.Errorf("%d ops ran in place with Observe set", plain.inPlaced)
			}
			t.Logf("%d ops in place over two runs", fast.inPlaced)
		})
	}
}

// bitsOf is a tensor's elements as bits (floats) or truncated integers.
func bitsOf(t *Tensor) []uint32 {
	if t.Elem.IsFloat() {
		f := t.Floats()
		out := make([]uint32, len(f))
		for i, v := range f {
			out[i] = math.Float32bits(v)
		}
		return out
	}
	out := make([]uint32, len(t.I))
	for i, v := range t.I {
		out[i] = uint32(v)
	}
	return out
}
