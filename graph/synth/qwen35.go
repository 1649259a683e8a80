package synth

import (
	"fmt"
	"math"

	"github.com/anefix/anefix/graph"
)

// Source lines of the stand-in community builder models/ios/qwen3_5_ios.py
// and of the recurrence it calls in models/macos/qwen3_5.py. Three are
// facts from the seed note (290, 199, the residual adds 330–333); the rest
// are invented but fixed, and other packages may rely on them (the arm-D
// pass finds the recurrence, RoPE and SDPA by these frames).
const (
	lineNorm       = 58  // RMSNorm.forward: 58..64
	lineGatedNorm  = 96  // RMSNormGated.forward: 96..103
	lineRotary     = 120 // rotary tables from position_ids: 120..125 (f32)
	lineApplyRope  = 140 // apply_rope: 140..147 (f32)
	lineAttn       = 160 // full attention: 160..179
	lineRopeQ      = 169 // attention calls apply_rope on q here
	lineRopeK      = 170 // … and on k here
	lineKVWrite    = 173 // attention writes the KV cache here
	lineSDPA       = 175 // attention calls the per-head SDPA here
	lineLinear     = 200 // gated delta net: 200..296
	lineRecState   = 287 // layer's slice of rec_state
	lineRecurrence = 290 // the call into _gated_delta_step (seed: cited)
	lineRecWrite   = 292 // rec_state write
	lineMLP        = 305 // MLP: 305..309
	lineAddLinMix  = 330 // residual add after a linear-attention mixer
	lineAddFullMix = 331 // residual add after a full-attention mixer
	lineAddLinMLP  = 332 // residual add after the MLP of a linear layer
	lineAddFullMLP = 333 // residual add after the MLP of a full layer
	lineLayerLoop  = 345 // model loop calling each layer
	lineModelCall  = 356 // ForCausalLM.forward calling the model
	// In models/macos/qwen3_5.py:
	lineStepCasts = 199 // the six f16→f32 casts of _gated_delta_step (seed: cited)
	lineStepBack  = 208 // o and the new state cast back to f16: 208, 209
)

// Exported file names the locations use, for passes and tests.
const (
	sourceIOS   = fileIOS
	sourceMacOS = fileMac
)

// hybrid builds arms A, B, C: the community iOS builder's single `main`.
type hybrid struct {
	kvAttn     // the builder, the KV caches, in_step and the mask
	d          hybridDims
	ctx        int
	states     bool // conv/rec as states (arm B)
	composite  bool // recurrence as a gated_delta_update composite
	matmulRead bool // read the state with matmuls (StateReadMatmul)
	conv, rec  *graph.Value
	cos, sin   *graph.Value
	pos        *graph.Value
	emb        *graph.Value
	linI, fulI int
	mv         *massive // massive activation channels (massive.go)
	fastGates  bool     // the pre-issue-29 gates (Options.NoTrainedGates)
}

