package synth

import (
	"fmt"
	"io"
	"math"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
)

// dense builds arm E: Apple's iOS Qwen3 builder (coreai-models
// models/ios/qwen3.py) specialized into static functions, fp16 end to end,
// BC1S, KV caches as states, the embedding table a graph input (tied head
// computed as table @ hidden, as Apple's extend does).
type dense struct {
	kvAttn   // the builder, the caches, in_step and the mask
	d        denseDims
	ctx, q   int
	cos, sin *graph.Value
}

// Function names of arm E, in module order: extend_{ctx}_{q} for every
// cache length of the ladder and query bucket, then prompt_opt_{ctx}_{q},
// then gather_embeddings_{gatherLen}.
func denseFunctionNames(maxCtx int) []string {
	var ext, pro []string
	for c := minCacheLen; c <= maxCtx; c *= 2 {
		for _, q := range queryBuckets {
			ext = append(ext, fmt.Sprintf("extend_%d_%d", c, q))
			pro = append(pro, fmt.Sprintf("prompt_opt_%d_%d", c, q))
		}
	}
	return append(append(ext, pro...), fmt.Sprintf("gather_embeddings_%d", gatherLen))
}

func buildDense(m *graph.Module, o Options) error {
	d := o.denseDims()
	if d.Layers < 1 {
		return fmt.Errorf("synth: need at least one layer")
	}
	b := newBuilder(m, o.Seed, map[string]*blob{})
	rope := newRopeTables(d)
	m.AddResource(rope[0].key, 2, rope[0])
	m.AddResource(rope[1].key, 2, rope[1])
	for _, prefill := range []bool{false, true} {
		for c := minCacheLen; c <= o.Ctx; c *= 2 {
			for _, q := range queryBuckets {
				e := &dense{kvAttn: kvAttn{builder: b}, d: d, ctx: c, q: q}
				e.function(prefill, rope)
			}
		}
	}
	gatherFunction(b, d)
	return nil
}

// gatherFunction is gather_embeddings_N: table[ids] for a float table.
func gatherFunction(b *builder, d denseDims) {
	args := b.newGraph(fmt.Sprintf("gather_embeddings_%d", gatherLen), []port{
		{name: "in_new_token_ids", typ: graph.Tensor(graph.SI32, 1, int64(gatherLen))},
		{name: "embedding_table", typ: graph.Tensor(graph.F16, int64(d.Vocab), 1, int64(d.Hidden))},
	})
	b.stack = nil
	b.push(fileBase, 861)
	b.at("index", fileEmb, 58)
	x := b.gatherND(args[1], b.expandDims(args[0], 2)) // [1, N, 1, H]
	b.pop()
	b.output([]port{{name: "gathered_embeddings"}}, []*graph.Value{x})
}

func (e *dense) function(prefill bool, rope [2]*ropeTable) {
	d := e.d
	q, ctx := int64(e.q), int64(e.ctx)
	kvC := int64(d.KVHeads * d.HeadDim)
	L := int64(d.Layers)
	name := fmt.Sprintf("extend_%d_%d", e.ctx, e.q)
	if prefill {
		name = fmt.Sprintf("prompt_opt_%d_%d", e.ctx, e.q)
	}
	args := e.newGraph(name, []port{
		{name: "transformer_input", typ: graph.Tensor(graph.F16, 1, q, 1, int64(d.Hidden))},
		{name: "position_ids", typ: graph.Tensor(graph.UI16, 1, q)},
		{name: "in_step", typ: graph.Tensor(graph.SI32, 1)},
		{name: "causal_mask", typ: graph.Tensor(graph.F16, 1, ctx, 1, q)},
		{name: "key_cache", typ: graph.Tensor(graph.F16, L, 1, kvC, 1, ctx), state: "new_k_cache"},
		{name: "value_cache", typ: graph.Tensor(graph.F16, L, 1, kvC, 1, ctx), state: "new_v_cache"},
		{name: "embedding_table", typ: graph.Tensor(graph.F16, int64(d.Vocab), 1, int64(d.Hidden))},
	})
	x, pos := args[0], args[1]
	e.step, e.mask, e.kc, e.vc = args[2], args[3], args[4], args[5]
	table := args[6]
	e.stack = nil

	// RoPE: gather the cached cos/sin rows for position_ids.
	e.push(fileQ3, 197)
	e.at("rope_gather_cached_cos_sin", fileRope, 24)
	p := e.expandDims(e.cast(pos, graph.SI32), 2) // [1, q, 1]
	cosT := e.constant(&graph.DenseResourceAttr{Key: rope[0].key, Type: rope[0].typ()}, rope[0].typ())
	sinT := e.constant(&graph.DenseResourceAttr{Key: rope[1].key, Type: rope[1].typ()}, rope[1].typ())
	e.cos = e.gatherND(cosT, p) // [1, q, hd]
	e.sin = e.gatherND(sinT, p)
	e.pop()

	for i := 0; i < d.Layers; i++ {
		e.push(fileQ3, 200)
		e.push(fileQ3, 160)
		x = e.layer(i, x)
		e.pop()
		e.pop()
	}
	e.push(fileQ3, 200)
	e.push(fileQ3, 170)
	x = e.norm("extend.model.norm.weight", x)
	e.pop()
	e.pop()

	var out *graph.Value
	if prefill {
		// prefill_mode: keep the cache writes alive, skip the head.
		e.at("select", fileQ3, 210)
		kz := e.reshape(e.slice(e.kc, make([]int64, 5), []int64{1, 1, 1, 1, 1}))
		e.at("select", fileQ3, 210)
		vz := e.reshape(e.slice(e.vc, make([]int64, 5), []int64{1, 1, 1, 1, 1}))
		e.at("add", fileQ3, 210)
		out = e.add(kz, vz)
	} else {
		e.at("view", fileQ3, 223)
		t := e.reshape(table, 1, int64(d.Vocab), int64(d.Hidden))
		e.at("permute", fileQ3, 225)
		o := e.swap(x, -3, -1) // [1, H, 1, q]
		e.at("view", fileQ3, 225)
		o = e.reshape(o, 1, 1, int64(d.Hidden), q)
		e.at("matmul", fileQ3, 226)
		lg := e.matmul(t, o) // [1, 1, V, q]
		e.at("permute", fileQ3, 226)
		out = e.swap(lg, -2, -1) // [1, 1, q, V]
	}
	e.output([]port{{name: "new_k_cache"}, {name: "new_v_cache"}, {name: "out_logits"}},
		[]*graph.Value{e.kc, e.vc, out})
}

