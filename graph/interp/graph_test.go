package interp

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
)

// gb builds small coreai graphs for tests, spelling ops the way graph/synth
// does (constant operands for axes/shapes, decomposable.broadcasting_*).
type gb struct {
	m   *graph.Module
	blk *graph.Block
	op  *graph.Operation
}

func newGB(name string, ins ...graph.Type) (*gb, []*graph.Value) {
	m := graph.NewModule()
	b := &gb{m: m}
	return b, b.graph(name, ins...)
}

func (b *gb) graph(name string, ins ...graph.Type) []*graph.Value {
	gi := make([]graph.GraphInput, len(ins))
	for i, t := range ins {
		gi[i] = graph.GraphInput{Name: fmt.Sprintf("in%d", i), Type: t}
	}
	g := graph.NewGraph(b.m, name, "", gi...)
	b.blk, b.op = g.Body(), g.Op
	return b.blk.Args()
}

func (b *gb) emit(name string, ins []*graph.Value, res graph.Type, attrs ...graph.NamedAttr) *graph.Value {
	var rt []graph.Type
	if res != nil {
		rt = []graph.Type{res}
	}
	var d *graph.DictAttr
	if len(attrs) > 0 {
		d = graph.Dict(attrs...)
	}
	op := graph.NewOp(name, ins, rt, d, graph.Unknown)
	b.blk.Append(op)
	if res == nil {
		return nil
	}
	return op.Result(0)
}

func (b *gb) output(vs ...*graph.Value) {
	names := make([]string, len(vs))
	for i := range vs {
		names[i] = fmt.Sprintf("out%d", i)
	}
	(&graph.Graph{Op: b.op}).Return(vs, names)
}

func tt(v *graph.Value) *graph.TensorType { return v.Type().(*graph.TensorType) }

func (b *gb) ints(elem graph.Type, shape []int64, vals ...int64) *graph.Value {
	n := graph.ElemBytes(elem)
	raw := make([]byte, n*len(vals))
	for i, v := range vals {
		switch n {
		case 4:
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
		case 8:
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
		}
	}
	t := graph.Tensor(elem, shape...)
	return b.emit("coreai.constant", nil, t, graph.NamedAttr{Name: "value", Value: &graph.DenseElementsAttr{Type: t, Raw: raw}})
}

func (b *gb) si32(vals ...int64) *graph.Value {
	return b.ints(graph.SI32, []int64{int64(len(vals))}, vals...)
}

func (b *gb) bin(kind string, x, y *graph.Value, res graph.Type) *graph.Value {
	return b.emit("coreai.decomposable.broadcasting_"+kind, []*graph.Value{x, y}, res)
}

func (b *gb) reshape(x *graph.Value, shape ...int64) *graph.Value {
	s := b.ints(graph.UI32, []int64{int64(len(shape))}, shape...)
	return b.emit("coreai.reshape", []*graph.Value{x, s}, tt(x).WithShape(shape))
}

func (b *gb) matmul(x, y *graph.Value, shape ...int64) *graph.Value {
	return b.emit("coreai.decomposable.broadcasting_batch_matmul", []*graph.Value{x, y}, tt(x).WithShape(shape))
}

// gatedDeltaStep builds one step of the recurrence exactly as gen.py's
// gated_delta documents it: S [H,Dk,Dv], q,k [H,Dk], v [H,Dv], beta,g [H].
func gatedDeltaStep(elem graph.Type, H, Dk, Dv int64) *graph.Module {
	T := func(s ...int64) *graph.TensorType { return graph.Tensor(elem, s...) }
	b, a := newGB("step", T(H, Dk, Dv), T(H, Dk), T(H, Dk), T(H, Dv), T(H), T(H))
	S, q, k, v, beta, g := a[0], a[1], a[2], a[3], a[4], a[5]
	decay := b.emit("coreai.exp", []*graph.Value{g}, T(H))
	Sd := b.bin("mul", S, b.reshape(decay, H, 1, 1), T(H, Dk, Dv))
	u := b.reshape(b.matmul(b.reshape(k, H, 1, Dk), Sd, H, 1, Dv), H, Dv)
	delta := b.bin("mul", b.bin("sub", v, u, T(H, Dv)), b.reshape(beta, H, 1), T(H, Dv))
	outer := b.bin("mul", b.reshape(k, H, Dk, 1), b.reshape(delta, H, 1, Dv), T(H, Dk, Dv))
	S2 := b.bin("add", Sd, outer, T(H, Dk, Dv))
	o := b.reshape(b.matmul(b.reshape(q, H, 1, Dk), S2, H, 1, Dv), H, Dv)
	b.output(S2, o)
	return b.m
}

