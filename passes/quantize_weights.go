package passes

import (
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/internal/ops"
)

var quantizeWeightsAbout = About{
	Summary: "replace weight constants by linear int8 or int4 data and scales (coreai.blockwise_shift_scale)",
	Doc: `Each selected weight becomes blockwise_shift_scale(data, scale, zero_point,
offset) in the form apple/coreai-optimization's quantize_weights emits
(src/coreai_opt/coreai_utils/passes/weight_quantization.py): data of type
dtype= (si8, ui8, si4, ui4) with the weight's shape, a scale in the weight's
float type and a zero point in dtype, both of the weight's rank with one
entry per block, and a zero offset in the weight's type; the result is the
weight's type. Block sizes per axis follow coreai-optimization
(_infer_quantization_block_sizes, _utils/graph_utils.py): per-tensor one
block; per-channel one block per output channel; per-block one per output
channel and block-size input channels (a [C_out, C_in] weight: blocks
[1, 32]). Output and input axes are chosen as palettize chooses them.

rules= sets dtype, qscheme, granularity or block-size per weight pattern
as palettize's rules= sets its palettes (first match wins; skip leaves a
weight alone), e.g. *mlp*:granularity=per-block:block-size=64,*embed*:skip.

The parameters are coreai-optimization's (_utils/quantize_utils.py):
symmetric (default) takes ±max|w| of the block, q in [−127, 127] for si8
([−7, 7] for si4), or [0, 254] with zero point 127 for ui8 ([0, 14], 7 for
ui4); asymmetric takes [min(0, min w), max(0, max w)], the whole range and a
rounded, clipped zero point; scale = (max − min + 1e-6)/(q_max − q_min).
anefix computes them in float64, stores the scale in the weight's type and
quantizes with that stored scale (q = round-half-even(w/scale) + zero
point, clipped), so the data matches the scale the program uses;
coreai-optimization computes in the weight's own precision. A stored scale
whose extreme step would round past the type's largest value (±65504 f16
weights at si8: 516·127 = 65532, inf) is lowered to the largest that stays
finite, one that rounds to 0 for a block with a range takes the type's
smallest positive value (all-subnormal f16 weights come back exactly), and
a weight whose every nonzero value would still come back as 0 is left as
it is, with a note. Sub-byte data
is a packed dense_resource (graph/subbyte.go), 8-bit data a blob too;
both are computed again while the output is written.

Linear INT4 weights are what check's linear-int4 rule calls a blocker
(apple/coreai-models #55, #205: such programs got no Neural Engine
region): dtype=si4 or ui4 is done, with a warning in the notes, and
legalize-weights turns the result into legal palettes. The report gives,
per weight, bytes before and after and the SNR in dB. A blob read by
constants of several functions is quantized once.

Cost: the block ranges and the error take two reads of every weight, the
data a third as it is written; memory stays one batch of blocks.

` + weightSelectDoc,
	Addresses: "linear weight quantization after export (coreai-optimization's quantize_weights works on a program in memory, in Python)",
}

// quantizeWeightsOptions are quantize-weights' options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type quantizeWeightsOptions struct {
	DType       string
	QScheme     string
	Granularity string
	BlockSize   int
	Ops         []string
	Weights     []string
	Exclude     []string
	TiedHead    bool
	MinElements int
	Rules       []weightRule
}

func (o *quantizeWeightsOptions) declare(d *Decls) {
	o.declareQuant(d)
	declareWeightSelect(d, &o.Ops, &o.Weights, &o.Exclude, &o.TiedHead, &o.MinElements)
	declareRules(d, &o.Rules, (*quantizeWeightsOptions).declareQuant)
}

