package passes

import (
	"cmp"
	"fmt"
	"io"

	"github.com/anefix/anefix/graph"
)

var legalizeWeightsAbout = About{
	Summary: "turn linear INT4 weights (check's linear-int4 blocker) into Neural Engine legal palettes",
	Doc: `Linear blockwise INT4 weights (coreai.blockwise_shift_scale of si4 or ui4
data) are the case check's linear-int4 rule calls a blocker: such programs
got no Neural Engine region, and the records behind the rule
(apple/coreai-models #55, #205) say the palettized program of the same
structure compiles. This pass replaces each one whose data, scale and
offsets are constants by a coreai.lut_to_dense in palettize's form (4-bit
palettes, one per group-size output channels; bits= and group-size= as
palettize's, with palettize's definition of a group, passes.LUTGroup, so
the default is legal).

Exactly where the structure allows: the dequantized weight
scale·(q − offset1) + offset2 (the interpreter's formula, rounded once to
the result type) is computed for every element, and where every group of
group-size output channels holds at most 2^bits distinct values (an INT4
weight with one scale per tensor, or scales shared by whole groups) the
palettes are those values and the result is the same weight, bit for bit.
Otherwise (per-channel or per-block scales: a group of 32 channels then
holds up to 32·16 values) the group is re-clustered with palettize's
k-means at that size, and the report gives the weight's SNR against the
dequantized INT4 weight (per-channel INT4 is exact again with bits=8
group-size=16: 16 channels of 16 levels fill 256 entries, and check does
not flag 8-bit palettes). Output channels run along the axis palettize
would pick from the weight's readers; when group-size does not divide
them the weight gets one palette (per tensor), which check does not flag
either, with a note.

Data that is not a constant (a graph input) cannot be rewritten; check
says so in the finding. The dequantized values are computed again while
the output is written, as palettize's indices are.

cmd/anefix TestCompressionArms checks it on tiny synth arm A with
--weights linear-int4 (si4, per-block 32): check's verdict goes from not
legal to legal.`,
	Addresses: "check's linear-int4 blocker (linear blockwise INT4 weights: apple/coreai-models #55, #205)",
}

// legalizeWeightsOptions are legalize-weights' options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type legalizeWeightsOptions struct {
	Bits              int
	GroupSize         int
	RoundingPrecision int
}

func (o *legalizeWeightsOptions) declare(d *Decls) {
	Declare(d, &o.Bits, Option[int]{Name: "bits", Default: 4, Doc: "bits per palette index", Values: paletteBits})
	Declare(d, &o.GroupSize, Option[int]{Name: "group-size", Default: 32, Doc: "output channels per palette (below 32 at 4 bits: check's lut4-small-group blocker)", Check: checkPositive})
	Declare(d, &o.RoundingPrecision, Option[int]{Name: "rounding-precision", Default: 4, Doc: "as palettize's, for the groups it re-clusters", Values: roundingPrecisions})
}

// int4Weight is one blockwise_shift_scale of constant linear INT4 data.
type int4Weight struct {
	g      *graph.Graph
	op     *graph.Operation // the blockwise_shift_scale
	data   *graph.Operation // its data constant
	typ    *graph.TensorType
	elem   string
	params []paramSrc         // scale, offset1, offset2 as given
	defs   []*graph.Operation // the ops defining the operands (erased when unused)
}

// name is the weight's name in reports: its data's resource key, else the
// first name the op or its data has (FX name, the text's SSA name).
func (w *int4Weight) name() string {
	if w.data == nil { // a weight the pass cannot read (int4Cand.why)
		return cmp.Or(w.op.OpID(), graph.TextName(w.op), w.op.Describe())
	}
	if a, ok := w.data.Inherent("value").(*graph.DenseResourceAttr); ok {
		return a.Key
	}
	return cmp.Or(w.op.OpID(), w.data.OpID(), graph.TextName(w.op), graph.TextName(w.data), w.op.Describe())
}

