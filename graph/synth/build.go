package synth

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
)

// Source files the synthetic locations cite. The paths are absolute like the
// exporter's stack traces; graph.ShortSource cuts them to the last two
// elements ("ios/qwen3_5_ios.py:290", "macos/qwen3_5.py:199").
const (
	srcRoot  = "/Users/u/coreai_models/"
	fileIOS  = srcRoot + "models/ios/qwen3_5_ios.py"
	fileMac  = srcRoot + "models/macos/qwen3_5.py"
	fileQ3   = srcRoot + "models/ios/qwen3.py"
	fileNorm = srcRoot + "primitives/ios/rms_norm.py"
	fileRope = srcRoot + "primitives/ios/rope.py"
	fileSDPA = srcRoot + "primitives/ios/sdpa.py"
	fileMLP  = srcRoot + "primitives/ios/mlp.py"
	fileKV   = srcRoot + "primitives/ios/cache.py"
	fileEmb  = srcRoot + "primitives/ios/embedding.py"
	fileBase = srcRoot + "models/base.py"
	// coreai-torch's GatedDeltaUpdate composite (the --recurrence composite
	// variant), as installed in a virtualenv.
	fileGDU = "/Users/u/.venv/lib/python3.12/site-packages/coreai_torch/composite_ops/_gated_delta_update.py"
)

type frame struct {
	file string
	line int
}

// builder appends coreai ops to one graph body. Every op gets the location
// of the FX node being lowered (set with at): the node name (torch's FX
// naming, "mul", "mul_1", …) plus the Python stack at that node, innermost
// frame first, the way coreai-torch builds its debug locations.
type builder struct {
	m     *graph.Module
	blk   *graph.Block
	seed  uint64
	names map[string]int // FX name counters, per graph
	stack []frame        // caller frames, outermost first
	loc   graph.Loc
	// blobs by resource key, so functions share weights.
	blobs    map[string]*blob
	curGraph *graph.Operation
}

func newBuilder(m *graph.Module, seed uint64, blobs map[string]*blob) *builder {
	return &builder{m: m, seed: seed, names: map[string]int{}, loc: graph.Unknown, blobs: blobs}
}

// fxName returns torch.fx's name for the next node of an aten op: the base
// name for the first one, then base_1, base_2, ….
func (b *builder) fxName(base string) string {
	n := b.names[base]
	b.names[base] = n + 1
	if n == 0 {
		return base
	}
	return base + "_" + strconv.Itoa(n)
}

// push and pop maintain the caller frames.
func (b *builder) push(file string, line int) { b.stack = append(b.stack, frame{file, line}) }
func (b *builder) pop()                       { b.stack = b.stack[:len(b.stack)-1] }

// at starts lowering one FX node named after aten op base, executed at
// file:line under the current caller frames; ops emitted until the next at
// carry its location. It returns the node name.
func (b *builder) at(base, file string, line int) string {
	name := b.fxName(base)
	locs := []graph.Loc{&graph.NameLoc{Name: name, Child: &graph.FileLoc{File: file, Line: line}}}
	for i := len(b.stack) - 1; i >= 0; i-- {
		locs = append(locs, &graph.FileLoc{File: b.stack[i].file, Line: b.stack[i].line})
	}
	// Stand-in for coreai-torch's debuginfo metadata (its exact printed
	// syntax is not public): the FX source record, kept opaque.
	// The per-node numeric id coreai-torch also records is left out: it
	// makes every location unique across functions and triples arm E's size.
	meta := &graph.OpaqueAttr{Text: fmt.Sprintf(`#debuginfo.metadata<sources = [{identifiers = [%s], name = "torch"}]>`,
		graph.QuoteString(name))}
	b.loc = &graph.FusedLoc{Locs: locs, Metadata: meta}
	return name
}

// emit appends an op and returns its first result (nil if none).
func (b *builder) emit(name string, operands []*graph.Value, results ...graph.Type) *graph.Value {
	op := graph.NewOp(name, operands, results, nil, b.loc)
	b.blk.Append(op)
	if len(results) == 0 {
		return nil
	}
	return op.Result(0)
}

// ---- types ----