// declareQuant declares the options that say how a weight is quantized:
// the ones a rule may set.
func (o *quantizeWeightsOptions) declareQuant(d *Decls) {
	Declare(d, &o.DType, Option[string]{Name: "dtype", Default: "si8", Doc: "integer type of the quantized weights (4-bit: check's linear-int4 blocker)", Values: []string{"si8", "ui8", "si4", "ui4"}})
	Declare(d, &o.QScheme, Option[string]{Name: "qscheme", Default: "symmetric", Doc: "the range a block quantizes: symmetric ±max|w|, or asymmetric [min(0, min w), max(0, max w)]", Values: []string{"symmetric", "asymmetric"}})
	Declare(d, &o.Granularity, Option[string]{Name: "granularity", Default: "per-channel", Doc: "one scale per tensor, per output channel, or per block of block-size input channels", Values: []string{"per-tensor", "per-channel", "per-block"}})
	Declare(d, &o.BlockSize, Option[int]{Name: "block-size", Default: 32, Doc: "input channels per block with per-block", Check: checkPositive})
}

func quantizeWeights(ctx *Context, gm *graph.Module, o *quantizeWeightsOptions) (*Change, error) {
	m := newWeightModule(gm)
	opts, err := ruleOptions(o, o.Rules, (*quantizeWeightsOptions).declareQuant)
	if err != nil {
		return nil, fmt.Errorf("quantize-weights: %v", err)
	}
	forms := make([]string, len(opts))
	for i, x := range opts {
		forms[i] = quantForm(x)
	}
	sel := weightSelect{Ops: o.Ops, Weights: o.Weights, Exclude: o.Exclude, TiedHead: o.TiedHead, MinElements: o.MinElements}
	ws, notes := sel.pick(m)
	ch := &Change{Notes: notes}
	rt := newRuleTable(o.Rules, forms)
	if len(ws) == 0 {
		rt.finish(ch)
		return ch, nil
	}
	ws = rt.assign(ws, ch)
	warned := false
	err = compressWeights(ctx, m, ws, ch, "quantize-weights", "quantized",
		func(w *weightConst) error {
			if need := quantHeap(w, opts[w.rule]); ctx.MaxMemory > 0 && need > ctx.MaxMemory {
				return overMemory("quantize-weights", w.op, w.name(), w.typ, need, ctx.MaxMemory, "use granularity=per-channel or a larger block-size")
			}
			return nil
		},
		func(qp *quantPlan) *shared { return &qp.sh },
		func(w *weightConst) (*quantPlan, leftWhy, error) {
			qp, skip, err := planQuant(newFloatReader(w.blob, w.elem), w, opts[w.rule])
			return qp, leftWhy{skip, quantHint(w, opts[w.rule], skip)}, err
		},
		func(qp *quantPlan, w *weightConst, first bool) *graph.Value {
			out, after := qp.emit(m, w, ch)
			if first {
				ch.Compressed = append(ch.Compressed, CompressedWeight{Op: ref(w.g, w.op), Resource: w.res, Type: w.typ.String(),
					Form: qp.form(), Group: qp.inBlock, BytesBefore: w.bytes(), BytesAfter: after,
					SignalPower: qp.signal, ErrorPower: qp.err, SNR: snrDB(qp.signal, qp.err), Rule: w.rule,
					Name: w.label(), key: w.ruleKey()})
			}
			if dt := opts[w.rule].DType; (dt == "si4" || dt == "ui4") && !warned {
				ch.Notes = append(ch.Notes, "warning: linear INT4 weights: check reports them as a blocker (linear-int4: such programs got no Neural Engine region); legalize-weights turns them into legal palettes")
				warned = true
			}
			return out
		})
	if err != nil {
		return nil, err
	}
	rt.finish(ch)
	return ch, nil
}

// quantHint is a setting under which quantize-weights would take weight w
// that o left for skip: a block size that divides its input channels; ""
// otherwise (values no scale can hold).
func quantHint(w *weightConst, o *quantizeWeightsOptions, skip string) string {
	if skip == "" || o.Granularity != "per-block" || w.inAxis < 0 {
		return ""
	}
	if n := w.typ.Shape[w.inAxis]; n%int64(o.BlockSize) != 0 {
		return fmt.Sprintf("block-size=%d", nearestDivisor(n, int64(o.BlockSize), 1))
	}
	return ""
}

