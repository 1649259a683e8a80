package variants

import (
	"fmt"
	"math"
	"strings"
)

// Dimensions of the hybrid: small, so that every command runs on a case in
// milliseconds, with the shapes of Qwen3.5's layers (3 layers: two
// gated-delta linear-attention layers, then one full-attention layer).
const (
	hidden    = 16 // model width
	vocab     = 32
	linHeads  = 2 // gated-delta heads
	keyDim    = 4 // per head
	valueDim  = 4
	convK     = 4 // causal conv kernel; the conv state holds convK-1 steps
	attnHeads = 2
	headDim   = 8
	mlpDim    = 32
	linLayers = 2
	convCh    = 2*linHeads*keyDim + linHeads*valueDim // q, k and v channels
	rmsEps    = 1e-6
)

// layerKinds is the layer pattern: "lin" gated delta, "full" attention.
var layerKinds = []string{"lin", "lin", "full"}

// Source lines of the made-up model file the locations name.
const (
	lineEmbed    = 320
	lineNorm     = 58
	lineInProj   = 201
	lineConv     = 207
	lineSplit    = 210
	lineGates    = 214
	lineRec      = 290
	lineRecBody  = 44 // inside the composite's own forward
	lineOutProj  = 225
	lineMLP      = 240
	lineAttn     = 260
	lineState    = 300
	lineFinal    = 330
	lineHead     = 335
	compositeDef = "gated_delta_update"
)

// hybrid writes one case's module.
type hybrid struct {
	a          Axes
	m          *module
	composites []*compositeFn // written after the entry graphs
	nComposite int
}

type compositeFn struct {
	f        *fn
	name     string
	ins, out []port
}

// build returns the case's module in the printed form.
func build(a Axes) []byte {
	h := &hybrid{a: a, m: newModule(a.Locations)}
	switch a.Graphs {
	case "multi":
		// Two entry functions of different context lengths, as Apple's
		// exports specialize one function per shape; they share weights.
		h.entry("extend_8_1", 8)
		h.entry("extend_16_1", 16)
	default:
		h.entry(a.Graphs, 8)
	}
	// composite_decl as coreai-torch's gated_delta_update test pins it;
	// template_op as its other composites carry it (a guess for this one).
	for _, c := range h.composites {
		attrs := fmt.Sprintf(`{composite_decl = #coreai.composite_declaration<"%s" = {input_names = ["query", "key", "value", "g", "beta", "initial_state"], op_attrs = {use_qk_l2_norm = true, version = 1 : si64}, output_names = ["output_0", "output_1"]}>, template_op = "%s"}`, compositeDef, compositeDef)
		c.f.finish("private noinline @"+c.name, c.ins, c.out, false, attrs)
	}
	header := fmt.Sprintf("// A generated stand-in, not an export: anefix graph/synth/variants case %s\n", a.Name())
	return h.m.text(header)
}

// stateVar is one state port pair of an entry graph, and how it is read
// and written in the graph's form.
type stateVar struct {
	kind    string // conv, rec, key, value
	in, out string // port names
	t       typ    // the port's tensor type (per layer or stacked)
	layer   int    // linear-layer index; -1 for a stacked or KV state
	stacked bool   // plain-update: one port for all linear layers
	attr    bool   // attribute-form state (MutableBuffers)
	handle  bool   // handle form
	arg     val    // the graph argument
	cur     val    // the value read (after any port cast); stacked: the current whole buffer
	read    bool
	result  val // the output value (or the write's token)
	written bool
}

// entryGraph is the state of the entry graph being written.
type entryGraph struct {
	*hybrid
	f      *fn
	tok    val // the token chain of handle accesses
	states []*stateVar
	ctx    int64
}