func tt(v *graph.Value) *graph.TensorType {
	t, ok := graph.AsTensor(v.Type())
	if !ok {
		panic(fmt.Sprintf("synth: value of type %s is not a tensor", v.Type()))
	}
	return t
}

func shapeOf(v *graph.Value) []int64   { return tt(v).Shape }
func elemOf(v *graph.Value) graph.Type { return tt(v).Elem }

func i64s(xs ...int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// ---- constants ----

// denseInts builds a dense attribute of integer elements (si32/ui32/ui16).
// Equal elements are stored as a splat, as MLIR does (a one-element tensor
// included); an empty tensor is not a splat.
func denseInts(elem *graph.IntegerType, shape []int64, vals []int64) *graph.DenseElementsAttr {
	n := graph.ElemBytes(elem)
	vals, splat := splatOf(vals)
	raw := make([]byte, n*len(vals))
	for i, v := range vals {
		switch n {
		case 4:
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
		case 2:
			binary.LittleEndian.PutUint16(raw[2*i:], uint16(v))
		case 1:
			raw[i] = byte(v)
		}
	}
	return &graph.DenseElementsAttr{Type: graph.Tensor(elem, shape...), Raw: raw, Splat: splat}
}

// splatOf is vals stored as MLIR stores a dense attribute: its first
// element alone when all are equal (a one-element tensor included; a NaN
// equals nothing), else all of them; an empty tensor is not a splat.
func splatOf[T comparable](vals []T) ([]T, bool) {
	for _, v := range vals {
		if v != vals[0] {
			return vals, false
		}
	}
	if len(vals) == 0 {
		return vals, false
	}
	return vals[:1], true
}

func (b *builder) constant(a graph.Attr, t *graph.TensorType) *graph.Value {
	op := graph.NewOp("coreai.constant", nil, []graph.Type{t}, nil, b.loc)
	op.Props = graph.Dict(graph.NamedAttr{Name: "value", Value: a})
	b.blk.Append(op)
	return op.Result(0)
}

// si32 is a rank-1 si32 constant (axes, begin/end/stride).
func (b *builder) si32(vals ...int64) *graph.Value {
	a := denseInts(graph.SI32, []int64{int64(len(vals))}, vals)
	return b.constant(a, a.Type)
}

// si32s is a rank-0 si32 constant (concat/softmax axis).
func (b *builder) si32s(v int64) *graph.Value {
	a := denseInts(graph.SI32, nil, []int64{v})
	return b.constant(a, a.Type)
}

// ui32 is a rank-1 ui32 constant (shapes, permutations, strides).
func (b *builder) ui32(vals ...int64) *graph.Value {
	a := denseInts(graph.UI32, []int64{int64(len(vals))}, vals)
	return b.constant(a, a.Type)
}

// ui32s is a rank-0 ui32 constant (conv groups).
func (b *builder) ui32s(v int64) *graph.Value {
	a := denseInts(graph.UI32, nil, []int64{v})
	return b.constant(a, a.Type)
}

// scalar is a rank-0 float constant of type elem (f16 or f32).
func (b *builder) scalar(v float64, elem *graph.FloatType) *graph.Value {
	return b.floats(elem, nil, v)
}

// floats is a float constant of the given shape, f16 or f32.
func (b *builder) floats(elem *graph.FloatType, shape []int64, vals ...float64) *graph.Value {
	n := graph.ElemBytes(elem)
	vals, splat := splatOf(vals)
	raw := make([]byte, n*len(vals))
	for i, v := range vals {
		bits := graph.FloatBits(v, elem.Name)
		if n == 4 {
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(bits))
		} else {
			binary.LittleEndian.PutUint16(raw[2*i:], uint16(bits))
		}
	}
	t := graph.Tensor(elem, shape...)
	return b.constant(&graph.DenseElementsAttr{Type: t, Raw: raw, Splat: splat}, t)
}

// weight is a dense_resource fp16 constant backed by a synthetic blob. The
// same key always means the same bytes, so functions can share weights.
func (b *builder) weight(key string, d dist, shape ...int64) *graph.Value {
	return b.patchedWeight(key, d, nil, nil, shape...)
}