// The numpy gated-delta recurrence (64 steps, fp32 and fp16-only) against
// the interpreter running it as a coreai graph, the state fed back each
// step. Both are bit-identical: every op is either correctly rounded or a
// sequential float32 contraction in both implementations.
func TestGatedDeltaAgainstNumpy(t *testing.T) {
	f := loadVecs(t, "gated_delta.vec.gz")
	for _, dt := range []string{"f32", "f16"} {
		t.Run(dt, func(t *testing.T) {
			get := func(n string) *Tensor { return vecIn(t, f, "gated_delta/"+dt, n) }
			q, k, v, beta, g := get("q"), get("k"), get("v"), get("beta"), get("g")
			want, wantS := get("out"), get("state")
			Tn, H, Dk, Dv := q.Shape[0], q.Shape[1], q.Shape[2], v.Shape[2]
			el := q.Elem
			m := gatedDeltaStep(el.irType(), int64(H), int64(Dk), int64(Dv))
			if err := graph.Verify(m); err != nil {
				t.Fatal(err)
			}
			in := New(m, Options{})
			S := Zeros(el, []int{H, Dk, Dv})
			row := func(x *Tensor, t0 int) *Tensor {
				n := x.Len() / Tn
				return NewFloat(el, x.Shape[1:], x.Floats()[t0*n:(t0+1)*n])
			}
			outs := make([]float32, 0, want.Len())
			for step := 0; step < Tn; step++ {
				res, err := in.Run("step", []*Tensor{S, row(q, step), row(k, step), row(v, step), row(beta, step), row(g, step)})
				if err != nil {
					t.Fatal(err)
				}
				S = res[0]
				outs = append(outs, res[1].Floats()...)
			}
			got := NewFloat(el, want.Shape, outs)
			if w := compareTensors(t, "gated_delta/"+dt+"/out", got, want, 0); w == 0 {
				t.Logf("%s: %d steps, outputs and final state bit-identical to numpy", dt, Tn)
			}
			compareTensors(t, "gated_delta/"+dt+"/state", S, wantS, 0)
		})
	}
}

// The fp16-only recurrence drifts from the fp32 one; the size of the drift
// is measured here (not asserted away) so the figure is in the test log.
func TestGatedDeltaF16Drift(t *testing.T) {
	f := loadVecs(t, "gated_delta.vec.gz")
	o32, _ := f.Get("gated_delta/f32/out")
	o16, _ := f.Get("gated_delta/f16/out")
	a, b := fromVec(o32).Floats(), fromVec(o16).Floats()
	var maxd, num, den float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		maxd = math.Max(maxd, math.Abs(d))
		num += d * d
		den += float64(a[i]) * float64(a[i])
	}
	t.Logf("numpy fp16-only vs fp32 recurrence over 64 steps: max |Δo| = %.3g, relative RMS = %.3g", maxd, math.Sqrt(num/den))
	if maxd == 0 {
		t.Error("fp16 and fp32 recurrences are identical: the fp16 vectors are not fp16")
	}
}

// An op the interpreter does not know is an error naming it.
func TestUnknownOpError(t *testing.T) {
	b, a := newGB("main", graph.Tensor(graph.F32, 2))
	y := b.emit("coreai.frobnicate", []*graph.Value{a[0]}, graph.Tensor(graph.F32, 2))
	b.output(y)
	_, err := New(b.m, Options{}).Run("main", []*Tensor{Zeros(F32, []int{2})})
	if err == nil || !strings.Contains(err.Error(), "coreai.frobnicate") {
		t.Fatalf("error %v does not name the op", err)
	}
}