// portName gives a state port pair's names in the case's convention;
// layer < 0 is a stacked buffer of all layers.
func portName(conv, kind string, layer int) (in, out string) {
	word := map[string]string{"conv": "conv", "rec": "rec"}[kind]
	suf := ""
	if layer >= 0 {
		suf = fmt.Sprintf("_%d", layer)
	}
	dot := ""
	if layer >= 0 {
		dot = fmt.Sprintf(".%d", layer)
	}
	idx := ""
	if layer >= 0 {
		idx = fmt.Sprint(layer)
	}
	base := word + "_state" + suf
	switch conv {
	case "out":
		return base, base + "_out"
	case "new":
		return base, "new_" + base
	case "next":
		return base, "next_" + base
	case "updated":
		return base, "updated_" + base
	case "past-present":
		return "past_" + base, "present_" + base
	case "cache":
		return word + "_cache" + suf, "updated_" + word + "_cache" + suf
	case "camel":
		w := word + "State" + idx
		return w, "new" + strings.ToUpper(word[:1]) + word[1:] + "State" + idx
	case "layers":
		if layer < 0 {
			return "linear_attn." + word + "_state", "linear_attn.new_" + word + "_state"
		}
		return fmt.Sprintf("layers.%d.%s_state", layer, word), fmt.Sprintf("layers.%d.new_%s_state", layer, word)
	case "h01":
		c := map[string]string{"conv": "c", "rec": "h"}[kind]
		return c + "0" + dot, c + "1" + dot
	case "in-out":
		c := map[string]string{"conv": "w", "rec": "s"}[kind]
		return c + idx + "_in", c + idx + "_out"
	}
	panic("variants: unknown naming " + conv)
}

func (h *hybrid) entry(name string, ctx int64) {
	g := &entryGraph{hybrid: h, f: h.m.newFn(), ctx: ctx}
	a := h.a
	attrForm, handleForm := a.State == "attr", a.State == "handle"
	lin := linStates(a)
	kvT := tensor("f16", 1, attnHeads, ctx, headDim)
	var kv []*stateVar
	for _, k := range []string{"key", "value"} {
		n := k + "_cache"
		kv = append(kv, &stateVar{kind: k, in: n, out: n, t: kvT, layer: -1, attr: !handleForm, handle: handleForm})
	}
	plainIns := []port{
		{name: "input_ids", t: tensor("si32", 1, 1)},
		{name: "position_ids", t: tensor("si32", 1)},
		{name: "causal_mask", t: tensor("f16", 1, 1, 1, ctx)},
	}
	// coreai-torch lists mutated buffers first; an export with plain
	// state pairs lists them after its other inputs, and KV caches stay
	// buffers.
	if attrForm || handleForm {
		g.states = append(append(g.states, lin...), kv...)
	} else {
		g.states = append(append(g.states, kv...), lin...)
	}
	var ins []port
	if !attrForm && !handleForm {
		ins = append(ins, plainIns...)
	}
	for _, s := range g.states {
		t := s.t
		t.handle = s.handle
		ins = append(ins, port{name: s.in, t: t, buffer: s.attr || s.handle})
	}
	if attrForm || handleForm {
		ins = append(ins, plainIns...)
	}
	av := args(ins)
	byName := map[string]val{}
	for i, p := range ins {
		byName[p.name] = av[i]
	}
	for _, s := range g.states {
		s.arg = byName[s.in]
	}
	f := g.f
	if handleForm {
		f.at(lineState)
		g.tok = f.createToken()
	}
	if a.Casts == "state-ports" {
		// The recurrent states are cast to fp32 where they enter the graph.
		for _, s := range g.states {
			if s.kind == "rec" {
				g.readState(s)
			}
		}
	}

	// Embedding: expand_dims then gather_nd (coreai-torch's lowering).
	f.at(lineEmbed)
	table := f.weight("embedding", "model.embed_tokens.weight", values("model.embed_tokens.weight", vocab*hidden, dist{spread: 1}), vocab, hidden)
	ids := f.expand("embedding", byName["input_ids"], 2)
	x := f.gatherND("embedding", table, ids)
	li := 0
	for l, kind := range layerKinds {
		if kind == "lin" {
			x = g.linearLayer(l, li, x)
			li++
		} else {
			x = g.attentionLayer(l, x, kv, byName["position_ids"], byName["causal_mask"])
		}
		x = g.mlp(l, x)
	}
	f.at(lineFinal)
	x = g.rmsNorm("model.norm.weight", x)
	f.at(lineHead)
	et := f.transpose("linear", table, 1, 0)
	logits := f.matmul("linear", x, et)

	// Outputs.
	var outs []port
	var ov []val
	for _, s := range g.states {
		g.finishState(s)
	}
	if attrForm || handleForm {
		for _, s := range g.states {
			outs = append(outs, port{name: s.out, t: s.result.t})
			ov = append(ov, s.result)
		}
		outs = append(outs, port{name: "logits", t: logits.t})
		ov = append(ov, logits)
	} else {
		for _, s := range kv {
			outs = append(outs, port{name: s.out, t: s.result.t})
			ov = append(ov, s.result)
		}
		outs = append(outs, port{name: "logits", t: logits.t})
		ov = append(ov, logits)
		for _, s := range lin {
			outs = append(outs, port{name: s.out, t: s.result.t})
			ov = append(ov, s.result)
		}
	}
	f.at(lineHead)
	f.output(ov...)
	f.finish("@"+name, ins, outs, true, "")
}