func buildHybrid(m *graph.Module, o Options) error {
	d := o.hybridDims()
	if d.Layers < 1 {
		return fmt.Errorf("synth: need at least one layer")
	}
	h := &hybrid{kvAttn: kvAttn{builder: newBuilder(m, o.Seed, map[string]*blob{})}, d: d, ctx: o.Ctx, states: o.Arm == ArmB,
		composite: o.Recurrence == RecurrenceComposite, matmulRead: o.StateRead == StateReadMatmul,
		mv: planMassive(d, o.Seed, !o.NoMassiveActivations), fastGates: o.NoTrainedGates}
	nLin, nFull := d.Counts()
	kvC := int64(d.KVHeads * d.HeadDim)
	ctx := int64(o.Ctx)
	f16 := graph.F16

	ins := []port{
		{name: "input_ids", typ: graph.Tensor(graph.SI32, 1, 1)},
		{name: "position_ids", typ: graph.Tensor(graph.SI32, 1, 1)},
		{name: "in_step", typ: graph.Tensor(graph.SI32, 1)},
		{name: "causal_mask", typ: graph.Tensor(f16, 1, ctx, 1, 1)},
	}
	if nFull > 0 {
		ins = append(ins,
			port{name: "key_cache", typ: graph.Tensor(f16, int64(nFull), 1, kvC, 1, ctx), state: "key_cache"},
			port{name: "value_cache", typ: graph.Tensor(f16, int64(nFull), 1, kvC, 1, ctx), state: "value_cache"})
	}
	convState, recState := "", ""
	if h.states {
		convState, recState = "conv_state", "rec_state"
	}
	ins = append(ins,
		port{name: "conv_state", typ: graph.Tensor(f16, int64(nLin), 1, int64(d.ConvKernel), int64(d.ConvDim())), state: convState},
		port{name: "rec_state", typ: graph.Tensor(f16, int64(nLin), 1, int64(d.LinVHeads), int64(d.LinKDim), int64(d.LinVDim)), state: recState})

	args := h.newGraph("main", ins)
	ids := args[0]
	h.pos, h.step, h.mask = args[1], args[2], args[3]
	k := 4
	if nFull > 0 {
		h.kc, h.vc = args[4], args[5]
		k = 6
	}
	h.conv, h.rec = args[k], args[k+1]

	// ForCausalLM.forward → model.forward.
	h.push(fileIOS, lineModelCall)
	h.at("embedding", fileIOS, 341)
	h.emb = h.embedding()
	x := h.gatherND(h.emb, h.expandDims(ids, 2)) // [1, 1, H]
	h.at("unsqueeze", fileIOS, 342)
	x = h.expandDims(x, 2) // BC1S stream [1, S, 1, H]
	if nFull > 0 {
		h.push(fileIOS, 344)
		h.rotaryTables()
		h.pop()
	}
	for i := 0; i < d.Layers; i++ {
		h.push(fileIOS, lineLayerLoop)
		x = h.layer(i, x)
		h.pop()
	}
	h.push(fileIOS, 348)
	x = h.residualNorm("model.norm.weight", x, 2*d.Layers)
	h.pop()
	h.pop()

	// Tied lm_head: logits = x · embᵀ, the embedding matrix reused in-graph.
	h.at("view", fileIOS, 357)
	x2 := h.reshape(x, 1, int64(d.Hidden))
	h.at("permute", fileIOS, 357)
	wt := h.transpose(h.emb, 1, 0)
	h.at("mm", fileIOS, 357)
	lg := h.matmul(x2, wt)
	h.at("view", fileIOS, 357)
	logits := h.reshape(lg, 1, 1, int64(d.Vocab))

	var outs []port
	var vals []*graph.Value
	if nFull > 0 {
		outs = append(outs, port{name: "key_cache"}, port{name: "value_cache"})
		vals = append(vals, h.kc, h.vc)
	}
	if h.states {
		outs = append(outs, port{name: "conv_state"}, port{name: "rec_state"}, port{name: "logits"})
		vals = append(vals, h.conv, h.rec, logits)
	} else {
		outs = append(outs, port{name: "logits"}, port{name: "new_conv_state"}, port{name: "new_rec_state"})
		vals = append(vals, logits, h.conv, h.rec)
	}
	h.output(outs, vals)
	if h.composite && nLin > 0 {
		h.gduGraph()
	}
	return nil
}

// normWeight is an RMSNorm scale: about 1 with a little spread.
var normWeight = dist{Mean: 1, Std: 0.05}

// rmsNorm is the builder's local fp32 RMSNorm over the last axis:
// cast to f32, square, mean, + eps, rsqrt, scale, cast back.
func (h *hybrid) rmsNorm(key string, x *graph.Value) *graph.Value {
	return h.rmsNormW(func() *graph.Value { return h.weight(key, normWeight, shapeOf(x)[len(shapeOf(x))-1]) }, x)
}

// residualNorm is rmsNorm on the residual stream after k residual adds,
// whose weight carries the massive channels' gains.
func (h *hybrid) residualNorm(key string, x *graph.Value, k int) *graph.Value {
	return h.rmsNormW(func() *graph.Value { return h.residualNormWeight(key, k) }, x)
}

func (h *hybrid) rmsNormW(weight func() *graph.Value, x *graph.Value) *graph.Value {
	y := h.normF32W(weight, x, lineNorm)
	h.at("_to_copy", fileIOS, lineNorm+6)
	return h.cast(y, graph.F16)
}

// normF32 is the f32 part RMSNorm and RMSNormGated share, at source lines
// l to l+5: x cast to f32, divided by its root mean square over the last
// axis (plus eps), times the weight; the result stays f32.
func (h *hybrid) normF32(key string, x *graph.Value, l int) *graph.Value {
	return h.normF32W(func() *graph.Value { return h.weight(key, normWeight, shapeOf(x)[len(shapeOf(x))-1]) }, x, l)
}

// normF32W is normF32 with the weight made by weight (called where the
// weight's constant goes).
func (h *hybrid) normF32W(weight func() *graph.Value, x *graph.Value, l int) *graph.Value {
	f32 := graph.F32
	h.at("_to_copy", fileIOS, l)
	x32 := h.cast(x, f32)
	h.at("mul", fileIOS, l+1)
	sq := h.mul(x32, x32)
	h.at("mean", fileIOS, l+2)
	ms := h.reduce("mean", sq, -1)
	h.at("add", fileIOS, l+3)
	ms = h.add(ms, h.scalar(h.d.Eps, f32))
	h.at("rsqrt", fileIOS, l+3)
	inv := h.unary("rsqrt", ms)
	h.at("mul", fileIOS, l+4)
	y := h.mul(x32, inv)
	h.at("_to_copy", fileIOS, l+5)
	w := h.cast(weight(), f32)
	h.at("mul", fileIOS, l+5)
	return h.mul(y, w)
}