// left is the record of w left as it is for why; its bytes are its data
// constant's, as stored (0 when the file lacks them).
func (w *int4Weight) left(m *weightModule, why string) LeftWeight {
	l := LeftWeight{Name: w.name(), Op: ref(w.g, w.op), Type: w.op.Result(0).Type().String(), Reason: why}
	if w.data == nil {
		return l
	}
	switch a := w.data.Inherent("value").(type) {
	case *graph.DenseResourceAttr:
		l.Resource = a.Key
		if r := m.Resource(a.Key); r != nil && r.Blob != nil {
			l.Bytes = r.Blob.Size()
		}
	case *graph.DenseElementsAttr:
		l.Bytes = int64(len(a.Raw))
	}
	return l
}

// paramSrc is a parameter operand: a constant, or a coreai.reshape of one
// (coreai-torch reshapes a scalar scale or offset to the data's rank,
// coreai_torch/_custom_to_core.py), with the operand's type.
type paramSrc struct {
	c   *graph.Operation
	typ *graph.TensorType
}

// LegalizeWeightsPreview says which linear-INT4 ops legalize-weights
// rewrites in a module, without changing it (check asks it before naming
// the pass for a linear-int4 finding).
type LegalizeWeightsPreview struct{ ops map[*graph.Operation]string }

// Fixes reports whether the pass rewrites op (a blockwise_shift_scale),
// and if not, why.
func (p *LegalizeWeightsPreview) Fixes(op *graph.Operation) (bool, string) {
	why, ok := p.ops[op]
	if !ok {
		return false, "it is not a blockwise_shift_scale of 4-bit data"
	}
	return why == "", why
}

// PreviewLegalizeWeights finds what legalize-weights would rewrite.
func PreviewLegalizeWeights(m *graph.Module) *LegalizeWeightsPreview {
	p := &LegalizeWeightsPreview{ops: map[*graph.Operation]string{}}
	for _, c := range findInt4(newWeightModule(m)) {
		p.ops[c.w.op] = c.why
	}
	return p
}

type int4Cand struct {
	w   *int4Weight
	why string // "" when the pass can rewrite it
}

// findInt4 lists the blockwise_shift_scale ops of 4-bit integer data and
// whether each can be rewritten (constant data and parameters of readable
// types, a static float result).
func findInt4(m *weightModule) []int4Cand {
	var out []int4Cand
	for _, g := range m.Graphs() {
		g.Op.Walk(func(op *graph.Operation) bool {
			if op.Name != "coreai.blockwise_shift_scale" || op.NumOperands() < 2 || op.NumResults() != 1 {
				return true
			}
			dt, _ := op.Operand(0).Type().(*graph.TensorType)
			if dt == nil {
				return true
			}
			it, _ := dt.Elem.(*graph.IntegerType)
			if it == nil || it.Width != 4 {
				return true
			}
			w := &int4Weight{g: g, op: op}
			c := int4Cand{w: w}
			rt, _ := op.Result(0).Type().(*graph.TensorType)
			ft, _ := graph.ElementType(rt).(*graph.FloatType)
			switch {
			case rt == nil || !rt.IsStatic() || ft == nil || (ft.Name != "f16" && ft.Name != "bf16" && ft.Name != "f32"):
				c.why = "its result is not a static f16, bf16 or f32 tensor"
			case op.NumOperands() > 4:
				c.why = fmt.Sprintf("it has %d operands; the pass reads (data, scale[, offset1[, offset2]])", op.NumOperands())
			default:
				w.typ, w.elem = rt, ft.Name
				for i := 0; i < op.NumOperands(); i++ {
					d := op.Operand(i).DefiningOp()
					k := d
					if i > 0 && d != nil && d.Name == "coreai.reshape" && d.NumOperands() > 0 {
						k = d.Operand(0).DefiningOp()
					}
					if d == nil || k == nil || k.Name != "coreai.constant" {
						what := "a value computed in the graph"
						if d == nil {
							what = "a graph input"
						}
						c.why = fmt.Sprintf("its operand %d is %s, not a constant (the pass rewrites constant weights only)", i, what)
						break
					}
					w.defs = append(w.defs, d)
					if k != d {
						w.defs = append(w.defs, k)
					}
					if i == 0 {
						w.data = d
						continue
					}
					pt, _ := op.Operand(i).Type().(*graph.TensorType)
					w.params = append(w.params, paramSrc{c: k, typ: pt})
				}
				if c.why == "" && !sameShape(dt, rt) {
					c.why = "its data and result shapes differ"
				}
				if c.why == "" {
					if _, _, err := readDequant(m, w, false); err != nil {
						c.why = err.Error()
					}
				}
			}
			out = append(out, c)
			return true
		})
	}
	return out
}