// patchedWeight is weight with some columns and elements overridden
// (Blob.Patch); nil patches make the plain weight.
func (b *builder) patchedWeight(key string, d dist, cols []colDist, elems []elemValue, shape ...int64) *graph.Value {
	blob, ok := b.blobs[key]
	if !ok {
		blob = newBlob(b.seed, key, d, shape...)
		if len(cols) > 0 || len(elems) > 0 {
			blob.Patch(cols, elems)
		}
		b.blobs[key] = blob
		b.m.AddResource(key, 2, blob)
	}
	t := graph.Tensor(graph.F16, shape...)
	return b.constant(&graph.DenseResourceAttr{Key: key, Type: t}, t)
}

// ---- ops ----

func (b *builder) cast(x *graph.Value, elem graph.Type) *graph.Value {
	return b.emit("coreai.cast", []*graph.Value{x}, tt(x).WithElem(elem))
}

func normAxes(rank int, axes []int64) []int64 {
	out := make([]int64, len(axes))
	for i, a := range axes {
		if a < 0 {
			a += int64(rank)
		}
		out[i] = a
	}
	return out
}

// expandDims inserts unit dims at the given (result-rank) axes.
func (b *builder) expandDims(x *graph.Value, axes ...int64) *graph.Value {
	s := shapeOf(x)
	rank := len(s) + len(axes)
	axes = normAxes(rank, axes)
	out := make([]int64, 0, rank)
	src := 0
	for i := 0; i < rank; i++ {
		if slices.Contains(axes, int64(i)) {
			out = append(out, 1)
		} else {
			out = append(out, s[src])
			src++
		}
	}
	a := b.si32(axes...)
	return b.emit("coreai.expand_dims", []*graph.Value{x, a}, tt(x).WithShape(out))
}

// shrinkDims removes the given unit dims.
func (b *builder) shrinkDims(x *graph.Value, axes ...int64) *graph.Value {
	s := shapeOf(x)
	axes = normAxes(len(s), axes)
	var out []int64
	for i, d := range s {
		if slices.Contains(axes, int64(i)) {
			if d != 1 {
				panic(fmt.Sprintf("synth: shrink_dims of non-unit axis %d of %v", i, s))
			}
			continue
		}
		out = append(out, d)
	}
	a := b.si32(axes...)
	return b.emit("coreai.shrink_dims", []*graph.Value{x, a}, tt(x).WithShape(out))
}

func prod(s []int64) int64 {
	n := int64(1)
	for _, d := range s {
		n *= d
	}
	return n
}

func (b *builder) reshape(x *graph.Value, shape ...int64) *graph.Value {
	if prod(shape) != prod(shapeOf(x)) {
		panic(fmt.Sprintf("synth: reshape %v to %v", shapeOf(x), shape))
	}
	s := b.ui32(shape...)
	return b.emit("coreai.reshape", []*graph.Value{x, s}, tt(x).WithShape(shape))
}

func (b *builder) transpose(x *graph.Value, perm ...int64) *graph.Value {
	s := shapeOf(x)
	out := make([]int64, len(s))
	for i, p := range perm {
		out[i] = s[p]
	}
	pv := b.ui32(perm...)
	return b.emit("coreai.transpose", []*graph.Value{x, pv}, tt(x).WithShape(out))
}

// swap transposes two axes (torch's x.transpose(a, c)).
func (b *builder) swap(x *graph.Value, a, c int) *graph.Value {
	r := len(shapeOf(x))
	if a < 0 {
		a += r
	}
	if c < 0 {
		c += r
	}
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(i)
	}
	perm[a], perm[c] = perm[c], perm[a]
	return b.transpose(x, perm...)
}

func (b *builder) concat(axis int, xs ...*graph.Value) *graph.Value {
	s := append([]int64(nil), shapeOf(xs[0])...)
	if axis < 0 {
		axis += len(s)
	}
	for _, x := range xs[1:] {
		s[axis] += shapeOf(x)[axis]
	}
	a := b.si32s(int64(axis))
	return b.emit("coreai.concat", append([]*graph.Value{a}, xs...), tt(xs[0]).WithShape(s))
}