func TestInputChecks(t *testing.T) {
	b, a := newGB("main", graph.Tensor(graph.F16, 2))
	b.output(a[0])
	in := New(b.m, Options{})
	for _, c := range []struct {
		args []*Tensor
		want string
	}{
		{nil, "takes 1 inputs"},
		{[]*Tensor{Zeros(F32, []int{2})}, "element type"},
		{[]*Tensor{Zeros(F16, []int{3})}, "shape"},
	} {
		if _, err := in.Run("main", c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("args %v: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := in.Run("nope", nil); err == nil {
		t.Error("missing graph accepted")
	}
}

// Invoke runs a composite's body; dense_resource weights are read from the
// blob; the f16 matmul keeps the weight in place.
func TestInvokeAndResources(t *testing.T) {
	b, a := newGB("main", graph.Tensor(graph.F16, 1, 4))
	wraw := make([]byte, 2*4*3)
	wvals := []float64{0.5, -1, 2, 0.25, 1, 1, -3, 0.125, 4, 0, 1.5, -0.5}
	for i, v := range wvals {
		binary.LittleEndian.PutUint16(wraw[2*i:], f16.FromFloat64(v))
	}
	b.m.AddResource("w", 2, graph.MemBlob(wraw))
	wt := graph.Tensor(graph.F16, 4, 3)
	w := b.emit("coreai.constant", nil, wt, graph.NamedAttr{Name: "value", Value: &graph.DenseResourceAttr{Key: "w", Type: wt}})
	y := b.emit("coreai.invoke", []*graph.Value{a[0], w}, graph.Tensor(graph.F16, 1, 3),
		graph.NamedAttr{Name: "callee", Value: &graph.SymbolRefAttr{Root: "proj"}})
	b.output(y)
	main := b.op
	p := b.graph("proj", graph.Tensor(graph.F16, 1, 4), wt)
	r := b.matmul(p[0], p[1], 1, 3)
	r = b.emit("coreai.silu", []*graph.Value{r}, tt(r))
	b.output(r)
	_ = main
	if err := graph.Verify(b.m); err != nil {
		t.Fatal(err)
	}
	x := FromF32(F16, []int{1, 4}, []float32{1, 2, 3, 4})
	out, err := New(b.m, Options{}).Run("main", []*Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		var s float64
		for k := 0; k < 4; k++ {
			s += float64(x.F[k]) * wvals[k*3+j]
		}
		s = float64(f16.Round32(float32(s)))
		want := f16.ToFloat32(f16.FromFloat64(s / (1 + math.Exp(-s))))
		if out[0].F[j] != want {
			t.Errorf("out[%d] = %v, want %v", j, out[0].F[j], want)
		}
	}
	// A blob of the wrong size is a clear error.
	b.m.Resources[0].Blob = graph.MemBlob(wraw[:10])
	if _, err := New(b.m, Options{}).Run("main", []*Tensor{x}); err == nil || !strings.Contains(err.Error(), "dense_resource<w>") {
		t.Errorf("short blob: %v", err)
	}
}

// slice_update writes in place only into a buffer nothing else can see: an
// alias made by reshape, a graph input or a constant must stay intact.
func TestSliceUpdateInPlaceSafety(t *testing.T) {
	f4 := graph.Tensor(graph.F32, 4)
	b, a := newGB("main", f4, graph.Tensor(graph.F32, 1))
	zero := b.emit("coreai.constant", nil, f4, graph.NamedAttr{Name: "value", Value: &graph.DenseElementsAttr{Type: f4, Raw: make([]byte, 4), Splat: true}})
	t1 := b.bin("add", a[0], zero, f4) // owned
	alias := b.reshape(t1, 2, 2)       // shares t1's buffer
	u1 := b.emit("coreai.slice_update", []*graph.Value{t1, a[1], b.si32(1), b.si32(2), b.si32(1)}, f4)
	u2 := b.emit("coreai.slice_update", []*graph.Value{u1, a[1], b.si32(3), b.si32(4), b.si32(1)}, f4)   // u1 exclusive: in place
	u3 := b.emit("coreai.slice_update", []*graph.Value{a[0], a[1], b.si32(0), b.si32(1), b.si32(1)}, f4) // input: copy
	b.output(alias, u2, u3)
	if err := graph.Verify(b.m); err != nil {
		t.Fatal(err)
	}
	x := NewFloat(F32, []int{4}, []float32{1, 2, 3, 4})
	in := New(b.m, Options{})
	for run := 0; run < 2; run++ {
		out, err := in.Run("main", []*Tensor{x, NewFloat(F32, []int{1}, []float32{9})})
		if err != nil {
			t.Fatal(err)
		}
		want := [][]float32{{1, 2, 3, 4}, {1, 9, 3, 9}, {9, 2, 3, 4}}
		for k, w := range want {
			for i := range w {
				if out[k].F[i] != w[i] {
					t.Fatalf("run %d output %d = %v, want %v", run, k, out[k].F, w)
				}
			}
		}
		if x.F[0] != 1 || zero.DefiningOp() == nil {
			t.Fatal("input tensor was modified")
		}
	}
}

func TestObserve(t *testing.T) {
	b, a := newGB("main", graph.Tensor(graph.F16, 2))
	y := b.emit("coreai.exp", []*graph.Value{a[0]}, graph.Tensor(graph.F16, 2))
	b.output(y)
	var seen []string
	in := New(b.m, Options{Observe: func(op *graph.Operation, res []*Tensor) { seen = append(seen, op.Name) }})
	if _, err := in.Run("main", []*Tensor{FromF32(F16, []int{2}, []float32{12, 1})}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != "coreai.exp" {
		t.Errorf("observed %v", seen)
	}
}

// A malformed op (float select between integer operands) is an error that
// names the op, not a crash.
func TestMalformedOpIsError(t *testing.T) {
	i4 := graph.Tensor(graph.SI32, 4)
	b, a := newGB("main", graph.Tensor(graph.I1, 4), i4, i4)
	y := b.emit("coreai.decomposable.broadcasting_where", []*graph.Value{a[0], a[1], a[2]}, graph.Tensor(graph.F32, 4))
	b.output(y)
	_, err := New(b.m, Options{}).Run("main", []*Tensor{Zeros(Bool, []int{4}), Zeros(SI32, []int{4}), Zeros(SI32, []int{4})})
	if err == nil || !strings.Contains(err.Error(), "broadcasting_where") {
		t.Fatalf("got %v", err)
	}
}
