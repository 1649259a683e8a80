package compare

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/synth"
)

// lm builds a tiny recurrent "language model" in coreai ops:
//
//	h     = tanh(E[input_ids] + state · 0.9)        (compute type ct)
//	logits = h · Wᵀ  ([1, V]),   new state = h
//
// with the state as a buffer_mutation state (asState) or as a plain
// input/output pair "state" → "new_state". flip negates the logits.
func lm(t *testing.T, ct graph.Type, asState, flip bool) *graph.Module {
	t.Helper()
	const V, H = 16, 8
	m := graph.NewModule()
	raw := func(key string, n int, scale float64, seed int) {
		b := make([]byte, 2*n)
		for i := 0; i < n; i++ {
			v := math.Sin(float64(i*7+seed)) * scale
			binary.LittleEndian.PutUint16(b[2*i:], f16.FromFloat64(v))
		}
		m.AddResource(key, 2, graph.MemBlob(b))
	}
	raw("emb", V*H, 1.5, 1)
	raw("out", V*H, 1.0, 2)
	f16t := func(s ...int64) *graph.TensorType { return graph.Tensor(graph.F16, s...) }
	stIn := graph.Dict(graph.NamedAttr{Name: graph.AttrName, Value: graph.Str("state")})
	if asState {
		stIn = stIn.With(graph.AttrBufMutation, graph.Str("state"))
	}
	ins := []graph.Type{graph.Tensor(graph.SI32, 1, 1), f16t(1, H)}
	op := graph.NewOp("coreai.graph", nil, nil, nil, graph.Unknown)
	blk := op.AddRegion().AddBlock(ins, nil)
	m.Body().Append(op)
	emit := func(name string, ops []*graph.Value, res graph.Type, attrs ...graph.NamedAttr) *graph.Value {
		var d *graph.DictAttr
		if len(attrs) > 0 {
			d = graph.Dict(attrs...)
		}
		var rt []graph.Type
		if res != nil {
			rt = []graph.Type{res}
		}
		o := graph.NewOp(name, ops, rt, d, graph.Unknown)
		blk.Append(o)
		if res == nil {
			return nil
		}
		return o.Result(0)
	}
	konst := func(a graph.Attr, tt *graph.TensorType) *graph.Value {
		return emit("coreai.constant", nil, tt, graph.NamedAttr{Name: "value", Value: a})
	}
	ui32 := func(vals ...int64) *graph.Value {
		b := make([]byte, 4*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		}
		tt := graph.Tensor(graph.UI32, int64(len(vals)))
		return konst(&graph.DenseElementsAttr{Type: tt, Raw: b}, tt)
	}
	scalar := func(v float64, el *graph.FloatType) *graph.Value {
		tt := graph.Tensor(el)
		b := make([]byte, graph.ElemBytes(el))
		if el.Name == "f32" {
			binary.LittleEndian.PutUint32(b, uint32(graph.FloatBits(v, "f32")))
		} else {
			binary.LittleEndian.PutUint16(b, uint16(graph.FloatBits(v, "f16")))
		}
		return konst(&graph.DenseElementsAttr{Type: tt, Raw: b}, tt)
	}
	ctt := func(s ...int64) *graph.TensorType { return graph.Tensor(ct, s...) }
	cf := ct.(*graph.FloatType)
	ids, st := blk.Arg(0), blk.Arg(1)
	E := konst(&graph.DenseResourceAttr{Key: "emb", Type: f16t(V, H)}, f16t(V, H))
	W := konst(&graph.DenseResourceAttr{Key: "out", Type: f16t(V, H)}, f16t(V, H))
	idx := emit("coreai.reshape", []*graph.Value{ids, ui32(1, 1)}, graph.Tensor(graph.SI32, 1, 1))
	x := emit("coreai.gather_nd", []*graph.Value{E, idx}, f16t(1, H))
	xc, sc := x, st
	if cf.Name != "f16" {
		xc = emit("coreai.cast", []*graph.Value{x}, ctt(1, H))
		sc = emit("coreai.cast", []*graph.Value{st}, ctt(1, H))
	}
	s9 := emit("coreai.decomposable.broadcasting_mul", []*graph.Value{sc, scalar(0.9, cf)}, ctt(1, H))
	h := emit("coreai.tanh", []*graph.Value{emit("coreai.decomposable.broadcasting_add", []*graph.Value{xc, s9}, ctt(1, H))}, ctt(1, H))
	if cf.Name != "f16" {
		h = emit("coreai.cast", []*graph.Value{h}, f16t(1, H))
	}
	wt := emit("coreai.transpose", []*graph.Value{W, ui32(1, 0)}, f16t(H, V))
	lg := emit("coreai.decomposable.broadcasting_batch_matmul", []*graph.Value{h, wt}, f16t(1, V))
	if flip {
		lg = emit("coreai.decomposable.broadcasting_mul", []*graph.Value{lg, scalar(-1, graph.F16)}, f16t(1, V))
	}
	emit("coreai.output", []*graph.Value{lg, h}, nil)
	outName := "new_state"
	if asState {
		outName = "state"
	}
	op.Attrs = graph.Dict(
		graph.NamedAttr{Name: graph.AttrSymName, Value: graph.Str("main")},
		graph.NamedAttr{Name: graph.AttrFunctionType, Value: &graph.TypeAttr{Type: &graph.FunctionType{Inputs: ins, Results: []graph.Type{f16t(1, V), f16t(1, H)}}}},
		graph.NamedAttr{Name: graph.AttrArgAttrs, Value: &graph.ArrayAttr{Elems: []graph.Attr{
			graph.Dict(graph.NamedAttr{Name: graph.AttrName, Value: graph.Str("input_ids")}), stIn}}},
		graph.NamedAttr{Name: graph.AttrResAttrs, Value: &graph.ArrayAttr{Elems: []graph.Attr{
			graph.Dict(graph.NamedAttr{Name: graph.AttrName, Value: graph.Str("logits")}),
			graph.Dict(graph.NamedAttr{Name: graph.AttrName, Value: graph.Str(outName)})}}},
	)
	if err := graph.Verify(m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestIdenticalGraphs(t *testing.T) {
	for _, asState := range []bool{true, false} {
		r, err := Compare(lm(t, graph.F16, asState, false), lm(t, graph.F16, asState, false), Options{Steps: 24, Prompt: []int64{1, 2, 3}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Agree != 24 || r.N != 24 || !r.Identical || r.FirstDivergence != -1 || !math.IsInf(r.PSNR, 1) {
			t.Errorf("asState=%v: %d/%d identical=%v first=%d psnr=%v", asState, r.Agree, r.N, r.Identical, r.FirstDivergence, r.PSNR)
		}
		if len(r.States) != 1 || r.States[0].Name != "state" || !r.States[0].Identical {
			t.Errorf("asState=%v: states %+v", asState, r.States)
		}
		if len(r.Steps) != 26 || !r.Steps[0].Prompt || r.Steps[2].Prompt {
			t.Errorf("expected 2 prompt steps then 24 generated, got %d steps", len(r.Steps))
		}
	}
}

// Plain state I/O in the reference, a buffer_mutation state in the
// candidate (what promote-states does): the same numbers.
func TestPromotedStateMatches(t *testing.T) {
	r, err := Compare(lm(t, graph.F16, false, false), lm(t, graph.F16, true, false), Options{Steps: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Identical || r.Agree != 8 {
		t.Errorf("promoted state changed results: %+v", r)
	}
}

// f32 compute against f16 compute: drift is measured, not assumed away.
func TestPrecisionDriftMeasured(t *testing.T) {
	r, err := Compare(lm(t, graph.F32, true, false), lm(t, graph.F16, true, false), Options{Steps: 24, Prompt: []int64{3}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Identical {
		t.Error("f32 and f16 compute reported bit-identical")
	}
	if math.IsInf(r.PSNR, 1) || r.States[0].MaxAbs == 0 {
		t.Errorf("no drift measured: psnr %v, state %+v", r.PSNR, r.States[0])
	}
	t.Logf("tiny recurrent LM, f32 vs f16 compute: top-1 agreement %d/%d, PSNR %.1f dB, state max|Δ| %.3g", r.Agree, r.N, r.PSNR, r.States[0].MaxAbs)
}

func TestDisagreementDetected(t *testing.T) {
	r, err := Compare(lm(t, graph.F16, true, false), lm(t, graph.F16, true, true), Options{Steps: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Agree == r.N || r.FirstDivergence != 0 {
		t.Errorf("negated logits not detected: %d/%d first %d", r.Agree, r.N, r.FirstDivergence)
	}
	// Same token in, negated logits out: cosine -1 at the first step (later
	// steps feed each side its own, now different, tokens).
	if c := r.Steps[0].Cosine; c > -0.9999 {
		t.Errorf("step 0: cosine %v, want -1 for negated logits", c)
	}
}

func TestMismatchedInputsError(t *testing.T) {
	a := lm(t, graph.F16, true, false)
	b := lm(t, graph.F16, true, false)
	b.Graph("main").SetInputAttr(0, graph.AttrName, graph.Str("tokens_renamed"))
	if _, err := Compare(a, b, Options{Steps: 1}); err == nil {
		t.Error("renamed input accepted")
	}
	if _, err := Compare(a, b, Options{Steps: 1, Function: "nope"}); err == nil {
		t.Error("missing function accepted")
	}
}

// synth's arm A and arm B are the same computation with conv/rec as plain
// I/O vs states: verify must match the states by name and report identity.
func TestSynthArmAvsB(t *testing.T) {
	a, err := synth.Generate(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatalf("synth: %v", err)
	}
	b, err := synth.Generate(synth.Options{Arm: synth.ArmB})
	if err != nil {
		t.Fatalf("synth: %v", err)
	}
	steps := 24
	if testing.Short() {
		steps = 4
	}
	r, err := Compare(a, b, Options{Steps: steps, Prompt: []int64{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Identical || r.Agree != steps {
		t.Errorf("arm A vs B: %d/%d identical=%v states=%+v", r.Agree, r.N, r.Identical, r.States)
	}
	if len(r.States) != 4 {
		t.Errorf("want 4 states (key/value cache, conv, rec), got %+v", r.States)
	}
	t.Logf("synth tiny arm A vs arm B: top-1 agreement %d/%d, identical %v; inputs %+v", r.Agree, r.N, r.Identical, r.Inputs)
}

// Arm E's static functions take embeddings and q > 1 positions; verify
// feeds them and the run is reproducible.
func TestSynthArmEFunctions(t *testing.T) {
	m, err := synth.Generate(synth.Options{Arm: synth.ArmE})
	if err != nil {
		t.Fatalf("synth: %v", err)
	}
	for _, fn := range []string{"gather_embeddings_64", "extend_256_8", "prompt_opt_256_16"} {
		if m.Graph(fn) == nil {
			t.Errorf("arm E has no @%s", fn)
			continue
		}
		r, err := Compare(m, m, Options{Steps: 2, Function: fn})
		if err != nil {
			t.Fatalf("@%s: %v", fn, err)
		}
		if !r.Identical || r.Agree != 2 {
			t.Errorf("@%s vs itself: %d/%d identical=%v", fn, r.Agree, r.N, r.Identical)
		}
		roles := map[string]string{}
		for _, in := range r.Inputs {
			roles[in.Name] = in.Role
		}
		t.Logf("@%s inputs: %v", fn, roles)
		if fn == "gather_embeddings_64" && roles["in_new_token_ids"] != "token" {
			t.Errorf("in_new_token_ids fed as %q, want token", roles["in_new_token_ids"])
		}
	}
}