// rotaryTables computes cos/sin [1, 1, rot] in f32 from position_ids.
func (h *hybrid) rotaryTables() {
	d := h.d
	half := d.RotaryDim / 2
	inv := make([]float64, half)
	for i := range inv {
		inv[i] = 1 / math.Pow(d.RopeTheta, float64(2*i)/float64(d.RotaryDim))
	}
	h.at("unsqueeze", fileIOS, lineRotary)
	p := h.expandDims(h.pos, -1) // [1, 1, 1]
	h.at("_to_copy", fileIOS, lineRotary+1)
	p = h.cast(p, graph.F32)
	h.at("mul", fileIOS, lineRotary+2)
	fr := h.mul(p, h.floats(graph.F32, i64s(half), inv...)) // [1, 1, half]
	h.at("cat", fileIOS, lineRotary+3)
	emb := h.concat(-1, fr, fr)
	h.at("cos", fileIOS, lineRotary+4)
	h.cos = h.unary("cos", emb)
	h.at("sin", fileIOS, lineRotary+5)
	h.sin = h.unary("sin", emb)
}

// applyRope rotates the first RotaryDim channels of x [1, S, heads, hd] in
// f32 (partial rotary) and keeps the rest.
func (h *hybrid) applyRope(x *graph.Value) *graph.Value {
	s := shapeOf(x)
	rot, hd := int64(h.d.RotaryDim), s[3]
	h.at("slice", fileIOS, lineApplyRope)
	xr := h.narrow(x, 3, 0, rot)
	h.at("slice", fileIOS, lineApplyRope+1)
	xp := h.narrow(x, 3, rot, hd-rot)
	h.at("_to_copy", fileIOS, lineApplyRope+2)
	xr = h.cast(xr, graph.F32)
	h.at("unsqueeze", fileIOS, lineApplyRope+3)
	c := h.expandDims(h.cos, 2) // [1, 1, 1, rot]
	h.at("unsqueeze", fileIOS, lineApplyRope+3)
	sn := h.expandDims(h.sin, 2)
	h.at("slice", fileIOS, lineApplyRope+4)
	x1 := h.narrow(xr, 3, 0, rot/2)
	h.at("slice", fileIOS, lineApplyRope+4)
	x2 := h.narrow(xr, 3, rot/2, rot/2)
	h.at("neg", fileIOS, lineApplyRope+4)
	x2 = h.mul(x2, h.scalar(-1, graph.F32))
	h.at("cat", fileIOS, lineApplyRope+4)
	rh := h.concat(-1, x2, x1)
	h.at("mul", fileIOS, lineApplyRope+5)
	a := h.mul(xr, c)
	h.at("mul", fileIOS, lineApplyRope+5)
	bb := h.mul(rh, sn)
	h.at("add", fileIOS, lineApplyRope+5)
	y := h.add(a, bb)
	h.at("_to_copy", fileIOS, lineApplyRope+6)
	y = h.cast(y, graph.F16)
	h.at("cat", fileIOS, lineApplyRope+7)
	return h.concat(-1, y, xp)
}

// proj applies a 1×1 conv projection to the BC1S stream [1, S, 1, Cin]:
// transpose to [1, Cin, 1, S], conv, transpose back to [1, S, 1, Cout].
func (h *hybrid) proj(key string, x *graph.Value, cout int, line int) *graph.Value {
	cin := shapeOf(x)[3]
	h.at("permute", fileIOS, line)
	t := h.swap(x, -3, -1)
	h.at("convolution", fileIOS, line)
	w := h.weight(key, normal(1/math.Sqrt(float64(cin))), int64(cout), cin, 1, 1)
	y := h.conv1x1(t, w)
	h.at("permute", fileIOS, line)
	return h.swap(y, -3, -1)
}

func (h *hybrid) layer(i int, x *graph.Value) *graph.Value {
	p := fmt.Sprintf("model.layers.%d.", i)
	full := h.d.IsFull(i)
	h.push(fileIOS, 326)
	n := h.residualNorm(p+"input_layernorm.weight", x, 2*i)
	h.pop()
	var r *graph.Value
	addMix, addMLP := lineAddLinMix, lineAddLinMLP
	if full {
		h.push(fileIOS, 329)
		r = h.attention(p+"self_attn.", n)
		h.pop()
		addMix, addMLP = lineAddFullMix, lineAddFullMLP
	} else {
		h.push(fileIOS, 328)
		r = h.gatedDelta(p+"linear_attn.", n)
		h.pop()
	}
	h.at("add", fileIOS, addMix)
	x = h.add(x, r)
	h.push(fileIOS, addMLP-1)
	n = h.residualNorm(p+"post_attention_layernorm.weight", x, 2*i+1)
	r = h.mlp(i, p+"mlp.", n)
	h.pop()
	h.at("add", fileIOS, addMLP)
	return h.add(x, r)
}