// linStates are the conv and recurrent state port pairs of the linear
// layers in the case's form (per layer, or one stacked buffer per kind).
func linStates(a Axes) []*stateVar {
	attrForm, handleForm := a.State == "attr", a.State == "handle"
	recElem := "f16" // f32-state: the recurrent state's port is fp32
	if a.Casts == "f32-state" {
		recElem = "f32"
	}
	convT := tensor("f16", 1, convCh, convK-1)
	recT := tensor(recElem, 1, linHeads, keyDim, valueDim)
	var lin []*stateVar
	if a.State == "plain-update" {
		for _, k := range []string{"conv", "rec"} {
			in, out := portName(a.Naming, k, -1)
			t := convT
			if k == "rec" {
				t = recT
			}
			t = t.withShape(append([]int64{linLayers}, t.shape...)...)
			lin = append(lin, &stateVar{kind: k, in: in, out: out, t: t, layer: -1, stacked: true})
		}
	} else {
		for l := range linLayers {
			for _, k := range []string{"conv", "rec"} {
				in, out := portName(a.Naming, k, l)
				t := convT
				if k == "rec" {
					t = recT
				}
				sv := &stateVar{kind: k, in: in, out: out, t: t, layer: l, attr: attrForm, handle: handleForm}
				if attrForm || handleForm {
					sv.out = in // the output carries the buffer's name
				}
				lin = append(lin, sv)
			}
		}
	}
	return lin
}

// readState returns the state's current value for one layer's use.
func (g *entryGraph) readState(s *stateVar) val {
	if s.read {
		return s.cur
	}
	f := g.f
	f.at(lineState)
	s.read = true
	v := s.arg
	if s.handle {
		v, g.tok = f.readHandle("b_"+s.in, s.arg, g.tok)
	}
	if s.kind == "rec" && g.a.Casts == "state-ports" {
		v = f.cast("_to_copy", v, "f32")
	}
	s.cur = v
	return v
}

// layerState reads layer li's slice of a stacked state, or the state.
func (g *entryGraph) layerState(s *stateVar, li int) val {
	v := g.readState(s)
	if !s.stacked {
		return v
	}
	f := g.f
	f.at(lineState)
	// The layer's slice is read from the buffer as read (cast at the port
	// when the case casts there), not from earlier layers' updates, which
	// write other slices.
	sl := f.sliceAxis("slice", v, 0, int64(li), int64(li)+1)
	return f.shrink("squeeze", sl, 0)
}

// writeState records layer li's new value of a state.
func (g *entryGraph) writeState(s *stateVar, li int, v val) {
	f := g.f
	f.at(lineState)
	if s.stacked {
		if !s.written {
			s.result = s.cur // the first update writes into the buffer as read
			s.written = true
		}
		u := f.expand("unsqueeze", v, 0)
		s.result = f.sliceUpdateAxis("slice_scatter", s.result, u, 0, int64(li))
		return
	}
	s.written = true
	s.result = v
}

// finishState turns a state's last value into what the graph returns:
// cast back at the port, written through its handle.
func (g *entryGraph) finishState(s *stateVar) {
	f := g.f
	f.at(lineState)
	if !s.written {
		panic("variants: state " + s.in + " never written")
	}
	v := s.result
	if s.kind == "rec" && g.a.Casts == "state-ports" {
		v = f.cast("_to_copy", v, "f16")
	}
	if s.handle {
		g.tok = f.writeHandle("copy_", s.arg, v, g.tok)
		v = g.tok
	}
	s.result = v
}

func (g *entryGraph) linear(x val, key string, out, in int64) val {
	f := g.f
	w := f.weight("linear", key, values(key, out*in, fanIn(in)), out, in)
	wt := f.transpose("linear", w, 1, 0)
	return f.matmul("linear", x, wt)
}