// slice takes x[begin:end] per axis with unit strides (static bounds).
func (b *builder) slice(x *graph.Value, begin, end []int64) *graph.Value {
	s := shapeOf(x)
	out := make([]int64, len(s))
	for i := range s {
		out[i] = end[i] - begin[i]
	}
	ones := make([]int64, len(s))
	for i := range ones {
		ones[i] = 1
	}
	bv, ev, sv := b.si32(begin...), b.si32(end...), b.si32(ones...)
	return b.emit("coreai.slice", []*graph.Value{x, bv, ev, sv}, tt(x).WithShape(out))
}

// narrow is torch's x.narrow(axis, start, length).
func (b *builder) narrow(x *graph.Value, axis int, start, length int64) *graph.Value {
	s := shapeOf(x)
	if axis < 0 {
		axis += len(s)
	}
	begin := make([]int64, len(s))
	end := append([]int64(nil), s...)
	begin[axis] = start
	end[axis] = start + length
	return b.slice(x, begin, end)
}

// sliceUpdate writes upd into x at dynamic begin/end (unit strides).
func (b *builder) sliceUpdate(x, upd, begin, end *graph.Value) *graph.Value {
	r := len(shapeOf(x))
	ones := make([]int64, r)
	for i := range ones {
		ones[i] = 1
	}
	sv := b.si32(ones...)
	return b.emit("coreai.slice_update", []*graph.Value{x, upd, begin, end, sv}, tt(x))
}

func broadcast(a, c []int64) []int64 {
	if len(a) < len(c) {
		a, c = c, a
	}
	out := append([]int64(nil), a...)
	off := len(a) - len(c)
	for i, d := range c {
		switch {
		case out[off+i] == d || d == 1:
		case out[off+i] == 1:
			out[off+i] = d
		default:
			panic(fmt.Sprintf("synth: cannot broadcast %v with %v", a, c))
		}
	}
	return out
}

// bin emits coreai.decomposable.broadcasting_<kind>.
func (b *builder) bin(kind string, x, y *graph.Value) *graph.Value {
	if !graph.TypeEqual(elemOf(x), elemOf(y)) {
		panic(fmt.Sprintf("synth: %s of %s and %s", kind, tt(x), tt(y)))
	}
	return b.emit("coreai.decomposable.broadcasting_"+kind, []*graph.Value{x, y}, tt(x).WithShape(broadcast(shapeOf(x), shapeOf(y))))
}

func (b *builder) add(x, y *graph.Value) *graph.Value { return b.bin("add", x, y) }
func (b *builder) sub(x, y *graph.Value) *graph.Value { return b.bin("sub", x, y) }
func (b *builder) mul(x, y *graph.Value) *graph.Value { return b.bin("mul", x, y) }

// greater compares to an i1 result.
func (b *builder) greater(x, y *graph.Value) *graph.Value {
	return b.emit("coreai.decomposable.broadcasting_greater", []*graph.Value{x, y},
		graph.Tensor(graph.I1, broadcast(shapeOf(x), shapeOf(y))...))
}

func (b *builder) where(c, x, y *graph.Value) *graph.Value {
	return b.emit("coreai.decomposable.broadcasting_where", []*graph.Value{c, x, y},
		tt(x).WithShape(broadcast(broadcast(shapeOf(c), shapeOf(x)), shapeOf(y))))
}

func (b *builder) unary(kind string, x *graph.Value) *graph.Value {
	return b.emit("coreai."+kind, []*graph.Value{x}, tt(x))
}

// reduce keeps the reduced dims, as coreai's reductions do.
func (b *builder) reduce(kind string, x *graph.Value, axes ...int64) *graph.Value {
	s := append([]int64(nil), shapeOf(x)...)
	axes = normAxes(len(s), axes)
	for _, a := range axes {
		s[a] = 1
	}
	av := b.si32(axes...)
	return b.emit("coreai.reduce_"+kind, []*graph.Value{x, av}, tt(x).WithShape(s))
}

func (b *builder) softmax(x *graph.Value, axis int) *graph.Value {
	if axis < 0 {
		axis += len(shapeOf(x))
	}
	a := b.si32s(int64(axis))
	return b.emit("coreai.softmax", []*graph.Value{x, a}, tt(x))
}