// mlp is Apple's iOS MLP: reshape to [B·S, C, 1, 1], 1×1 convs, SiLU gate.
// Layer i's MLP carries the massive channels' super neurons (massive.go).
func (h *hybrid) mlp(i int, p string, x *graph.Value) *graph.Value {
	hid, inter := int64(h.d.Hidden), int64(h.d.Intermediate)
	upGate, downCols, down := h.mv.superWeights(h.d, i)
	h.at("view", fileIOS, lineMLP)
	t := h.reshape(x, 1, hid, 1, 1)
	h.at("convolution", fileIOS, lineMLP+1)
	up := h.conv1x1(t, h.patchedWeight(p+"up_proj.weight", normal(1/math.Sqrt(float64(hid))), nil, upGate, inter, hid, 1, 1))
	h.at("convolution", fileIOS, lineMLP+2)
	g := h.conv1x1(t, h.patchedWeight(p+"gate_proj.weight", normal(1/math.Sqrt(float64(hid))), nil, upGate, inter, hid, 1, 1))
	h.at("silu", fileIOS, lineMLP+2)
	g = h.unary("silu", g)
	h.at("mul", fileIOS, lineMLP+3)
	m := h.mul(up, g)
	h.at("convolution", fileIOS, lineMLP+3)
	dn := h.conv1x1(m, h.patchedWeight(p+"down_proj.weight", normal(1/math.Sqrt(float64(inter))), downCols, down, hid, inter, 1, 1))
	h.at("view", fileIOS, lineMLP+4)
	return h.reshape(dn, 1, 1, 1, hid)
}

// attention is a Qwen3.5 full-attention layer with per-head q/k norm,
// partial RoPE in f32, an output gate, KV cache writes at in_step and
// Apple's per-head SDPA. x is [1, 1, 1, H].
func (h *hybrid) attention(p string, x *graph.Value) *graph.Value {
	d := h.d
	nh, nkv, hd := int64(d.Heads), int64(d.KVHeads), int64(d.HeadDim)
	q := h.proj(p+"q_proj.weight", x, int(2*nh*hd), lineAttn+1) // query | gate per head
	kk := h.proj(p+"k_proj.weight", x, int(nkv*hd), lineAttn+2)
	v := h.proj(p+"v_proj.weight", x, int(nkv*hd), lineAttn+3)
	h.at("view", fileIOS, lineAttn+4)
	q = h.reshape(q, 1, 1, nh, 2*hd)
	h.at("slice", fileIOS, lineAttn+4)
	gate := h.narrow(q, 3, hd, hd)
	h.at("slice", fileIOS, lineAttn+4)
	q = h.narrow(q, 3, 0, hd)
	h.at("view", fileIOS, lineAttn+5)
	gate = h.reshape(gate, 1, 1, 1, nh*hd)
	h.at("view", fileIOS, lineAttn+6)
	kk = h.reshape(kk, 1, 1, nkv, hd)

	h.push(fileIOS, lineAttn+7)
	q = h.rmsNorm(p+"q_norm.weight", q)
	h.pop()
	h.push(fileIOS, lineAttn+8)
	kk = h.rmsNorm(p+"k_norm.weight", kk)
	h.pop()
	h.push(fileIOS, lineRopeQ)
	q = h.applyRope(q)
	h.pop()
	h.push(fileIOS, lineRopeK)
	kk = h.applyRope(kk)
	h.pop()

	// To BC1S [1, C, 1, S] for the cache and SDPA.
	h.at("view", fileIOS, lineAttn+11)
	q = h.reshape(q, 1, 1, 1, nh*hd)
	h.at("permute", fileIOS, lineAttn+11)
	q = h.swap(q, -3, -1)
	h.at("view", fileIOS, lineAttn+12)
	kk = h.reshape(kk, 1, 1, 1, nkv*hd)
	h.at("permute", fileIOS, lineAttn+12)
	kk = h.swap(kk, -3, -1)
	h.at("permute", fileIOS, lineAttn+12)
	v = h.swap(v, -3, -1)

	h.push(fileIOS, lineKVWrite)
	kAll, vAll := h.kvWrite(int64(h.fulI), 1, kk, v)
	h.pop()
	h.push(fileIOS, lineSDPA)
	o := h.sdpa(q, kAll, vAll, d.Heads, d.KVHeads, d.HeadDim) // [1, nh·hd, 1, 1]
	h.pop()
	h.fulI++

	h.at("permute", fileIOS, lineAttn+17)
	o = h.swap(o, -3, -1) // [1, 1, 1, nh·hd]
	h.at("sigmoid", fileIOS, lineAttn+17)
	g := h.unary("sigmoid", gate)
	h.at("mul", fileIOS, lineAttn+17)
	o = h.mul(o, g)
	return h.proj(p+"o_proj.weight", o, d.Hidden, lineAttn+18)
}