// rmsNorm is x·rsqrt(mean(x²) + eps)·w in fp16.
func (g *entryGraph) rmsNorm(key string, x val) val {
	f := g.f
	two := f.floatScalar("pow", "f16", 2)
	sq := f.bin("pow", "pow", x, two)
	mean := f.reduce("mean", "reduce_mean", sq, -1, true)
	eps := f.floatScalar("add", "f16", rmsEps)
	r := f.unary("rsqrt", "rsqrt", f.bin("add", "add", mean, eps))
	y := f.bin("mul", "mul", x, r)
	w := f.weight("mul", key, values(key, hidden, dist{center: 1, spread: 0.1}), hidden)
	return f.bin("mul", "mul", y, w)
}

func (g *entryGraph) silu(x val) val {
	s := g.f.unary("sigmoid", "sigmoid", x)
	return g.f.bin("mul", "mul", x, s)
}

func (g *entryGraph) mlp(l int, x val) val {
	f := g.f
	p := fmt.Sprintf("model.layers.%d.", l)
	f.at(lineNorm)
	h := g.rmsNorm(p+"post_attention_layernorm.weight", x)
	f.at(lineMLP)
	gate := g.linear(h, p+"mlp.gate_proj.weight", mlpDim, hidden)
	up := g.linear(h, p+"mlp.up_proj.weight", mlpDim, hidden)
	act := f.bin("mul", "mul", g.silu(gate), up)
	down := g.linear(act, p+"mlp.down_proj.weight", hidden, mlpDim)
	return f.bin("add", "add", x, down)
}

// linearLayer is a gated-delta layer: projections, the causal conv over the
// conv state, the gates, the recurrence, the output projection.
func (g *entryGraph) linearLayer(l, li int, x val) val {
	f := g.f
	a := g.a
	p := fmt.Sprintf("model.layers.%d.", l)
	var conv, rec *stateVar
	for _, s := range g.states {
		if s.kind != "conv" && s.kind != "rec" || !s.stacked && s.layer != li {
			continue
		}
		if s.kind == "conv" {
			conv = s
		} else {
			rec = s
		}
	}
	f.at(lineNorm)
	h := g.rmsNorm(p+"input_layernorm.weight", x)
	f.at(lineInProj)
	qkv := g.linear(h, p+"linear_attn.in_proj_qkv.weight", convCh, hidden)
	bIn := g.linear(h, p+"linear_attn.in_proj_b.weight", linHeads, hidden)
	aIn := g.linear(h, p+"linear_attn.in_proj_a.weight", linHeads, hidden)

	// Causal depthwise conv over the window [conv state, this step].
	f.at(lineConv)
	cs := g.layerState(conv, li)
	xt := f.transpose("permute", qkv, 0, 2, 1) // [1, C, 1]
	window := f.concat("cat", 2, cs, xt)       // [1, C, K]
	var next val
	if a.ConvShift == "roll" {
		tail := f.sliceAxis("slice", cs, 2, 1, int32Max)
		next = f.concat("cat", 2, tail, xt)
	} else {
		next = f.sliceAxis("slice", window, 2, 1, int32Max)
	}
	g.writeState(conv, li, next)
	w4 := f.expand("unsqueeze", window, 2) // [1, C, 1, K]
	cw := f.weight("convolution", p+"linear_attn.conv1d.weight", values(p+"linear_attn.conv1d.weight", convCh*convK, fanIn(convK)), convCh, 1, 1, convK)
	y := f.conv2d("convolution", w4, cw, convCh) // [1, C, 1, 1]
	y = f.reshape("view", y, 1, 1, convCh)
	y = g.silu(y)
	f.at(lineSplit)
	parts := f.split("split_with_sizes", y, 2, linHeads*keyDim, linHeads*keyDim, linHeads*valueDim)
	heads := func(v val, d int64) val {
		r := f.reshape("view", v, 1, 1, linHeads, d)
		return f.transpose("permute", r, 0, 2, 1, 3) // [1, H, 1, d]
	}
	q, k, v := heads(parts[0], keyDim), heads(parts[1], keyDim), heads(parts[2], valueDim)

	// Gates: β = sigmoid(b), g = -exp(A_log)·softplus(a + dt_bias), with
	// softplus as torch decomposes it (threshold 20).
	f.at(lineGates)
	beta := f.transpose("permute", f.unary("sigmoid", "sigmoid", bIn), 0, 2, 1) // [1, H, 1]
	alog := f.weight("exp", p+"linear_attn.A_log", values(p+"linear_attn.A_log", linHeads, dist{center: 8.5, spread: 7.5, log: true}), linHeads)
	negA := f.bin("mul", "mul", f.unary("exp", "exp", alog), f.floatScalar("mul", "f16", -1))
	dt := f.weight("add", p+"linear_attn.dt_bias", values(p+"linear_attn.dt_bias", linHeads, dist{spread: 0.5}), linHeads)
	ad := f.bin("add", "add", aIn, dt)
	big := f.bin("gt", "greater", ad, f.floatScalar("gt", "f16", 20))
	sp := f.unary("log", "log", f.bin("add", "add", f.unary("exp", "exp", ad), f.floatScalar("add", "f16", 1)))
	soft := f.where("where", big, ad, sp)
	gate := f.transpose("permute", f.bin("mul", "mul", negA, soft), 0, 2, 1) // [1, H, 1]

	f.at(lineRec)
	st := g.layerState(rec, li)
	o, ns := g.recurrence(q, k, v, gate, beta, st)
	g.writeState(rec, li, ns)

	f.at(lineOutProj)
	o = f.reshape("view", o, 1, 1, linHeads*valueDim)
	out := g.linear(o, p+"linear_attn.out_proj.weight", hidden, linHeads*valueDim)
	return f.bin("add", "add", x, out)
}