// norm is Apple's iOS RMSNorm in fp16 over the last axis.
func (e *dense) norm(key string, x *graph.Value) *graph.Value {
	n := shapeOf(x)[len(shapeOf(x))-1]
	e.at("mul", fileNorm, 41)
	sq := e.mul(x, x)
	e.at("mean", fileNorm, 42)
	ms := e.reduce("mean", sq, -1)
	e.at("add", fileNorm, 43)
	ms = e.add(ms, e.scalar(e.d.Eps, graph.F16))
	e.at("rsqrt", fileNorm, 43)
	inv := e.unary("rsqrt", ms)
	e.at("mul", fileNorm, 44)
	y := e.mul(x, inv)
	e.at("mul", fileNorm, 47)
	return e.mul(y, e.weight(key, normWeight, n))
}

func (e *dense) conv(key string, x *graph.Value, cout int64) *graph.Value {
	cin := shapeOf(x)[1]
	return e.conv1x1(x, e.weight(key, normal(1/math.Sqrt(float64(cin))), cout, cin, 1, 1))
}

func (e *dense) layer(i int, x *graph.Value) *graph.Value {
	p := fmt.Sprintf("extend.model.layers.%d.", i)
	e.push(fileQ3, 131)
	n := e.norm(p+"input_layernorm.weight", x)
	e.pop()
	e.push(fileQ3, 131)
	r := e.attention(i, p+"self_attn.", n)
	e.pop()
	e.at("add", fileQ3, 139)
	x = e.add(x, r)
	e.push(fileQ3, 140)
	n = e.norm(p+"post_attention_layernorm.weight", x)
	r = e.mlp(p+"mlp.", n)
	e.pop()
	e.at("add", fileQ3, 141)
	return e.add(x, r)
}

func (e *dense) mlp(p string, x *graph.Value) *graph.Value {
	hid, inter, q := int64(e.d.Hidden), int64(e.d.Intermediate), int64(e.q)
	e.at("view", fileMLP, 39)
	t := e.reshape(x, q, hid, 1, 1)
	e.at("convolution", fileMLP, 40)
	up := e.conv(p+"up_proj.weight", t, inter)
	e.at("convolution", fileMLP, 41)
	g := e.conv(p+"gate_proj.weight", t, inter)
	e.at("silu", fileMLP, 41)
	g = e.unary("silu", g)
	e.at("mul", fileMLP, 42)
	m := e.mul(up, g)
	e.at("convolution", fileMLP, 42)
	dn := e.conv(p+"down_proj.weight", m, hid)
	e.at("view", fileMLP, 43)
	return e.reshape(dn, 1, q, 1, hid)
}

func (e *dense) rope(x *graph.Value) *graph.Value {
	hd := shapeOf(x)[3]
	e.at("unsqueeze", fileRope, 31)
	c := e.expandDims(e.cos, 1) // [1, 1, q, hd]
	e.at("unsqueeze", fileRope, 32)
	s := e.expandDims(e.sin, 1)
	e.at("slice", fileRope, 15)
	x1 := e.narrow(x, 3, 0, hd/2)
	e.at("slice", fileRope, 16)
	x2 := e.narrow(x, 3, hd/2, hd/2)
	e.at("neg", fileRope, 17)
	x2 = e.mul(x2, e.scalar(-1, graph.F16))
	e.at("cat", fileRope, 17)
	rh := e.concat(-1, x2, x1)
	e.at("mul", fileRope, 35)
	a := e.mul(x, c)
	e.at("mul", fileRope, 35)
	bb := e.mul(rh, s)
	e.at("add", fileRope, 35)
	return e.add(a, bb)
}