// quantHeap is planQuant's estimated peak for weight w (compress.go): per
// block its range, scale, zero point and done flag (23 bytes), per output
// channel its signal and error sums and block offset, the block offsets of
// the other axes, and the batches of whole channels it reads.
func quantHeap(w *weightConst, o *quantizeWeightsOptions) int64 {
	geo := newGeometry(w.typ.Shape, w.axis)
	nb := int64(1)
	switch o.Granularity {
	case "per-channel":
		nb = geo.channels
	case "per-block":
		nb = geo.channels
		if w.inAxis >= 0 && o.BlockSize > 0 {
			nb *= max(1, w.typ.Shape[w.inAxis]/int64(o.BlockSize))
		}
	}
	return nb*23 + geo.channels*24 + (geo.outer+geo.inner)*8 + batchHeap(geo, 1, newFloatReader(w.blob, w.elem).eb)
}

// quantPlan is one weight's linear quantization.
type quantPlan struct {
	r          floatReader
	typ        *graph.TensorType
	o          *quantizeWeightsOptions
	bits       int
	signed     bool
	qmin, qmax float64
	sshape     []int64 // scale shape (the weight's rank)
	blk        []int64 // block extent per axis
	inBlock    int64
	geo        geometry // around the output axis
	axis       int
	// per output channel, per outer and inner position: the block offset
	bo, bi []int64
	bc     []int64
	scale  []float32 // per block, in the weight's type
	zp     []int16   // per block
	signal float64
	err    float64
	sh     shared
}

func (qp *quantPlan) form() string { return quantForm(qp.o) }

// quantForm describes the quantization o gives, for reports.
func quantForm(o *quantizeWeightsOptions) string {
	g := o.Granularity
	if g == "per-block" {
		g = fmt.Sprintf("per-block %d", o.BlockSize)
	}
	return fmt.Sprintf("linear %s, %s, %s", o.DType, g, o.QScheme)
}