// recurrence runs one gated-delta step inline or through a composite, with
// the casts where the case puts them. It returns the output [1, 1, H, dv]
// in fp16 and the new state in the state's element type.
func (g *entryGraph) recurrence(q, k, v, gate, beta, st val) (val, val) {
	f := g.f
	a := g.a
	site := a.Casts == "site"
	stateElem := st.t.elem
	if site {
		// The caller casts every operand of the recurrence to fp32.
		q, k, v = f.cast("_to_copy", q, "f32"), f.cast("_to_copy", k, "f32"), f.cast("_to_copy", v, "f32")
		beta, gate = f.cast("_to_copy", beta, "f32"), f.cast("_to_copy", gate, "f32")
		st = f.cast("_to_copy", st, "f32")
	}
	var o, ns val
	if a.Recurrence == "composite" {
		name := fmt.Sprintf("%s_%d", compositeDef, g.nComposite)
		g.nComposite++
		c := g.m.newFn()
		c.at(lineRecBody)
		ins := []port{{name: "query", t: q.t}, {name: "key", t: k.t}, {name: "value", t: v.t}, {name: "g", t: gate.t}, {name: "beta", t: beta.t}, {name: "initial_state", t: st.t}}
		cv := args(ins)
		co, cs := recBody(c, site, cv[0], cv[1], cv[2], cv[3], cv[4], cv[5])
		c.output(co, cs)
		g.composites = append(g.composites, &compositeFn{f: c, name: name, ins: ins, out: []port{{name: "output_0", t: co.t}, {name: "output_1", t: cs.t}}})
		r := f.invoke(compositeDef, name, []val{q, k, v, gate, beta, st}, co.t, cs.t)
		o, ns = r[0], r[1]
	} else {
		f.at(lineRecBody)
		o, ns = recBody(f, site, q, k, v, gate, beta, st)
		f.at(lineRec)
	}
	if site {
		o = f.cast("_to_copy", o, "f16")
		if stateElem == "f16" {
			ns = f.cast("_to_copy", ns, "f16")
		}
	}
	return o, ns
}