// attention follows Apple's iOS Qwen3 attention; x is [1, q, 1, H].
func (e *dense) attention(li int, p string, x *graph.Value) *graph.Value {
	d := e.d
	nh, nkv, hd, q := int64(d.Heads), int64(d.KVHeads), int64(d.HeadDim), int64(e.q)
	e.at("permute", fileQ3, 60)
	xt := e.swap(x, -3, -1) // [1, H, 1, q]
	e.at("convolution", fileQ3, 61)
	qv := e.conv(p+"q_proj.weight", xt, nh*hd)
	e.at("convolution", fileQ3, 62)
	kv := e.conv(p+"k_proj.weight", xt, nkv*hd)
	e.at("convolution", fileQ3, 63)
	vv := e.conv(p+"v_proj.weight", xt, nkv*hd)

	heads := func(v *graph.Value, n int64, line int) *graph.Value {
		e.at("permute", fileQ3, line)
		v = e.swap(v, -3, -1) // [1, q, 1, n·hd]
		e.at("view", fileQ3, line)
		v = e.reshape(v, 1, q, n, hd)
		e.at("permute", fileQ3, line)
		return e.swap(v, -2, -3) // [1, n, q, hd]
	}
	qv = heads(qv, nh, 66)
	kv = heads(kv, nkv, 71)
	e.push(fileQ3, 76)
	qv = e.norm(p+"q_norm.weight", qv)
	e.pop()
	e.push(fileQ3, 77)
	kv = e.norm(p+"k_norm.weight", kv)
	e.pop()
	e.push(fileQ3, 84)
	qv = e.rope(qv)
	e.pop()
	e.push(fileQ3, 85)
	kv = e.rope(kv)
	e.pop()
	back := func(v *graph.Value, n int64, line int) *graph.Value {
		e.at("permute", fileQ3, line)
		v = e.swap(v, -2, -3) // [1, q, n, hd]
		e.at("view", fileQ3, line)
		v = e.reshape(v, 1, q, 1, n*hd)
		e.at("permute", fileQ3, line)
		return e.swap(v, -3, -1) // [1, n·hd, 1, q]
	}
	qv = back(qv, nh, 88)
	kv = back(kv, nkv, 93)

	e.push(fileQ3, 100)
	kAll, vAll := e.kvWrite(int64(li), q, kv, vv)
	e.pop()
	e.push(fileQ3, 108)
	o := e.sdpa(qv, kAll, vAll, d.Heads, d.KVHeads, d.HeadDim)
	e.pop()
	e.at("convolution", fileQ3, 109)
	o = e.conv(p+"o_proj.weight", o, int64(d.Hidden))
	e.at("permute", fileQ3, 110)
	return e.swap(o, -3, -1)
}

// ropeTable is a cos or sin table [MaxPositions, HeadDim] in fp16,
// computed on demand like Apple's RoPECache buffers (theta_i =
// base^(−2i/hd), emb = [freqs, freqs]).
type ropeTable struct {
	key  string
	sin  bool
	rows int64
	hd   int64
	inv  []float64
}

func newRopeTables(d denseDims) [2]*ropeTable {
	inv := make([]float64, d.HeadDim/2)
	for i := range inv {
		inv[i] = 1 / math.Pow(d.RopeTheta, float64(2*i)/float64(d.HeadDim))
	}
	mk := func(key string, sin bool) *ropeTable {
		return &ropeTable{key: key, sin: sin, rows: int64(d.MaxPositions), hd: int64(d.HeadDim), inv: inv}
	}
	return [2]*ropeTable{mk("extend.rope.cos_cached", false), mk("extend.rope.sin_cached", true)}
}

func (r *ropeTable) typ() *graph.TensorType { return graph.Tensor(graph.F16, r.rows, r.hd) }

// Size implements graph.BlobSource.
func (r *ropeTable) Size() int64 { return 2 * r.rows * r.hd }

// ReadAt implements graph.BlobSource.
func (r *ropeTable) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) && off+int64(n) < r.Size() {
		b := off + int64(n)
		i := b / 2
		pos, j := i/r.hd, i%r.hd
		ang := float64(pos) * r.inv[j%(r.hd/2)]
		v := math.Cos(ang)
		if r.sin {
			v = math.Sin(ang)
		}
		h := f16.FromFloat64(v)
		p[n] = byte(h >> (8 * uint(b%2)))
		n++
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
