package interp

import (
	"errors"
	"math"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
)

// armADecoder feeds tiny synth arm A's @main one token stream: inputs by
// name, states carried from the outputs of the same name ("new_" prefix
// for the plain pairs).
type armADecoder struct {
	g    *graph.Graph
	args []*Tensor
}

func newArmADecoder(t testing.TB, g *graph.Graph) *armADecoder {
	t.Helper()
	d := &armADecoder{g: g}
	for _, p := range g.Inputs() {
		d.args = append(d.args, zerosOf(t, p.Type))
	}
	return d
}

// feed sets the inputs of position pos, token tok (fresh tensors, so that
// earlier inputs handed to a run are never changed).
func (d *armADecoder) feed(tok int64, pos int) []*Tensor {
	for i, p := range d.g.Inputs() {
		switch p.Name {
		case "input_ids":
			d.args[i] = NewInt(d.args[i].Elem, d.args[i].Shape, []int64{tok})
		case "position_ids", "in_step":
			d.args[i] = NewInt(d.args[i].Elem, d.args[i].Shape, []int64{int64(pos)})
		case "causal_mask":
			m := make([]float32, d.args[i].Len())
			for j := range m {
				if j > pos {
					m[j] = -65504
				}
			}
			d.args[i] = NewFloat(d.args[i].Elem, d.args[i].Shape, m)
		}
	}
	return d.args
}

// armALanes are token streams of tiny synth arm A's @main run together,
// one RunLanes per position.
type armALanes []*armADecoder

func newArmALanes(t testing.TB, g *graph.Graph, n int) armALanes {
	ls := make(armALanes, n)
	for l := range ls {
		ls[l] = newArmADecoder(t, g)
	}
	return ls
}

// step runs position pos of every lane, lane l with token tok(l), and
// carries each lane's states; it returns the outputs by lane.
func (ls armALanes) step(t testing.TB, in *Interp, pos int, tok func(l int) int64) [][]*Tensor {
	t.Helper()
	ins := make([][]*Tensor, len(ls))
	for l, d := range ls {
		ins[l] = d.feed(tok(l), pos)
	}
	outs, err := in.RunLanes("main", ins)
	if err != nil {
		t.Fatal(err)
	}
	for l, d := range ls {
		d.carry(t, outs[l])
	}
	return outs
}

// carry takes the new states from one run's outputs; it returns the logits.
func (d *armADecoder) carry(t testing.TB, outs []*Tensor) *Tensor {
	var logits *Tensor
	for k, o := range d.g.Outputs() {
		if o.Name == "logits" {
			logits = outs[k]
			continue
		}
		for i, p := range d.g.Inputs() {
			if p.Name == o.Name || "new_"+p.Name == o.Name {
				r, err := Reshape(outs[k], d.args[i].Shape)
				if err != nil {
					t.Fatal(err)
				}
				d.args[i] = r
			}
		}
	}
	return logits
}