// gatedDelta is a Qwen3.5 gated delta net layer at query length 1; x is
// [1, 1, 1, H].
func (h *hybrid) gatedDelta(p string, x *graph.Value) *graph.Value {
	d := h.d
	li := int64(h.linI)
	K, C := int64(d.ConvKernel), int64(d.ConvDim())
	kd, vd := int64(d.KeyDim()), int64(d.ValueDim())
	hk, hv := int64(d.LinKHeads), int64(d.LinVHeads)
	dk, dv := int64(d.LinKDim), int64(d.LinVDim)
	P := C + vd + 2*hv

	f := h.proj(p+"in_proj_all.weight", x, int(P), lineLinear+1) // [1, 1, 1, P]
	h.at("view", fileIOS, lineLinear+2)
	f = h.reshape(f, 1, 1, P)
	h.at("slice", fileIOS, lineLinear+3)
	mixed := h.narrow(f, 2, 0, C)
	h.at("slice", fileIOS, lineLinear+4)
	z := h.narrow(f, 2, C, vd)
	h.at("view", fileIOS, lineLinear+4)
	z = h.reshape(z, 1, 1, hv, dv)
	h.at("slice", fileIOS, lineLinear+5)
	bIn := h.narrow(f, 2, C+vd, hv)
	h.at("slice", fileIOS, lineLinear+6)
	aIn := h.narrow(f, 2, C+vd+hv, hv)

	// Short causal conv over [history (K-1 rows) | new row].
	h.at("select", fileIOS, lineLinear+10)
	hist := h.slice(h.conv, []int64{li, 0, 1, 0}, []int64{li + 1, 1, K, C})
	hist = h.shrinkDims(hist, 0) // [1, K-1, C]
	h.at("cat", fileIOS, lineLinear+11)
	cin := h.concat(1, hist, mixed) // [1, K, C]
	h.at("slice", fileIOS, lineLinear+12)
	win := h.narrow(cin, 1, 0, K)
	h.at("unsqueeze", fileIOS, lineLinear+13)
	u := h.expandDims(win, 0)
	h.at("immutable_slice_update", fileIOS, lineLinear+13)
	h.conv = h.sliceUpdate(h.conv, u, h.si32(li, 0, 0, 0), h.si32(li+1, 1, K, C))
	w := h.weight(p+"conv_weight", normal(0.3), K, C)
	var co *graph.Value
	for t := int64(0); t < K; t++ {
		h.at("slice", fileIOS, lineLinear+14+int(min(t, 1)))
		xt := h.narrow(cin, 1, t, 1) // [1, 1, C]
		h.at("select", fileIOS, lineLinear+14+int(min(t, 1)))
		wt := h.reshape(h.narrow(w, 0, t, 1), C)
		h.at("mul", fileIOS, lineLinear+14+int(min(t, 1)))
		m := h.mul(xt, wt)
		if co == nil {
			co = m
			continue
		}
		h.at("add", fileIOS, lineLinear+15)
		co = h.add(co, m)
	}
	h.at("silu", fileIOS, lineLinear+18)
	act := h.unary("silu", co)
	h.at("split_with_sizes", fileIOS, lineLinear+19)
	sizes := h.ui32(kd, kd, vd)
	ax := h.si32s(2)
	sp := graph.NewOp("coreai.split", []*graph.Value{act, sizes, ax},
		[]graph.Type{graph.Tensor(graph.F16, 1, 1, kd), graph.Tensor(graph.F16, 1, 1, kd), graph.Tensor(graph.F16, 1, 1, vd)}, nil, h.loc)
	h.blk.Append(sp)
	h.at("view", fileIOS, lineLinear+20)
	q := h.reshape(sp.Result(0), 1, 1, hk, dk)
	h.at("view", fileIOS, lineLinear+21)
	k := h.reshape(sp.Result(1), 1, 1, hk, dk)
	h.at("view", fileIOS, lineLinear+22)
	v := h.reshape(sp.Result(2), 1, 1, hv, dv)

	h.at("sigmoid", fileIOS, lineLinear+23)
	beta := h.unary("sigmoid", bIn) // [1, 1, Hv]
	g := h.decay(p, aIn)
	if !h.composite { // the composite normalizes q and k itself
		q = h.l2norm(q, lineLinear+25)
		k = h.l2norm(k, lineLinear+26)
	}

	h.at("select", fileIOS, lineRecState)
	st := h.slice(h.rec, []int64{li, 0, 0, 0, 0}, []int64{li + 1, 1, hv, dk, dv})
	st = h.shrinkDims(st, 0) // [1, Hv, Dk, Dv]

	var o, ns *graph.Value
	if h.composite {
		o, ns = h.callGDU(q, k, v, beta, g, st) // o: [1, 1, Hv, Dv]
	} else {
		h.push(fileIOS, lineRecurrence)
		o, ns = h.step5(q, k, v, beta, g, st)
		h.pop()
	}

	h.at("unsqueeze", fileIOS, lineRecWrite)
	nu := h.expandDims(ns, 0)
	h.at("immutable_slice_update", fileIOS, lineRecWrite)
	h.rec = h.sliceUpdate(h.rec, nu, h.si32(li, 0, 0, 0, 0), h.si32(li+1, 1, hv, dk, dv))
	h.linI++

	if !h.composite {
		h.at("permute", fileIOS, 294)
		o = h.transpose(o, 0, 2, 1, 3) // [1, 1, Hv, Dv]
	}
	h.push(fileIOS, 295)
	o = h.gatedNorm(p+"norm.weight", o, z)
	h.pop()
	h.at("view", fileIOS, 296)
	o = h.reshape(o, 1, 1, 1, vd)
	return h.proj(p+"out_proj.weight", o, d.Hidden, 296)
}