func sameShape(a, b *graph.TensorType) bool {
	if a.Rank() != b.Rank() {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	return true
}

func legalizeWeights(ctx *Context, gm *graph.Module, o *legalizeWeightsOptions) (*Change, error) {
	m := newWeightModule(gm)
	ch := &Change{}
	var dropKeys []string
	var warns smallGroupWarnings
	defer warns.note(ch)
	plans := map[string]*lutPlan{}
	sharedN := 0
	cands := findInt4(m)
	for _, c := range cands { // refused before any weight changes
		if c.why == "" {
			if err := legalizeBound(c.w, o, ctx.MaxMemory); err != nil {
				return nil, err
			}
		}
	}
	for i, c := range cands {
		ctx.Progress(int64(i), int64(len(cands)), "weights")
		w := c.w
		if c.why != "" {
			ch.Left = append(ch.Left, w.left(m, c.why))
			continue
		}
		key := w.data.OpID()
		if a, ok := w.data.Inherent("value").(*graph.DenseResourceAttr); ok {
			key = a.Key
		}
		_, axis, note := weightAxes(w.op)
		share := ""
		if a, ok := w.data.Inherent("value").(*graph.DenseResourceAttr); ok {
			share = fmt.Sprintf("%s|%s|%d|%v", a.Key, w.typ, axis, paramKeys(w))
		}
		if plan := plans[share]; plan != nil && share != "" {
			plan.sh.again()
			plan.emit(m, w.op, key, ch)
			sharedN++
			if err := replaceInt4(m, w, plan.out, ch, &dropKeys); err != nil {
				return nil, err
			}
			continue
		}
		src, before, err := readDequant(m, w, true)
		if err != nil {
			ch.Left = append(ch.Left, w.left(m, err.Error()))
			continue
		}
		if note != "" {
			ch.Notes = append(ch.Notes, fmt.Sprintf("%s: %s", w.op.DescribeInGraph(), note))
		}
		s := legalizeSettings(o, w.typ, axis)
		if s.Granularity == "per-tensor" {
			ch.Notes = append(ch.Notes, fmt.Sprintf("%s: its %d output channels (axis %d) are not a multiple of group-size %d: one palette for the whole weight", w.op.DescribeInGraph(), w.typ.Shape[axis], axis, o.GroupSize))
		}
		r := newFloatReader(src, w.elem)
		plan, skip, err := planLUT(r, w.typ, axis, s, key)
		exact := skip == ""
		if err == nil && !exact {
			s.Method = "kmeans"
			plan, skip, err = planLUT(r, w.typ, axis, s, key)
		}
		if err != nil {
			return nil, fmt.Errorf("legalize-weights: %s: %v", w.op.DescribeInGraph(), err)
		}
		if skip != "" {
			ch.Left = append(ch.Left, w.left(m, skip))
			continue
		}
		plan.pass = "legalize-weights"
		cw, warn := plan.emit(m, w.op, key, ch)
		dt := w.data.Result(0).Type().(*graph.TensorType)
		how := "re-clustered"
		if exact {
			how = "exact"
		}
		cw.Form = fmt.Sprintf("%s from linear %s: %s", cw.Form, dt.Elem, how)
		cw.Op, cw.Type, cw.BytesBefore = ref(w.g, w.op), w.typ.String(), before
		if a, ok := w.data.Inherent("value").(*graph.DenseResourceAttr); ok {
			cw.Resource = a.Key
		}
		cw.Name = w.name()
		ch.Compressed = append(ch.Compressed, cw)
		warns.add(w.op.DescribeInGraph(), warn)
		if share != "" {
			plans[share] = plan
		}
		if err := replaceInt4(m, w, plan.out, ch, &dropKeys); err != nil {
			return nil, err
		}
	}
	ctx.Progress(int64(len(cands)), int64(len(cands)), "weights")
	if sharedN > 0 {
		ch.Notes = append(ch.Notes, fmt.Sprintf("%d more INT4 weight(s) read data already legalized here (the same blob in another function) and name the same new blobs", sharedN))
	}
	dropUnreferenced(m, dropKeys)
	return ch, nil
}

// legalizeSettings are the palettes legalize-weights gives a weight of
// typ whose output channels run along axis: one per group-size channels,
// or one for the whole weight when group-size does not divide them.
func legalizeSettings(o *legalizeWeightsOptions, typ *graph.TensorType, axis int) lutSettings {
	s := lutSettings{Bits: o.Bits, GroupSize: o.GroupSize, ClusterDim: 1, Granularity: "per-grouped-channel", LUTDType: "f16",
		Method: "unique", Decimals: o.RoundingPrecision}
	if typ.Shape[axis]%int64(o.GroupSize) != 0 {
		s.Granularity = "per-tensor"
	}
	return s
}

// legalizeBound refuses, before any weight changes, a linear INT4 weight
// whose re-clustering would need more memory than limit (0: no bound): its
// palettes (lutHeap) and its decoded parameters (raw, unpacked and float32
// values).
func legalizeBound(w *int4Weight, o *legalizeWeightsOptions, limit int64) error {
	if limit <= 0 {
		return nil
	}
	var extra int64
	for _, p := range w.params {
		if p.typ != nil && p.typ.IsStatic() {
			extra += 6 * p.typ.NumElements()
		}
	}
	_, axis, _ := weightAxes(w.op)
	eb := int64(2)
	if w.elem == "f32" {
		eb = 4
	}
	return lutBoundPlus("legalize-weights", w.op, w.data.OpID(), w.typ, axis, eb, legalizeSettings(o, w.typ, axis), limit, extra)
}

// splatBytes is a splat's data read as n copies of one byte (one element
// per byte, as a dense attribute stores sub-byte integers), never expanded.
type splatBytes struct {
	b byte
	n int64
}

func (s splatBytes) Size() int64 { return s.n }

func (s splatBytes) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= s.n {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), s.n-off))
	for i := range p[:n] {
		p[i] = s.b
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// paramKeys names a linear INT4 weight's parameter constants (their blob
// keys or values), so that two weights share palettes only when they
// dequantize alike.
func paramKeys(w *int4Weight) string {
	var b []string
	for _, p := range w.params {
		switch a := p.c.Inherent("value").(type) {
		case *graph.DenseResourceAttr:
			b = append(b, a.Key)
		case *graph.DenseElementsAttr:
			b = append(b, fmt.Sprintf("%x", a.Raw))
		}
		b = append(b, p.typ.String())
	}
	return fmt.Sprint(b)
}

// replaceInt4 puts v in place of a legalized weight and erases the ops it
// leaves unused (their blobs are dropped when nothing else names them).
func replaceInt4(m *weightModule, w *int4Weight, v *graph.Value, ch *Change, dropKeys *[]string) error {
	w.op.Result(0).ReplaceAllUsesWith(v)
	if err := w.op.Erase(); err != nil {
		return fmt.Errorf("legalize-weights: %s: %v", w.op.DescribeInGraph(), err)
	}
	ch.OpsRemoved++
	for _, k := range w.defs {
		if k.IsErased() || len(k.Result(0).Uses()) > 0 {
			continue
		}
		if a, ok := k.Inherent("value").(*graph.DenseResourceAttr); ok {
			*dropKeys = append(*dropKeys, a.Key)
		}
		if err := k.Erase(); err == nil {
			ch.OpsRemoved++
		}
	}
	return nil
}

// dequantBlob is a linear INT4 weight's dequantized values in its result
// type, little endian, computed as they are read: scale·(q − offset1) +
// offset2 rounded once to the result type, each parameter indexed as the
// interpreter indexes it (graph/interp quant.go paramIndexer: one value,
// or one per block of a tensor of the data's rank).
type dequantBlob struct {
	data   subByteData
	params [3]param // scale, offset1, offset2
	shape  []int64
	elem   string
	eb     int64
	n      int64
}

// param is a scale or offset: its values and the block shape it divides
// the data into.
type param struct {
	vals  []float32 // one value for a splat or a single element
	block []int64   // per axis: data extent of one entry; nil for a single value
	st    []int64   // strides of the parameter tensor
}

func (p param) at(coords []int64) float64 {
	if p.block == nil {
		return float64(p.vals[0])
	}
	k := int64(0)
	for d, c := range coords {
		k += c / p.block[d] * p.st[d]
	}
	return float64(p.vals[k])
}

// subByteData reads 4-bit integer constants: inline dense (one element per
// byte), or a dense_resource of one element per byte or packed
// (graph/subbyte.go).
type subByteData struct {
	src    graph.BlobSource
	packed bool
	signed bool
	width  int
}

func (d subByteData) read(dst []int8, e0 int64) error {
	if !d.packed {
		raw := make([]byte, len(dst))
		if n, err := d.src.ReadAt(raw, e0); n < len(raw) {
			return fmt.Errorf("reading 4-bit data at element %d: %v", e0, err)
		}
		for i, b := range raw {
			dst[i] = d.extend(b)
		}
		return nil
	}
	epu, bpu := graph.PackUnit(d.width)
	u0 := e0 / int64(epu)
	u1 := (e0 + int64(len(dst)) + int64(epu) - 1) / int64(epu)
	raw := make([]byte, (u1-u0)*int64(bpu))
	if n, err := d.src.ReadAt(raw, u0*int64(bpu)); n < len(raw) && !(err == io.EOF && n == int(d.src.Size()-u0*int64(bpu))) {
		return fmt.Errorf("reading packed 4-bit data at element %d: %v", e0, err)
	}
	vals := make([]uint8, (u1-u0)*int64(epu))
	avail := int(min(int64(len(vals)), (d.src.Size()-u0*int64(bpu))*8/int64(d.width)))
	graph.UnpackBits(vals[:avail], raw, avail, d.width)
	for i := range dst {
		dst[i] = d.extend(vals[int(e0-u0*int64(epu))+i])
	}
	return nil
}

func (d subByteData) extend(b byte) int8 {
	v := int8(b & (1<<d.width - 1))
	if d.signed && v >= 1<<(d.width-1) {
		v -= 1 << d.width
	}
	return v
}

// readDequant reads a linear INT4 weight's constants (only checks that it
// can, without decode); before is their storage in bytes.
func readDequant(m *weightModule, w *int4Weight, decode bool) (*dequantBlob, int64, error) {
	b := &dequantBlob{shape: w.typ.Shape, elem: w.elem, n: w.typ.NumElements(), eb: 2}
	if w.elem == "f32" {
		b.eb = 4
	}
	var before int64
	dt := w.data.Result(0).Type().(*graph.TensorType)
	it := dt.Elem.(*graph.IntegerType)
	b.data = subByteData{signed: it.Signedness != graph.Unsigned, width: 4}
	switch a := w.data.Inherent("value").(type) {
	case *graph.DenseElementsAttr:
		if a.Splat && len(a.Raw) > 0 {
			b.data.src = splatBytes{b: a.Raw[0], n: b.n} // not expanded: a few bytes of text may declare billions of values
		} else {
			b.data.src = graph.MemBlob(a.Raw)
		}
		before += int64(len(a.Raw))
	case *graph.DenseResourceAttr:
		r := m.Resource(a.Key)
		if r == nil || r.Blob == nil {
			return nil, 0, fmt.Errorf("the bytes of dense_resource<%s> are not in the file", a.Key)
		}
		switch r.Blob.Size() {
		case b.n:
		case graph.PackedSize(b.n, 4):
			b.data.packed = true
		default:
			return nil, 0, fmt.Errorf("dense_resource<%s> has %d bytes; %s needs %d (one element per byte) or %d (packed)", a.Key, r.Blob.Size(), dt, b.n, graph.PackedSize(b.n, 4))
		}
		b.data.src = r.Blob
		before += r.Blob.Size()
	default:
		return nil, 0, fmt.Errorf("its data constant holds %T, not dense or dense_resource", a)
	}
	for i := range b.params {
		if i >= len(w.params) {
			b.params[i] = param{vals: []float32{0}}
			continue
		}
		p, size, err := readParam(m, w.params[i], w.typ.Shape, decode)
		if err != nil {
			return nil, 0, fmt.Errorf("its operand %d %v", i+1, err)
		}
		b.params[i] = p
		before += size
	}
	return b, before, nil
}

// readParam decodes a scale or offset constant: one value, or a tensor of
// the data's rank whose every dimension divides the data's. Without decode
// it only checks that it could.
func readParam(m *weightModule, ps paramSrc, shape []int64, decode bool) (param, int64, error) {
	op, tt := ps.c, ps.typ
	ct, _ := op.Result(0).Type().(*graph.TensorType)
	if tt == nil || !tt.IsStatic() || ct == nil || ct.NumElements() != tt.NumElements() {
		return param{}, 0, fmt.Errorf("is not a static tensor of the constant's elements")
	}
	n := tt.NumElements()
	var raw []byte
	var size int64
	splat := false
	switch a := op.Inherent("value").(type) {
	case *graph.DenseElementsAttr:
		raw, splat, size = a.Raw, a.Splat, int64(len(a.Raw))
	case *graph.DenseResourceAttr:
		r := m.Resource(a.Key)
		if r == nil || r.Blob == nil {
			return param{}, 0, fmt.Errorf("the bytes of dense_resource<%s> are not in the file", a.Key)
		}
		if r.Blob.Size() > 256<<20 {
			return param{}, 0, fmt.Errorf("is dense_resource<%s> of %d bytes, more than this pass reads into memory for a parameter", a.Key, r.Blob.Size())
		}
		size = r.Blob.Size()
		if decode {
			var err error
			if raw, err = r.Bytes(); err != nil {
				return param{}, 0, err
			}
		}
	default:
		return param{}, 0, fmt.Errorf("holds %T, not dense or dense_resource", a)
	}
	if !decode {
		if _, err := paramDecoder(tt.Elem, nil, n); err != nil {
			return param{}, 0, err
		}
		if !splat && n != 1 && tt.Rank() != len(shape) {
			return param{}, 0, fmt.Errorf("shape %s is neither one value nor of the data's rank %d", tt, len(shape))
		}
		return param{}, size, nil
	}
	dec, err := paramDecoder(tt.Elem, raw, n)
	if err != nil {
		return param{}, 0, err
	}
	if splat || n == 1 {
		return param{vals: []float32{dec(0)}}, size, nil
	}
	if tt.Rank() != len(shape) {
		return param{}, 0, fmt.Errorf("shape %s is neither one value nor of the data's rank %d", tt, len(shape))
	}
	p := param{vals: make([]float32, n), block: make([]int64, len(shape)), st: make([]int64, len(shape))}
	s := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		if tt.Shape[d] == 0 || shape[d]%tt.Shape[d] != 0 {
			return param{}, 0, fmt.Errorf("shape %s does not divide the data's %v", tt, shape)
		}
		p.block[d] = shape[d] / tt.Shape[d]
		p.st[d] = s
		s *= tt.Shape[d]
	}
	for k := range p.vals {
		p.vals[k] = dec(k)
	}
	return p, size, nil
}