// matmul is coreai.decomposable.broadcasting_batch_matmul.
func (b *builder) matmul(x, y *graph.Value) *graph.Value {
	xs, ys := shapeOf(x), shapeOf(y)
	if xs[len(xs)-1] != ys[len(ys)-2] {
		panic(fmt.Sprintf("synth: matmul %v @ %v", xs, ys))
	}
	batch := broadcast(xs[:len(xs)-2], ys[:len(ys)-2])
	out := append(batch, xs[len(xs)-2], ys[len(ys)-1])
	return b.emit("coreai.decomposable.broadcasting_batch_matmul", []*graph.Value{x, y}, tt(x).WithShape(out))
}

// conv1x1 is a 1×1 coreai.conv2d on [N, Cin, H, W] with w [Cout, Cin, 1, 1].
func (b *builder) conv1x1(x, w *graph.Value) *graph.Value {
	xs, ws := shapeOf(x), shapeOf(w)
	if xs[1] != ws[1] {
		panic(fmt.Sprintf("synth: conv %v with weight %v", xs, ws))
	}
	st, dil, g := b.ui32(1, 1), b.ui32(1, 1), b.ui32s(1)
	return b.emit("coreai.conv2d", []*graph.Value{x, w, st, dil, g}, tt(x).WithShape([]int64{xs[0], ws[0], xs[2], xs[3]}))
}

// gatherND gathers rows of table with indices [..., depth].
func (b *builder) gatherND(table, idx *graph.Value) *graph.Value {
	ts, is := shapeOf(table), shapeOf(idx)
	depth := is[len(is)-1]
	out := append(append([]int64(nil), is[:len(is)-1]...), ts[depth:]...)
	return b.emit("coreai.gather_nd", []*graph.Value{table, idx}, tt(table).WithShape(out))
}

// ---- graph ops ----

// port is a graph input or output being declared.
type port struct {
	name  string
	typ   graph.Type
	state string // input: MutableBuffers.buffer_mutation target ("" = none)
}

// newGraph appends a coreai.graph with the given inputs and points the
// builder at its body. The caller finishes it with output().
func (b *builder) newGraph(name string, ins []port, attrs ...graph.NamedAttr) []*graph.Value {
	gi := make([]graph.GraphInput, len(ins))
	for i, p := range ins {
		gi[i] = graph.GraphInput{Name: p.name, Type: p.typ, State: p.state}
	}
	g := graph.NewGraph(b.m, name, "", gi...)
	// Visibility and no_inline are properties like the rest of the
	// signature; composite_decl and anything else stay discardable
	// (`attributes {…}`), where coreai's printed form puts them.
	for _, a := range attrs {
		switch a.Name {
		case graph.AttrVisibility, "no_inline":
			g.Op.Props = g.Op.Props.(*graph.DictAttr).With(a.Name, a.Value)
		default:
			g.Op.SetAttr(a.Name, a.Value)
		}
	}
	b.blk = g.Body()
	b.names = map[string]int{}
	b.curGraph = g.Op
	return b.blk.Args()
}

// output terminates the current graph with coreai.output and declares its
// outputs.
func (b *builder) output(outs []port, vals []*graph.Value) {
	names := make([]string, len(outs))
	for i, o := range outs {
		names[i] = o.name
	}
	(&graph.Graph{Op: b.curGraph}).Return(vals, names)
}

// compositeDecl spells (opAttrs: sorted entries before "version", each
// followed by ", ") a #coreai.composite_declaration attribute the way
// coreai-torch's generate_composite_decl does (version = 1 added).
func compositeDecl(name string, inputs, outputs []string, opAttrs string) graph.Attr {
	q := func(xs []string) string {
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = graph.QuoteString(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return &graph.OpaqueAttr{Text: fmt.Sprintf(`#coreai.composite_declaration<%s = {input_names = %s, op_attrs = {%sversion = 1 : si64}, output_names = %s}>`,
		graph.QuoteString(name), q(inputs), opAttrs, q(outputs))}
}

// invoke calls a graph by symbol.
func (b *builder) invoke(callee string, args []*graph.Value, results ...graph.Type) []*graph.Value {
	op := graph.NewOp("coreai.invoke", args, results, nil, b.loc)
	op.Props = graph.Dict(graph.NamedAttr{Name: "callee", Value: &graph.SymbolRefAttr{Root: callee}})
	b.blk.Append(op)
	return op.Results()
}