// The gates' initialisation (massive.go): A log-uniform on [1, 16] and
// softplus(dt_bias) log-uniform on [0.001, 0.1], as trained gated-delta and
// Mamba2 models start; fastA and fastDtBias are synth's gates before issue
// 29 (NoTrainedGates), under which exp(g) ≤ 0.24.
var (
	trainedA      = dist{Mean: math.Log(16) / 2, Std: math.Log(16) / 2, Uniform: true}
	trainedDtBias = dist{Mean: (math.Log(0.001) + math.Log(0.1)) / 2, Std: (math.Log(0.1) - math.Log(0.001)) / 2, Uniform: true, InvSoftplusExp: true}
	fastA         = dist{Mean: 1.4, Std: 1.3, Uniform: true}
	fastDtBias    = dist{Mean: 1, Std: 0.5}
)

// decay is g = −exp(A_log) · softplus(a + dt_bias), with softplus
// decomposed as torch does (threshold 20).
func (h *hybrid) decay(p string, a *graph.Value) *graph.Value {
	hv := int64(h.d.LinVHeads)
	line := lineLinear + 24
	aLog, dtBias := trainedA, trainedDtBias
	if h.fastGates {
		aLog, dtBias = fastA, fastDtBias
	}
	h.at("exp", fileIOS, line)
	A := h.unary("exp", h.weight(p+"A_log", aLog, hv))
	h.at("neg", fileIOS, line)
	A = h.mul(A, h.scalar(-1, graph.F16))
	h.at("add", fileIOS, line)
	x := h.add(a, h.weight(p+"dt_bias", dtBias, hv))
	h.at("gt", fileIOS, line)
	big := h.greater(x, h.scalar(20, graph.F16))
	h.at("exp", fileIOS, line)
	e := h.unary("exp", x)
	h.at("log1p", fileIOS, line)
	l := h.unary("log", h.add(e, h.scalar(1, graph.F16)))
	h.at("where", fileIOS, line)
	sp := h.where(big, x, l)
	h.at("mul", fileIOS, line)
	return h.mul(A, sp) // [1, 1, Hv]
}

// l2norm normalizes the last axis in f16: x · rsqrt(Σx² + 1e-6).
func (h *hybrid) l2norm(x *graph.Value, line int) *graph.Value {
	h.at("mul", fileIOS, line)
	sq := h.mul(x, x)
	h.at("sum", fileIOS, line)
	s := h.reduce("sum", sq, -1)
	h.at("add", fileIOS, line)
	s = h.add(s, h.scalar(1e-6, graph.F16))
	h.at("rsqrt", fileIOS, line)
	r := h.unary("rsqrt", s)
	h.at("mul", fileIOS, line)
	return h.mul(x, r)
}

// step5 is _gated_delta_step (models/macos/qwen3_5.py): q, k, v, β, g and
// the state cast to f32 (the six `_to_copy` ops the compiler cites), one
// recurrence step S ← exp(g)·S + kᵀ(β·(v − kS)), o = qS, and both results
// cast back to f16. q, k are [1, 1, Hk, Dk], v [1, 1, Hv, Dv], β and g
// [1, 1, Hv], S [1, Hv, Dk, Dv]. Returns o [1, Hv, 1, Dv] and the new S.
func (h *hybrid) step5(q, k, v, beta, g, s *graph.Value) (*graph.Value, *graph.Value) {
	return h.stepAt(stepMac, q, k, v, beta, g, s)
}