// recBody is coreai-torch's gated_delta_update forward for one step
// (coreai_torch/composite_ops/_gated_delta_update.py). Unless the operands
// arrive in fp32 already (site), it l2-normalises q and k in their own type,
// then casts q, k, v, β, g and (when fp16) the state to fp32, and casts the
// results back.
func recBody(f *fn, arrivedF32 bool, q, k, v, g, beta, s val) (val, val) {
	l2 := func(x val) val {
		sq := f.bin("mul", "mul", x, x)
		sum := f.reduce("sum", "reduce_sum", sq, -1, true)
		r := f.unary("rsqrt", "rsqrt", f.bin("add", "add", sum, f.floatScalar("add", x.t.elem, rmsEps)))
		return f.bin("mul", "mul", x, r)
	}
	q, k = l2(q), l2(k)
	stateF16 := s.t.elem == "f16"
	if !arrivedF32 {
		q, k, v = f.cast("_to_copy", q, "f32"), f.cast("_to_copy", k, "f32"), f.cast("_to_copy", v, "f32")
		beta, g = f.cast("_to_copy", beta, "f32"), f.cast("_to_copy", g, "f32")
	}
	q = f.bin("mul", "mul", q, f.floatScalar("mul", "f32", 1/math.Sqrt(keyDim)))
	if !arrivedF32 && stateF16 {
		s = f.cast("_to_copy", s, "f32")
	}
	ge := f.unary("exp", "exp", g)
	qt := f.transpose("transpose", q, 0, 1, 3, 2) // [1, H, dk, 1]
	kt := f.transpose("transpose", k, 0, 1, 3, 2)
	vt := f.shrink("squeeze", v, 2)    // [1, H, dv]
	gt := f.expand("unsqueeze", ge, 3) // [1, H, 1, 1]
	s = f.bin("mul", "mul", s, gt)
	km := f.reduce("sum", "reduce_sum", f.bin("mul", "mul", s, kt), -2, false) // [1, H, dv]
	d := f.expand("unsqueeze", f.bin("mul", "mul", f.bin("sub", "sub", vt, km), beta), 2)
	s = f.bin("add", "add", s, f.bin("mul", "mul", kt, d))
	ov := f.reduce("sum", "reduce_sum", f.bin("mul", "mul", s, qt), -2, false)
	o := f.transpose("transpose", f.expand("unsqueeze", ov, 2), 0, 2, 1, 3) // [1, 1, H, dv]
	if !arrivedF32 {
		o = f.cast("_to_copy", o, "f16")
		if stateF16 {
			s = f.cast("_to_copy", s, "f16")
		}
	}
	return o, s
}

// attentionLayer is full attention over the KV caches: the step's keys and
// values are written at position_ids, then softmax(q·Kᵀ/√d + mask)·V.
func (g *entryGraph) attentionLayer(l int, x val, kv []*stateVar, pos, mask val) val {
	f := g.f
	p := fmt.Sprintf("model.layers.%d.", l)
	f.at(lineNorm)
	h := g.rmsNorm(p+"input_layernorm.weight", x)
	f.at(lineAttn)
	heads := func(name string) val {
		y := g.linear(h, p+"self_attn."+name+".weight", attnHeads*headDim, hidden)
		return f.transpose("permute", f.reshape("view", y, 1, 1, attnHeads, headDim), 0, 2, 1, 3) // [1, Ha, 1, hd]
	}
	q, k, v := heads("q_proj"), heads("k_proj"), heads("v_proj")
	f.at(lineAttn + 4)
	begin := f.bin("mul", "mul", pos, f.intVec("mul", "si32", 0, 0, 1, 0))
	end := f.bin("add", "add", begin, f.intVec("add", "si32", 1, attnHeads, 1, headDim))
	stride := f.intVec("slice_scatter", "si32", 1, 1, 1, 1)
	var caches [2]val
	for i, upd := range []val{k, v} {
		s := kv[i]
		c := g.readState(s)
		caches[i] = f.sliceUpdate("slice_scatter", c, upd, begin, end, stride)
		g.writeState(s, 0, caches[i])
	}
	f.at(lineAttn + 8)
	kt := f.transpose("transpose", caches[0], 0, 1, 3, 2)
	scores := f.bin("mul", "mul", f.matmul("matmul", q, kt), f.floatScalar("mul", "f16", 1/math.Sqrt(headDim)))
	scores = f.bin("add", "add", scores, mask)
	pr := f.softmax("softmax", scores, -1)
	o := f.matmul("matmul", pr, caches[1]) // [1, Ha, 1, hd]
	o = f.reshape("view", f.transpose("transpose", o, 0, 2, 1, 3), 1, 1, attnHeads*headDim)
	out := g.linear(o, p+"self_attn.o_proj.weight", hidden, attnHeads*headDim)
	return f.bin("add", "add", x, out)
}