// planQuant computes a weight's scales and zero points (coreai-optimization's
// _compute_qparams_by_dtype) and its error.
func planQuant(r floatReader, w *weightConst, o *quantizeWeightsOptions) (*quantPlan, string, error) {
	qp := &quantPlan{r: r, typ: w.typ, o: o, axis: w.axis}
	qp.bits = 8
	if o.DType == "si4" || o.DType == "ui4" {
		qp.bits = 4
	}
	qp.signed = o.DType[0] == 's'
	full := math.Ldexp(1, qp.bits)
	if qp.signed {
		qp.qmin, qp.qmax = -full/2, full/2-1
		if o.QScheme == "symmetric" {
			qp.qmin++
		}
	} else {
		qp.qmin, qp.qmax = 0, full-1
		if o.QScheme == "symmetric" {
			qp.qmax--
		}
	}
	rank := w.typ.Rank()
	qp.blk = make([]int64, rank)
	copy(qp.blk, w.typ.Shape) // one block over each axis unless split
	switch o.Granularity {
	case "per-channel":
		qp.blk[w.axis] = 1
	case "per-block":
		qp.blk[w.axis] = 1
		if w.inAxis >= 0 {
			if w.typ.Shape[w.inAxis]%int64(o.BlockSize) != 0 {
				return nil, fmt.Sprintf("its %d input channels (axis %d) are not a multiple of block-size %d", w.typ.Shape[w.inAxis], w.inAxis, o.BlockSize), nil
			}
			qp.blk[w.inAxis] = int64(o.BlockSize)
			qp.inBlock = int64(o.BlockSize)
		}
	}
	qp.sshape = make([]int64, rank)
	nb := int64(1)
	for d := range qp.sshape {
		qp.sshape[d] = w.typ.Shape[d] / qp.blk[d]
		nb *= qp.sshape[d]
	}
	qp.geo = newGeometry(w.typ.Shape, w.axis)
	qp.blockOffsets()
	// Block ranges: the largest and smallest value of every block.
	lo, hi := make([]float64, nb), make([]float64, nb)
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	// Blocks lie within one output channel except the per-tensor one, so
	// batches (whole channels) touch disjoint blocks: a batch's blocks are
	// complete when its range loop ends, and their parameters and error are
	// computed from the same read. The single per-tensor block is reduced
	// per batch and merged, and its error needs a second read.
	qp.scale, qp.zp = make([]float32, nb), make([]int16, nb)
	done := make([]bool, nb)
	csig, cerr := make([]float64, qp.geo.channels), make([]float64, qp.geo.channels)
	cnz, cfl := make([]float64, qp.geo.channels), make([]float64, qp.geo.channels) // nonzero values, those that become 0
	channelErrors := func(b *groupBatch) {
		for c := b.c0; c < b.c1; c++ {
			var sig, e, nz, fl float64
			qp.eachChannel(b, c, func(x float64, blk int64) {
				if !done[blk] {
					s, z := qp.params(lo[blk], hi[blk])
					qp.scale[blk], qp.zp[blk] = float32(s), int16(z)
					done[blk] = true
				}
				y := qp.recon(x, blk)
				d := x - y
				sig += x * x
				e += d * d
				if x != 0 {
					nz++
					if y == 0 {
						fl++
					}
				}
			})
			csig[c], cerr[c], cnz[c], cfl[c] = sig, e, nz, fl
		}
	}
	var mu sync.Mutex
	bad := int64(0)
	err := forGroupBatches(r, qp.geo, 1, func(b *groupBatch) error {
		n := int64(0)
		blo, bhi := math.Inf(1), math.Inf(-1)
		qp.each(b, func(x float64, blk int64) {
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				n++
			case nb == 1:
				blo, bhi = math.Min(blo, x), math.Max(bhi, x)
			default:
				lo[blk], hi[blk] = math.Min(lo[blk], x), math.Max(hi[blk], x)
			}
		})
		if nb > 1 && n == 0 {
			channelErrors(b)
		}
		mu.Lock()
		bad += n
		if nb == 1 {
			lo[0], hi[0] = math.Min(lo[0], blo), math.Max(hi[0], bhi)
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if bad > 0 {
		return nil, fmt.Sprintf("%d of its values are NaN or infinite", bad), nil
	}
	if nb == 1 {
		s, z := qp.params(lo[0], hi[0])
		qp.scale[0], qp.zp[0] = float32(s), int16(z)
		done[0] = true // before the batches run at once
		err = forGroupBatches(r, qp.geo, 1, func(b *groupBatch) error {
			channelErrors(b)
			return nil
		})
	}
	var nz, fl float64
	for c := range csig {
		qp.signal += csig[c]
		qp.err += cerr[c]
		nz += cnz[c]
		fl += cfl[c]
	}
	if err != nil {
		return nil, "", err
	}
	if why := lossNote(qp.err, nz, fl); why != "" {
		return nil, why, nil
	}
	return qp, "", nil
}

// params is a block's scale (rounded to the weight's type, and kept so
// that every step of the block reconstructs finitely: fitScale) and zero
// point.
func (qp *quantPlan) params(lo, hi float64) (scale, zp float64) {
	const eps = 1e-6
	vmin, vmax := lo, hi
	if qp.o.QScheme == "symmetric" {
		m := math.Max(math.Abs(lo), math.Abs(hi))
		vmin, vmax = -m, m
	} else {
		vmin, vmax = math.Min(0, lo), math.Max(0, hi)
	}
	switch {
	case qp.o.QScheme == "symmetric" && !qp.signed:
		zp = math.Floor(qp.qmax / 2)
	case qp.o.QScheme == "asymmetric":
		zp = math.RoundToEven((qp.qmin*vmax - qp.qmax*vmin) / (vmax - vmin + eps))
		zp = math.Max(qp.qmin, math.Min(qp.qmax, zp))
	}
	scale = roundTo(qp.r.elem, (vmax-vmin+eps)/(qp.qmax-qp.qmin))
	if scale == 0 && vmax == vmin { // an all-zero block of an f16 weight: any positive scale gives 0
		scale = roundTo(qp.r.elem, math.SmallestNonzeroFloat32)
		if scale == 0 {
			scale = 1
		}
	}
	return fitScale(qp.r.elem, scale, math.Max(qp.qmax-zp, zp-qp.qmin), vmax > vmin), zp
}

// quant is the stored integer of value x in block blk.
func (qp *quantPlan) quant(x float64, blk int64) float64 {
	q := math.RoundToEven(x/float64(qp.scale[blk])) + float64(qp.zp[blk])
	return math.Max(qp.qmin, math.Min(qp.qmax, q))
}

// recon is the value blockwise_shift_scale computes for x's integer.
func (qp *quantPlan) recon(x float64, blk int64) float64 {
	return roundTo(qp.r.elem, float64(qp.scale[blk])*(qp.quant(x, blk)-float64(qp.zp[blk])))
}

// blockOffsets precomputes the flat block index of each outer position,
// channel and inner position: element (o, c, i) is in block bo[o]+bc[c]+bi[i].
func (qp *quantPlan) blockOffsets() {
	shape, rank := qp.typ.Shape, qp.typ.Rank()
	sst := make([]int64, rank) // scale strides
	s := int64(1)
	for d := rank - 1; d >= 0; d-- {
		sst[d] = s
		s *= qp.sshape[d]
	}
	part := func(dims []int) []int64 {
		n := int64(1)
		for _, d := range dims {
			n *= shape[d]
		}
		out := make([]int64, n)
		for k := int64(0); k < n; k++ {
			rem, off := k, int64(0)
			for j := len(dims) - 1; j >= 0; j-- {
				d := dims[j]
				c := rem % shape[d]
				rem /= shape[d]
				off += c / qp.blk[d] * sst[d]
			}
			out[k] = off
		}
		return out
	}
	var before, after []int
	for d := 0; d < rank; d++ {
		switch {
		case d < qp.axis:
			before = append(before, d)
		case d > qp.axis:
			after = append(after, d)
		}
	}
	qp.bo, qp.bi = part(before), part(after)
	qp.bc = part([]int{qp.axis})
}

// each calls f on every element of a batch with its block.
func (qp *quantPlan) each(b *groupBatch, f func(x float64, blk int64)) {
	for c := b.c0; c < b.c1; c++ {
		qp.eachChannel(b, c, f)
	}
}

func (qp *quantPlan) eachChannel(b *groupBatch, c int64, f func(x float64, blk int64)) {
	geo := qp.geo
	for o := int64(0); o < geo.outer; o++ {
		base := int(o*b.run + (c-b.c0)*geo.inner)
		for i := int64(0); i < geo.inner; i++ {
			f(qp.r.value(b.raw, base+int(i)), qp.bo[o]+qp.bc[c]+qp.bi[i])
		}
	}
}

func (qp *quantPlan) dataType() *graph.IntegerType {
	sg := graph.Unsigned
	if qp.signed {
		sg = graph.Signed
	}
	return &graph.IntegerType{Width: qp.bits, Signedness: sg}
}

// emit writes data, scale, zero point and offset and the
// blockwise_shift_scale before the weight; it returns the new value and
// the new constants' bytes.
func (qp *quantPlan) emit(m *weightModule, w *weightConst, ch *Change) (*graph.Value, int64) {
	loc := ops.PassLoc("quantize-weights", w.op.Loc)
	var after int64
	size := func(a graph.Attr) {
		switch x := a.(type) {
		case *graph.DenseElementsAttr:
			after += int64(len(x.Raw))
		case *graph.DenseResourceAttr:
			if r := m.Resource(x.Key); r != nil && r.Blob != nil {
				after += r.Blob.Size()
			}
		}
	}
	konst := func(mk func() (graph.Attr, *graph.TensorType)) *graph.Value {
		v := qp.sh.konst(m, w.op, loc, mk)
		size(v.DefiningOp().Inherent("value"))
		ch.OpsAdded++
		return v
	}
	dt := qp.dataType()
	data := konst(func() (graph.Attr, *graph.TensorType) {
		blob := &quantDataBlob{qp: qp, n: w.typ.NumElements()}
		blob.size = blob.n
		if qp.bits < 8 {
			blob.size = graph.PackedSize(blob.n, qp.bits)
		}
		t := w.typ.WithElem(dt)
		return blobAttr(m, w.name()+".quantized", blob, 1, t), t
	})
	dense := func(a *graph.DenseElementsAttr, suffix string) func() (graph.Attr, *graph.TensorType) {
		return func() (graph.Attr, *graph.TensorType) {
			if !a.Splat && len(a.Raw) > inlineLUTBytes {
				return blobAttr(m, w.name()+suffix, graph.MemBlob(a.Raw), uint64(graph.ElemBytes(a.Type.Elem)), a.Type), a.Type
			}
			return splatOrDense(a), a.Type
		}
	}
	scales := make([]float64, len(qp.scale))
	for k, s := range qp.scale {
		scales[k] = float64(s)
	}
	scale := konst(dense(floatDense(w.typ.Elem, qp.sshape, scales), ".scale"))
	zp := konst(func() (graph.Attr, *graph.TensorType) {
		zps := make([]int64, len(qp.zp))
		for k, z := range qp.zp {
			zps[k] = int64(z)
		}
		za := intDense(dt, qp.sshape, zps)
		if qp.bits < 8 && !za.Splat {
			// sub-byte, not a splat: packed in a blob, as coreai-torch stores them
			vals := make([]uint8, len(zps))
			for k, z := range zps {
				vals[k] = uint8(z)
			}
			raw := make([]byte, graph.PackedSize(int64(len(vals)), qp.bits))
			graph.PackBits(raw, vals, qp.bits)
			return blobAttr(m, w.name()+".zero_point", graph.MemBlob(raw), 1, za.Type), za.Type
		}
		return dense(za, ".zero_point")()
	})
	off := konst(dense(floatDense(w.typ.Elem, qp.sshape, make([]float64, len(scales))), ".offset"))
	bss := graph.NewOp("coreai.blockwise_shift_scale", []*graph.Value{data, scale, zp, off}, []graph.Type{w.typ}, nil, loc)
	bss.InsertBefore(w.op)
	ch.OpsAdded++
	return bss.Result(0), after
}

// quantDataBlob is a weight's quantized data, computed from the weight as
// the writer reads it (packed for 4-bit types).
type quantDataBlob struct {
	qp   *quantPlan
	n    int64
	size int64
}

func (b *quantDataBlob) Size() int64 { return b.size }

func (b *quantDataBlob) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("quantized data: negative offset")
	}
	if off >= b.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := min(int64(len(p)), b.size-off)
	epu, bpu := 1, 1
	if b.qp.bits < 8 {
		epu, bpu = graph.PackUnit(b.qp.bits)
	}
	u0, u1 := off/int64(bpu), (off+want+int64(bpu)-1)/int64(bpu)
	e0, e1 := u0*int64(epu), min(u1*int64(epu), b.n)
	qp := b.qp
	raw := make([]byte, (e1-e0)*qp.r.eb)
	if err := qp.r.read(raw, e0); err != nil {
		return 0, err
	}
	vals := make([]uint8, e1-e0)
	geo := qp.geo
	for k := range vals {
		e := e0 + int64(k)
		o, rest := e/(geo.channels*geo.inner), e%(geo.channels*geo.inner)
		c, i := rest/geo.inner, rest%geo.inner
		vals[k] = uint8(int64(qp.quant(qp.r.value(raw, k), qp.bo[o]+qp.bc[c]+qp.bi[i])))
	}
	var out []byte
	if qp.bits < 8 {
		out = make([]byte, graph.PackedSize(int64(len(vals)), qp.bits))
		graph.PackBits(out, vals, qp.bits)
	} else {
		out = vals
	}
	n := copy(p[:want], out[off-u0*int64(bpu):])
	if int64(n) < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}