// stepSrc says where a recurrence step's ops come from: the file, the line
// of its f32 casts (the body follows on the next lines) and whether q, k,
// v arrive head-major ([1, H, 1, D], the composite's layout) or token-major
// ([1, 1, H, D], the builder's).
type stepSrc struct {
	file       string
	casts      int
	headMajor  bool
	castsState int // line of the state's cast (0: same as casts)
}

var (
	stepMac       = stepSrc{file: fileMac, casts: lineStepCasts}
	stepComposite = stepSrc{file: fileGDU, casts: 41, headMajor: true, castsState: 47}
)

func (h *hybrid) stepAt(src stepSrc, q, k, v, beta, g, s *graph.Value) (*graph.Value, *graph.Value) {
	f32 := graph.F32
	hv := int64(h.d.LinVHeads)
	dk := int64(h.d.LinKDim)
	file, l := src.file, src.casts
	in := []*graph.Value{q, k, v, beta, g, s}
	for i, x := range in {
		line := l
		if i == 5 && src.castsState != 0 {
			line = src.castsState
		}
		h.at("_to_copy", file, line)
		in[i] = h.cast(x, f32)
	}
	q, k, v, beta, g, s = in[0], in[1], in[2], in[3], in[4], in[5]
	h.at("mul", file, l+1)
	q = h.mul(q, h.scalar(1/math.Sqrt(float64(dk)), f32))
	if !src.headMajor {
		h.at("permute", file, l+2)
		q = h.transpose(q, 0, 2, 1, 3) // [1, H, 1, Dk]
		h.at("permute", file, l+2)
		k = h.transpose(k, 0, 2, 1, 3)
		h.at("permute", file, l+2)
		v = h.transpose(v, 0, 2, 1, 3) // [1, H, 1, Dv]
	}
	h.at("exp", file, l+3)
	dec := h.unary("exp", g)
	h.at("view", file, l+3)
	dec = h.reshape(dec, 1, hv, 1, 1)
	h.at("mul", file, l+4)
	s = h.mul(s, dec)
	if h.matmulRead {
		return h.stepMatmul(file, l, q, k, v, beta, s)
	}
	// coreai-torch's composite reads the state by broadcasting: k and q as
	// columns [1, H, Dk, 1] against S [1, H, Dk, Dv], multiplied
	// elementwise and summed over Dk (dim -2); the update is the outer
	// product k ⊙ δ by broadcasting too.
	h.at("permute", file, l+5)
	kc := h.transpose(k, 0, 1, 3, 2) // [1, H, Dk, 1]
	h.at("mul", file, l+5)
	sk := h.mul(s, kc)
	h.at("sum", file, l+5)
	kv := h.reduce("sum", sk, -2) // [1, H, 1, Dv]
	h.at("sub", file, l+6)
	delta := h.sub(v, kv)
	h.at("view", file, l+6)
	b4 := h.reshape(beta, 1, hv, 1, 1)
	h.at("mul", file, l+6)
	delta = h.mul(delta, b4) // [1, H, 1, Dv]
	h.at("mul", file, l+7)
	upd := h.mul(kc, delta) // [1, H, Dk, Dv]
	h.at("add", file, l+7)
	s = h.add(s, upd)
	h.at("permute", file, l+8)
	qc := h.transpose(q, 0, 1, 3, 2)
	h.at("mul", file, l+8)
	sq := h.mul(s, qc)
	h.at("sum", file, l+8)
	o := h.reduce("sum", sq, -2) // [1, H, 1, Dv]
	return h.stepEnd(file, l, o, s)
}

// stepMatmul is the rest of a step with the state read by batch matmuls
// (StateReadMatmul): kS, kᵀδ and qS.
func (h *hybrid) stepMatmul(file string, l int, q, k, v, beta, s *graph.Value) (*graph.Value, *graph.Value) {
	hv := int64(h.d.LinVHeads)
	h.at("matmul", file, l+5)
	kv := h.matmul(k, s) // [1, H, 1, Dv]
	h.at("sub", file, l+6)
	delta := h.sub(v, kv)
	h.at("view", file, l+6)
	b4 := h.reshape(beta, 1, hv, 1, 1)
	h.at("mul", file, l+6)
	delta = h.mul(delta, b4)
	h.at("permute", file, l+7)
	kc := h.transpose(k, 0, 1, 3, 2) // [1, H, Dk, 1]
	h.at("matmul", file, l+7)
	upd := h.matmul(kc, delta) // [1, H, Dk, Dv]
	h.at("add", file, l+7)
	s = h.add(s, upd)
	h.at("matmul", file, l+8)
	o := h.matmul(q, s) // [1, H, 1, Dv]
	return h.stepEnd(file, l, o, s)
}