// RunLanes gives every lane exactly what Run gives it alone (bit for bit,
// logits and states, under IEEE with either accumulator and under the ane
// profile), and reads each weight once per position for all lanes: with
// eight lanes matmul and conv read the same weight bytes as with one,
// where eight separate runs read eight times as many (the guard against a
// batch that is eight matrix–vector products).
func TestRunLanesMatchesRunAndReadsWeightsOnce(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Scale: synth.Tiny})
	if err != nil {
		t.Fatal(err)
	}
	g := m.Graph("main")
	const lanes, steps = 8, 5
	tok := func(l, pos int) int64 { return int64((l*37 + pos*11 + 1) % 256) }
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"ieee", Options{}},
		{"ieee-acc16", Options{AccumulateF16: true}},
		{"ane", Options{ANE: &ANE{Family: PreA16}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Alone: one interpreter per lane.
			var alone [][][]*Tensor // lane, step, outputs
			var oneLaneReads, oneLaneWidened int64
			for l := 0; l < lanes; l++ {
				in := New(m, tc.opts)
				d := newArmADecoder(t, g)
				var steps_ [][]*Tensor
				for pos := 0; pos < steps; pos++ {
					outs, err := in.Run("main", d.feed(tok(l, pos), pos))
					if err != nil {
						t.Fatal(err)
					}
					d.carry(t, outs)
					steps_ = append(steps_, outs)
				}
				if l == 0 {
					oneLaneReads, oneLaneWidened = in.WeightBytesRead(), in.weightElemsWidened()
				}
				alone = append(alone, steps_)
				in.Close()
			}
			in := New(m, tc.opts)
			defer in.Close()
			ls := newArmALanes(t, g, lanes)
			for pos := 0; pos < steps; pos++ {
				outs := ls.step(t, in, pos, func(l int) int64 { return tok(l, pos) })
				for l := range ls {
					for k, o := range outs[l] {
						want := alone[l][pos][k]
						if !sameBits(o, want) {
							t.Fatalf("lane %d position %d output %d (%s): differs from the lane run alone", l, pos, k, g.Outputs()[k].Name)
						}
					}
				}
			}
			// The batch may do at most 1.25× one lane's work on the
			// weights. Converting an f16 weight block to float32 is most of
			// a one-stream matrix–vector product; eight streams convert it
			// once (gemvHLanes), not once each.
			shared := func(what string, one, together int64, fault string) {
				if one == 0 {
					t.Fatalf("no %s counted for one lane: the count proves nothing", what)
				}
				t.Logf("%s over %d positions: one lane %d, %d lanes together %d (%.2f×)", what, steps, one, lanes, together, float64(together)/float64(one))
				if together > one*5/4 {
					t.Errorf("%d lanes: %d %s, %.2f× one lane's %d: %s", lanes, together, what, float64(together)/float64(one), one, fault)
				}
			}
			shared("weight bytes read", oneLaneReads, in.WeightBytesRead(), "the batch does not share its passes over the weights")
			shared("f16 weight elements widened", oneLaneWidened, in.weightElemsWidened(), "each lane converts the weights again")
		})
	}
}

func sameBits(a, b *Tensor) bool {
	if a.Elem != b.Elem || a.Len() != b.Len() {
		return false
	}
	if a.Elem.IsFloat() {
		af, bf := a.Floats(), b.Floats()
		for i := range af {
			if math.Float32bits(af[i]) != math.Float32bits(bf[i]) {
				return false
			}
		}
		return true
	}
	ai, bi := a.Ints(), b.Ints()
	for i := range ai {
		if ai[i] != bi[i] {
			return false
		}
	}
	return true
}

// The work bound of RunLanes is Run's, per lane: a bound a little above
// one step's work lets eight lanes run that step, and one below it stops
// them with a *workError.
func TestRunLanesWorkBoundPerLane(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Scale: synth.Tiny})
	if err != nil {
		t.Fatal(err)
	}
	g := m.Graph("main")
	one := New(m, Options{})
	defer one.Close()
	if _, err := one.Run("main", newArmADecoder(t, g).feed(1, 0)); err != nil {
		t.Fatal(err)
	}
	step := one.Work()
	for _, c := range []struct {
		bound int64
		ok    bool
	}{{step + step/2, true}, {step / 2, false}} {
		in := New(m, Options{MaxWork: c.bound})
		ins := make([][]*Tensor, 8)
		for l := range ins {
			ins[l] = newArmADecoder(t, g).feed(int64(l), 0)
		}
		_, err := in.RunLanes("main", ins)
		var we *workError
		if c.ok != (err == nil) || (!c.ok && !errors.As(err, &we)) {
			t.Errorf("bound %d (one step %d): 8 lanes gave %v", c.bound, step, err)
		}
		in.Close()
	}
}

// zerosOf is a zero tensor of a static tensor type: the input a test feeds
// when the values do not matter (or are filled in afterwards).
func zerosOf(t testing.TB, typ graph.Type) *Tensor {
	t.Helper()
	tt, ok := graph.AsTensor(typ)
	if !ok || !tt.IsStatic() {
		t.Fatalf("%s is not a static tensor", typ)
	}
	el, err := ElemOf(tt.Elem)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := ShapeOf(tt)
	if err != nil {
		t.Fatal(err)
	}
	return Zeros(el, shape)
}