// paramDecoder decodes element k of a parameter's raw storage.
func paramDecoder(elem graph.Type, raw []byte, n int64) (func(k int) float32, error) {
	switch e := elem.(type) {
	case *graph.FloatType:
		eb := graph.ElemBytes(e)
		if e.Name != "f16" && e.Name != "bf16" && e.Name != "f32" {
			return nil, fmt.Errorf("element type %s is not read by this pass", e)
		}
		return func(k int) float32 {
			var bits uint64
			for j := 0; j < eb; j++ {
				bits |= uint64(raw[k*eb+j]) << (8 * j)
			}
			v, _ := graph.FloatValue(bits, e.Name)
			return float32(v)
		}, nil
	case *graph.IntegerType:
		if e.Width > 16 {
			return nil, fmt.Errorf("element type %s is not read by this pass", e)
		}
		eb := graph.ElemBytes(e)
		d := subByteData{signed: e.Signedness != graph.Unsigned, width: e.Width}
		var unpacked []uint8
		if raw != nil && e.Width < 8 && int64(len(raw)) == graph.PackedSize(n, e.Width) && int64(len(raw)) != n {
			unpacked = make([]uint8, n)
			graph.UnpackBits(unpacked, raw, int(n), e.Width)
		}
		return func(k int) float32 {
			if unpacked != nil {
				return float32(d.extend(unpacked[k]))
			}
			if (k+1)*eb > len(raw) { // a splat keeps one element
				k = 0
			}
			var bits uint64
			for j := 0; j < eb; j++ {
				bits |= uint64(raw[k*eb+j]) << (8 * j)
			}
			if e.Width < 8 {
				return float32(d.extend(byte(bits)))
			}
			shift := 64 - uint(e.Width)
			if e.Signedness == graph.Unsigned {
				return float32(bits)
			}
			return float32(int64(bits<<shift) >> shift)
		}, nil
	}
	return nil, fmt.Errorf("element type %s is not read by this pass", elem)
}