// stepEnd casts a step's output and new state back to f16.
func (h *hybrid) stepEnd(file string, l int, o, s *graph.Value) (*graph.Value, *graph.Value) {
	h.at("_to_copy", file, l+9)
	o = h.cast(o, graph.F16)
	h.at("_to_copy", file, l+10)
	s = h.cast(s, graph.F16)
	return o, s
}

// gatedNorm is RMSNormGated in local f32: norm(o)·w·silu(z), cast back.
func (h *hybrid) gatedNorm(key string, o, z *graph.Value) *graph.Value {
	l := lineGatedNorm
	y := h.normF32(key, o, l)
	h.at("_to_copy", fileIOS, l+6)
	zz := h.cast(z, graph.F32)
	h.at("silu", fileIOS, l+6)
	zz = h.unary("silu", zz)
	h.at("mul", fileIOS, l+6)
	y = h.mul(y, zz)
	h.at("_to_copy", fileIOS, l+7)
	return h.cast(y, graph.F16)
}

// gduGraph is the private composite graph the --recurrence composite
// variant calls from every gated-delta layer.
const gduGraph = "gated_delta_update_0"

// callGDU calls the gated_delta_update composite the way coreai-torch's
// externalized GatedDeltaUpdate is called: q, k [1, Hk, S, Dk], v
// [1, Hv, S, Dv], g and β [1, Hv, S], state [1, Hv, Dk, Dv] → output
// [1, S, Hv, Dv] and the new state, both f16 (the f32 island is inside).
func (h *hybrid) callGDU(q, k, v, beta, g, st *graph.Value) (*graph.Value, *graph.Value) {
	hv, dv := int64(h.d.LinVHeads), int64(h.d.LinVDim)
	hm := func(x *graph.Value) *graph.Value {
		h.at("permute", fileIOS, lineRecurrence-1)
		if len(shapeOf(x)) == 3 {
			return h.transpose(x, 0, 2, 1)
		}
		return h.transpose(x, 0, 2, 1, 3)
	}
	args := []*graph.Value{hm(q), hm(k), hm(v), hm(g), hm(beta), st}
	h.at("gated_delta_update", fileIOS, lineRecurrence)
	r := h.invoke(gduGraph, args, graph.Tensor(graph.F16, 1, 1, hv, dv), tt(st))
	return r[0], r[1]
}

// gduGraph appends the composite: q/k L2 norm in f16, then the same f32
// step as the inline builder (casts at _gated_delta_update.py:41/47).
func (h *hybrid) gduGraph() {
	d := h.d
	hk, hv := int64(d.LinKHeads), int64(d.LinVHeads)
	dk, dv := int64(d.LinKDim), int64(d.LinVDim)
	f16 := graph.F16
	names := []string{"query", "key", "value", "g", "beta", "initial_state"}
	types := []*graph.TensorType{graph.Tensor(f16, 1, hk, 1, dk), graph.Tensor(f16, 1, hk, 1, dk),
		graph.Tensor(f16, 1, hv, 1, dv), graph.Tensor(f16, 1, hv, 1), graph.Tensor(f16, 1, hv, 1),
		graph.Tensor(f16, 1, hv, dk, dv)}
	ins := make([]port, len(names))
	for i := range names {
		ins[i] = port{name: names[i], typ: types[i]}
	}
	outs := []string{"output_0", "output_1"}
	args := h.newGraph(gduGraph, ins,
		graph.NamedAttr{Name: graph.AttrVisibility, Value: graph.Str("private")},
		graph.NamedAttr{Name: "no_inline", Value: &graph.UnitAttr{}},
		graph.NamedAttr{Name: graph.AttrCompositeDec, Value: compositeDecl("gated_delta_update", names, outs, "use_qk_l2_norm = true, ")})
	h.stack = nil
	q, k := args[0], args[1]
	for i, line := range []int{38, 39} {
		x := args[i]
		h.at("mul", fileGDU, line)
		sq := h.mul(x, x)
		h.at("sum", fileGDU, line)
		s := h.reduce("sum", sq, -1)
		h.at("add", fileGDU, line)
		s = h.add(s, h.scalar(1e-6, f16))
		h.at("rsqrt", fileGDU, line)
		r := h.unary("rsqrt", s)
		h.at("mul", fileGDU, line)
		if i == 0 {
			q = h.mul(x, r)
		} else {
			k = h.mul(x, r)
		}
	}
	o, ns := h.stepAt(stepComposite, q, k, args[2], args[4], args[3], args[5])
	h.at("permute", fileGDU, 104)
	o = h.transpose(o, 0, 2, 1, 3) // [1, 1, Hv, Dv]
	h.output([]port{{name: outs[0]}, {name: outs[1]}}, []*graph.Value{o, ns})
}
