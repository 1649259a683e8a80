package synth

import (
	"math"

	"github.com/anefix/anefix/graph"
)

// kvAttn is what the full attention of both builders shares (dense.go's
// arm E, qwen35.go's hybrid): Apple's iOS KV-cache write
// (primitives/ios/cache.py) and per-head SDPA (primitives/ios/sdpa.py),
// over the graph's caches, step and mask.
type kvAttn struct {
	*builder
	kc, vc *graph.Value // key and value caches [layers, 1, C, 1, ctx]; each write replaces them
	step   *graph.Value // in_step [1]
	mask   *graph.Value // causal_mask [1, ctx, 1, q]
}

// kvWrite is KVCacheHandler.update_and_fetch as coreai-models lowers it:
// begin/end from in_step, unsqueeze, slice_update of q tokens into layer li
// of the caches, then the layer's row. k, v are [1, C, 1, q]; returns the
// rows [1, C, 1, ctx].
func (a *kvAttn) kvWrite(li, q int64, k, v *graph.Value) (*graph.Value, *graph.Value) {
	c := shapeOf(k)[1]
	a.at("cat", fileKV, 91)
	begin := a.concat(0, a.si32(li), a.si32(0), a.si32(0), a.si32(0), a.step)
	a.at("add", fileKV, 100)
	endStep := a.add(a.step, a.si32(q))
	a.at("cat", fileKV, 98)
	end := a.concat(0, a.si32(li+1), a.si32(1), a.si32(c), a.si32(1), endStep)
	write := func(cache, upd *graph.Value, line int) (*graph.Value, *graph.Value) {
		a.at("unsqueeze", fileKV, line)
		u := a.expandDims(upd, 0)
		a.at("immutable_slice_update", fileKV, line)
		nc := a.sliceUpdate(cache, u, begin, end)
		a.at("slice", fileKV, line)
		row := a.narrow(nc, 0, li, 1)
		a.at("squeeze", fileKV, line)
		return nc, a.shrinkDims(row, 0)
	}
	var kr, vr *graph.Value
	a.kc, kr = write(a.kc, k, 155)
	a.vc, vr = write(a.vc, v, 164)
	return kr, vr
}

// sdpa is Apple's iOS per-head SDPA for q query positions with nh query
// heads, nkv KV heads (grouped) of hd each: q is [1, nh·hd, 1, q], k and v
// [1, nkv·hd, 1, ctx]; returns [1, nh·hd, 1, q].
func (a *kvAttn) sdpa(q, k, v *graph.Value, nh, nkv, hd int) *graph.Value {
	group := nh / nkv
	a.at("permute", fileSDPA, 95)
	kt := a.swap(k, -3, -1) // [1, ctx, 1, C]
	a.at("mul", fileSDPA, 95)
	kt = a.mul(kt, a.scalar(1/math.Sqrt(float64(hd)), graph.F16))
	hd64 := int64(hd)
	keys := make([]*graph.Value, nkv)
	for j := range keys {
		a.at("slice", fileSDPA, 97)
		kj := a.narrow(kt, 3, int64(j)*hd64, hd64)
		a.at("permute", fileSDPA, 101)
		keys[j] = a.transpose(kj, 0, 2, 3, 1) // [1, 1, hd, ctx]
	}
	scores := make([]*graph.Value, nh)
	for i := range scores {
		a.at("slice", fileSDPA, 96)
		qi := a.narrow(q, 1, int64(i)*hd64, hd64)
		a.at("permute", fileSDPA, 107)
		qi = a.transpose(qi, 0, 2, 3, 1) // [1, 1, q, hd]
		a.at("matmul", fileSDPA, 109)
		s := a.matmul(qi, keys[i/group]) // [1, 1, q, ctx]
		a.at("permute", fileSDPA, 110)
		scores[i] = a.transpose(s, 0, 3, 1, 2) // [1, ctx, 1, q]
	}
	a.at("cat", fileSDPA, 113)
	all := a.concat(2, scores...) // [1, ctx, nh, q]
	masks := make([]*graph.Value, nh)
	for i := range masks {
		masks[i] = a.mask
	}
	a.at("cat", fileSDPA, 114)
	mk := a.concat(2, masks...)
	a.at("add", fileSDPA, 114)
	all = a.add(all, mk)
	a.at("softmax", fileSDPA, 116)
	all = a.softmax(all, 1)
	vals := make([]*graph.Value, nkv)
	for j := range vals {
		a.at("slice", fileSDPA, 119)
		vj := a.narrow(v, 1, int64(j)*hd64, hd64)
		a.at("permute", fileSDPA, 121)
		vj = a.transpose(vj, 0, 2, 3, 1) // [1, 1, ctx, hd]
		a.at("squeeze", fileSDPA, 121)
		vals[j] = a.shrinkDims(vj, 1) // [1, ctx, hd]
	}
	outs := make([]*graph.Value, nh)
	for i := range outs {
		a.at("slice", fileSDPA, 117)
		si := a.narrow(all, 2, int64(i), 1)
		a.at("permute", fileSDPA, 125)
		si = a.transpose(si, 0, 2, 3, 1) // [1, 1, q, ctx]
		a.at("squeeze", fileSDPA, 125)
		si = a.shrinkDims(si, 1) // [1, q, ctx]
		a.at("bmm", fileSDPA, 127)
		w := a.matmul(si, vals[i/group]) // [1, q, hd]
		a.at("unsqueeze", fileSDPA, 127)
		w = a.expandDims(w, 1) // [1, 1, q, hd]
		a.at("permute", fileSDPA, 128)
		outs[i] = a.transpose(w, 0, 3, 1, 2) // [1, hd, 1, q]
	}
	a.at("cat", fileSDPA, 131)
	return a.concat(1, outs...)
}