func (b *dequantBlob) Size() int64 { return b.n * b.eb }

func (b *dequantBlob) ReadAt(p []byte, off int64) (int, error) {
	size := b.Size()
	if off < 0 {
		return 0, fmt.Errorf("dequantized weight: negative offset")
	}
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := min(int64(len(p)), size-off)
	e0, e1 := off/b.eb, (off+want+b.eb-1)/b.eb
	q := make([]int8, e1-e0)
	if err := b.data.read(q, e0); err != nil {
		return 0, err
	}
	out := make([]byte, (e1-e0)*b.eb)
	coords := make([]int64, len(b.shape))
	rem := e0
	for d := len(b.shape) - 1; d >= 0; d-- {
		coords[d] = rem % b.shape[d]
		rem /= b.shape[d]
	}
	for k := range q {
		x := b.params[0].at(coords)*(float64(q[k])-b.params[1].at(coords)) + b.params[2].at(coords)
		bits := graph.FloatBits(roundTo(b.elem, x), b.elem)
		for j := int64(0); j < b.eb; j++ {
			out[int64(k)*b.eb+j] = byte(bits >> (8 * j))
		}
		for d := len(coords) - 1; d >= 0; d-- {
			if coords[d]++; coords[d] < b.shape[d] {
				break
			}
			coords[d] = 0
		}
	}
	n := copy(p[:want], out[off-e0*b.eb:])
	if int64(n) < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}
