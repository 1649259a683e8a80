package variants

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
)

// int32Max is the end coreai-torch's slice lowering gives every dimension a
// slice does not cut (build_slice_index_array's default).
const int32Max = 2147483647

// typ is a tensor type, a state handle over one, or a token.
type typ struct {
	shape  []int64
	elem   string // f16, f32, si32, ui32, i1
	handle bool   // !coreai.handle<tensor<…>>
	token  bool   // !coreai.token
}

func tensor(elem string, shape ...int64) typ { return typ{shape: shape, elem: elem} }

var tokenType = typ{token: true}

func (t typ) tensorString() string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range t.shape {
		b.WriteString(strconv.FormatInt(d, 10))
		b.WriteByte('x')
	}
	b.WriteString(t.elem)
	b.WriteByte('>')
	return b.String()
}

// String is the type as a signature prints it.
func (t typ) String() string {
	switch {
	case t.token:
		return "!coreai.token"
	case t.handle:
		return "!coreai.handle<" + t.tensorString() + ">"
	}
	return t.tensorString()
}

// inOp is the type as an op signature prints it: a handle stripped to
// `<tensor<…>>` (tests/test_stateful.py).
func (t typ) inOp() string {
	if t.handle {
		return "<" + t.tensorString() + ">"
	}
	return t.String()
}

func (t typ) with(elem string) typ {
	return typ{shape: t.shape, elem: elem}
}

func (t typ) withShape(shape ...int64) typ { return typ{shape: shape, elem: t.elem} }

func (t typ) numel() int64 {
	n := int64(1)
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// val is an SSA value of the graph being written.
type val struct {
	name string
	t    typ
}

// srcLoc is where an op claims to come from: an FX node name and a line of
// a made-up model file.
type srcLoc struct {
	fx   string
	line int
}

// module collects graphs and resource blobs in the order they are written.
type module struct {
	locs    string // none, name, debuginfo
	graphs  []string
	blobs   map[string][]byte // key -> little-endian data
	opID    int
	fxCount map[string]int
}

func newModule(locs string) *module {
	return &module{locs: locs, blobs: map[string][]byte{}, fxCount: map[string]int{}}
}

// fxName numbers FX node names as torch.fx does: add, add_1, add_2.
func (m *module) fxName(base string) string {
	n := m.fxCount[base]
	m.fxCount[base] = n + 1
	if n == 0 {
		return base
	}
	return fmt.Sprintf("%s_%d", base, n)
}

// modelFile is the source file the locations name (made up).
const modelFile = "/work/hybrid/modeling_hybrid.py"

func (m *module) loc(l srcLoc) string {
	m.opID++
	switch m.locs {
	case "name":
		return fmt.Sprintf(" loc(%s(%s:%d:0))", graph.QuoteString(l.fx), graph.QuoteString(modelFile), l.line)
	case "debuginfo":
		return fmt.Sprintf(" loc(#debuginfo.location<src = loc(%s:%d:0), scope = unit, metadata = [#debuginfo.metadata<name = \"sources\", data = [{id = %d : ui64, identifiers = [%s], name = \"torch\"}]>, #debuginfo.metadata<name = \"op_id\", data = {type = \"coreai\", value = %d : ui64}>]>)",
			graph.QuoteString(modelFile), l.line, m.opID, graph.QuoteString(l.fx), m.opID)
	}
	return ""
}

// text is the module in the printed form, with its resource blobs.
func (m *module) text(header string) []byte {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("module {\n")
	for _, g := range m.graphs {
		b.WriteString(g)
	}
	b.WriteString("}\n")
	if len(m.blobs) > 0 {
		keys := make([]string, 0, len(m.blobs))
		for k := range m.blobs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\n{-#\n  dialect_resources: {\n    builtin: {\n")
		for i, k := range keys {
			fmt.Fprintf(&b, "      %s: \"0x02000000%X\"", k, m.blobs[k])
			if i < len(keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("    }\n  }\n#-}\n")
	}
	return []byte(b.String())
}

// port is a graph argument or result: its type and coreai.name, and for a
// state in the attribute or handle form its buffer name.
type port struct {
	name   string
	t      typ
	buffer bool // MutableBuffers.buffer_mutation = name
}

// fn writes one graph's body.
type fn struct {
	m    *module
	b    strings.Builder
	n    int
	line int // source line of the ops being written
}

func (m *module) newFn() *fn { return &fn{m: m} }

// at sets the source line of the ops that follow.
func (f *fn) at(line int) { f.line = line }

// emit writes `%r… = rhs loc` and returns the results.
func (f *fn) emit(fx, rhs string, results ...typ) []val {
	out := make([]val, len(results))
	names := make([]string, len(results))
	for i, t := range results {
		out[i] = val{name: fmt.Sprintf("%%%d", f.n), t: t}
		names[i] = out[i].name
		f.n++
	}
	f.b.WriteString("    ")
	if len(names) > 0 {
		f.b.WriteString(strings.Join(names, ", "))
		f.b.WriteString(" = ")
	}
	f.b.WriteString(rhs)
	f.b.WriteString(f.m.loc(srcLoc{fx: f.m.fxName(fx), line: f.line}))
	f.b.WriteByte('\n')
	return out
}

func (f *fn) one(fx, rhs string, t typ) val { return f.emit(fx, rhs, t)[0] }

func names(vs ...val) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.name
	}
	return strings.Join(s, ", ")
}

func types(vs ...val) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.t.inOp()
	}
	return strings.Join(s, ", ")
}

// ints is a dense integer literal: a splat when all values agree, as MLIR
// prints it.
func ints(vals []int64, scalar bool) string {
	if scalar || len(vals) > 0 && allSame(vals) {
		return fmt.Sprintf("dense<%d>", vals[0])
	}
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = strconv.FormatInt(v, 10)
	}
	return "dense<[" + strings.Join(s, ", ") + "]>"
}

func allSame(v []int64) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

// intVec is a rank-1 integer constant (shapes ui32, indices si32).
func (f *fn) intVec(fx, elem string, vals ...int64) val {
	t := tensor(elem, int64(len(vals)))
	return f.one(fx, fmt.Sprintf("coreai.constant %s : %s", ints(vals, false), t), t)
}

// intScalar is a rank-0 integer constant (an axis).
func (f *fn) intScalar(fx, elem string, v int64) val {
	t := tensor(elem)
	return f.one(fx, fmt.Sprintf("coreai.constant %s : %s", ints([]int64{v}, true), t), t)
}

// floatScalar is a rank-0 float constant in MLIR's spelling.
func (f *fn) floatScalar(fx, elem string, v float64) val {
	ft := graph.F16
	if elem == "f32" {
		ft = graph.F32
	}
	lit := strings.TrimSuffix(graph.Float(v, ft).String(), " : "+elem)
	t := tensor(elem)
	return f.one(fx, fmt.Sprintf("coreai.constant dense<%s> : %s", lit, t), t)
}

// weight is a dense_resource constant whose blob the module holds.
func (f *fn) weight(fx, key string, data []byte, shape ...int64) val {
	if _, ok := f.m.blobs[key]; !ok {
		f.m.blobs[key] = data
	}
	t := tensor("f16", shape...)
	return f.one(fx, fmt.Sprintf("coreai.constant dense_resource<%s> : %s", key, t), t)
}

func (f *fn) cast(fx string, x val, elem string) val {
	t := x.t.with(elem)
	return f.one(fx, fmt.Sprintf("coreai.cast %s : %s to %s", x.name, x.t, t), t)
}

// bin is a broadcasting binary op; the result shape is the broadcast of
// the operands' shapes.
func (f *fn) bin(fx, kind string, x, y val) val {
	t := typ{shape: broadcast(x.t.shape, y.t.shape), elem: x.t.elem}
	if kind == "greater" {
		t.elem = "i1"
	}
	return f.one(fx, fmt.Sprintf("coreai.decomposable.broadcasting_%s %s, %s : (%s) -> %s", kind, x.name, y.name, types(x, y), t), t)
}

func broadcast(a, b []int64) []int64 {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for i := 0; i < n; i++ {
		da, db := int64(1), int64(1)
		if j := i - (n - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			db = b[j]
		}
		out[i] = max(da, db)
	}
	return out
}

// unary prints `op %x : T -> T`; sigmoid and relu print their operand type
// in parentheses (tests/ops/test_ops_ir.py).
func (f *fn) unary(fx, kind string, x val) val {
	in := x.t.String()
	if kind == "sigmoid" || kind == "relu" {
		in = "(" + in + ")"
	}
	return f.one(fx, fmt.Sprintf("coreai.%s %s : %s -> %s", kind, x.name, in, x.t), x.t)
}

func (f *fn) where(fx string, c, x, y val) val {
	t := typ{shape: broadcast(c.t.shape, broadcast(x.t.shape, y.t.shape)), elem: x.t.elem}
	return f.one(fx, fmt.Sprintf("coreai.decomposable.broadcasting_where %s, %s, %s : (%s) -> %s", c.name, x.name, y.name, types(c, x, y), t), t)
}

func normAxis(rank int, a int64) int64 {
	if a < 0 {
		return a + int64(rank)
	}
	return a
}

// reduce keeps the reduced axis (coreai-torch's reduce ops); keepdim=False
// sums add a shrink_dims.
func (f *fn) reduce(fx, kind string, x val, axis int64, keep bool) val {
	a := normAxis(len(x.t.shape), axis)
	ax := f.intVec(fx, "si32", a)
	shape := append([]int64(nil), x.t.shape...)
	shape[a] = 1
	r := f.one(fx, fmt.Sprintf("coreai.%s %s, %s : (%s) -> %s", kind, x.name, ax.name, types(x, ax), x.t.withShape(shape...)), x.t.withShape(shape...))
	if keep {
		return r
	}
	return f.shrink(fx, r, a)
}

func (f *fn) shrink(fx string, x val, axis int64) val {
	ax := f.intVec(fx, "si32", axis)
	shape := append(append([]int64(nil), x.t.shape[:axis]...), x.t.shape[axis+1:]...)
	t := x.t.withShape(shape...)
	return f.one(fx, fmt.Sprintf("coreai.shrink_dims %s, %s : (%s) to %s", x.name, ax.name, types(x, ax), t), t)
}

func (f *fn) expand(fx string, x val, axis int64) val {
	ax := f.intVec(fx, "si32", axis)
	shape := append(append(append([]int64(nil), x.t.shape[:axis]...), 1), x.t.shape[axis:]...)
	t := x.t.withShape(shape...)
	return f.one(fx, fmt.Sprintf("coreai.expand_dims %s, %s : (%s) to %s", x.name, ax.name, types(x, ax), t), t)
}

func (f *fn) reshape(fx string, x val, shape ...int64) val {
	s := f.intVec(fx, "ui32", shape...)
	t := x.t.withShape(shape...)
	return f.one(fx, fmt.Sprintf("coreai.reshape %s, %s : (%s) -> %s", x.name, s.name, types(x, s), t), t)
}

func (f *fn) transpose(fx string, x val, perm ...int64) val {
	p := f.intVec(fx, "ui32", perm...)
	shape := make([]int64, len(perm))
	for i, a := range perm {
		shape[i] = x.t.shape[a]
	}
	t := x.t.withShape(shape...)
	return f.one(fx, fmt.Sprintf("coreai.transpose %s, %s : (%s) -> %s", x.name, p.name, types(x, p), t), t)
}

// sliceAxis is x[..., begin:end, ...] along one axis, as coreai-torch lowers
// aten.slice: other axes run from 0 to INT32_MAX, end INT32_MAX for "to the
// end".
func (f *fn) sliceAxis(fx string, x val, axis, begin, end int64) val {
	r := len(x.t.shape)
	b, e, s := make([]int64, r), make([]int64, r), make([]int64, r)
	for i := range r {
		e[i], s[i] = int32Max, 1
	}
	b[axis], e[axis] = begin, end
	last := end
	if end == int32Max {
		last = x.t.shape[axis]
	}
	shape := append([]int64(nil), x.t.shape...)
	shape[axis] = last - begin
	bv, ev, sv := f.intVec(fx, "si32", b...), f.intVec(fx, "si32", e...), f.intVec(fx, "si32", s...)
	t := x.t.withShape(shape...)
	return f.one(fx, fmt.Sprintf("coreai.slice %s, %s, %s, %s : (%s) -> %s", x.name, bv.name, ev.name, sv.name, types(x, bv, ev, sv), t), t)
}

func (f *fn) concat(fx string, axis int64, xs ...val) val {
	a := f.intScalar(fx, "si32", axis)
	shape := append([]int64(nil), xs[0].t.shape...)
	shape[axis] = 0
	for _, x := range xs {
		shape[axis] += x.t.shape[axis]
	}
	t := xs[0].t.withShape(shape...)
	return f.one(fx, fmt.Sprintf("coreai.concat %s, %s : (%s) -> %s", a.name, names(xs...), types(append([]val{a}, xs...)...), t), t)
}

// split cuts x into equal parts along axis (coreai.split: sizes ui32, axis
// si32, one result per part).
func (f *fn) split(fx string, x val, axis int64, sizes ...int64) []val {
	sz := f.intVec(fx, "ui32", sizes...)
	a := f.intScalar(fx, "si32", axis)
	res := make([]typ, len(sizes))
	rs := make([]string, len(sizes))
	for i, n := range sizes {
		shape := append([]int64(nil), x.t.shape...)
		shape[axis] = n
		res[i] = x.t.withShape(shape...)
		rs[i] = res[i].String()
	}
	return f.emit(fx, fmt.Sprintf("coreai.split %s, %s, %s : (%s) -> (%s)", x.name, sz.name, a.name, types(x, sz, a), strings.Join(rs, ", ")), res...)
}

// sliceUpdate writes u into x at (begin, end, stride).
func (f *fn) sliceUpdate(fx string, x, u, b, e, s val) val {
	return f.one(fx, fmt.Sprintf("coreai.slice_update %s with %s at (%s, %s, %s) : (%s) to %s", x.name, u.name, b.name, e.name, s.name, types(x, u, b, e, s), x.t), x.t)
}

// sliceUpdateAxis writes u into x at [begin:begin+len] of one axis, the
// other axes whole (aten.slice_scatter's lowering).
func (f *fn) sliceUpdateAxis(fx string, x, u val, axis, begin int64) val {
	r := len(x.t.shape)
	b, e, s := make([]int64, r), make([]int64, r), make([]int64, r)
	for i := range r {
		e[i], s[i] = int32Max, 1
	}
	b[axis], e[axis] = begin, begin+u.t.shape[axis]
	bv, ev, sv := f.intVec(fx, "si32", b...), f.intVec(fx, "si32", e...), f.intVec(fx, "si32", s...)
	return f.sliceUpdate(fx, x, u, bv, ev, sv)
}

func (f *fn) matmul(fx string, x, y val) val {
	r := len(x.t.shape)
	shape := append(broadcast(x.t.shape[:r-2], y.t.shape[:len(y.t.shape)-2]), x.t.shape[r-2], y.t.shape[len(y.t.shape)-1])
	t := x.t.withShape(shape...)
	return f.one(fx, fmt.Sprintf("coreai.decomposable.broadcasting_batch_matmul %s, %s : (%s) -> %s", x.name, y.name, types(x, y), t), t)
}

func (f *fn) softmax(fx string, x val, axis int64) val {
	a := f.intScalar(fx, "si32", normAxis(len(x.t.shape), axis))
	return f.one(fx, fmt.Sprintf("coreai.softmax %s, %s : (%s) -> %s", x.name, a.name, types(x, a), x.t), x.t)
}

// conv2d is coreai.conv2d(x, w, strides, dilations, groups) as coreai-torch
// prints it (tests/ops/test_ops_ir.py); padding is not an operand.
func (f *fn) conv2d(fx string, x, w val, groups int64) val {
	st := f.intVec(fx, "ui32", 1, 1)
	dl := f.intVec(fx, "ui32", 1, 1)
	g := f.intScalar(fx, "ui32", groups)
	oh := x.t.shape[2] - w.t.shape[2] + 1
	ow := x.t.shape[3] - w.t.shape[3] + 1
	t := x.t.withShape(x.t.shape[0], w.t.shape[0], oh, ow)
	return f.one(fx, fmt.Sprintf("coreai.conv2d %s, %s, %s, %s, %s : (%s) -> %s", x.name, w.name, st.name, dl.name, g.name, types(x, w, st, dl, g), t), t)
}

func (f *fn) gatherND(fx string, table, idx val) val {
	shape := append(append([]int64(nil), idx.t.shape[:len(idx.t.shape)-1]...), table.t.shape[idx.t.shape[len(idx.t.shape)-1]:]...)
	t := table.t.withShape(shape...)
	return f.one(fx, fmt.Sprintf("coreai.gather_nd %s at %s : (%s) to %s", table.name, idx.name, types(table, idx), t), t)
}

func (f *fn) createToken() val {
	return f.one("create_token", "coreai.create_token : !coreai.token", tokenType)
}

func (f *fn) readHandle(fx string, h, tok val) (val, val) {
	inner := typ{shape: h.t.shape, elem: h.t.elem}
	r := f.emit(fx, fmt.Sprintf("coreai.read_handle %s, %s : (%s) -> (%s, !coreai.token)", h.name, tok.name, types(h, tok), inner), inner, tokenType)
	return r[0], r[1]
}

func (f *fn) writeHandle(fx string, h, v, tok val) val {
	return f.one(fx, fmt.Sprintf("coreai.write_handle %s, %s, %s : (%s) -> !coreai.token", h.name, v.name, tok.name, types(h, v, tok)), tokenType)
}

// invoke calls a graph; coreai-torch prints two spaces before the colon.
func (f *fn) invoke(fx, callee string, args []val, results ...typ) []val {
	rs := make([]string, len(results))
	for i, t := range results {
		rs[i] = t.String()
	}
	res := strings.Join(rs, ", ")
	if len(results) != 1 {
		res = "(" + res + ")"
	}
	return f.emit(fx, fmt.Sprintf("coreai.invoke @%s(%s)  : (%s) -> %s", callee, names(args...), types(args...), res), results...)
}

func (f *fn) output(vs ...val) {
	tys := make([]string, len(vs))
	for i, v := range vs {
		tys[i] = v.t.String()
	}
	f.b.WriteString("    coreai.output " + names(vs...) + " : " + strings.Join(tys, ", "))
	f.b.WriteString(f.m.loc(srcLoc{fx: "output", line: f.line}))
	f.b.WriteByte('\n')
}

// args binds the graph's arguments to %argN values.
func args(ports []port) []val {
	out := make([]val, len(ports))
	for i, p := range ports {
		out[i] = val{name: fmt.Sprintf("%%arg%d", i), t: p.t}
	}
	return out
}

func portAttrs(p port) string {
	if p.buffer {
		return fmt.Sprintf("{MutableBuffers.buffer_mutation = %s, coreai.name = %s}", graph.QuoteString(p.name), graph.QuoteString(p.name))
	}
	return fmt.Sprintf("{coreai.name = %s}", graph.QuoteString(p.name))
}

// finish wraps the body in its coreai.graph header and adds it to the
// module. A public graph names its results; a private composite prints its
// result types bare (one without parentheses).
func (f *fn) finish(header string, ins, outs []port, named bool, attrs string) {
	var b strings.Builder
	b.WriteString("  coreai.graph ")
	b.WriteString(header)
	b.WriteByte('(')
	for i, p := range ins {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%%arg%d: %s %s", i, p.t, portAttrs(p))
	}
	b.WriteString(") -> ")
	rs := make([]string, len(outs))
	for i, p := range outs {
		rs[i] = p.t.String()
		if named {
			rs[i] += " " + portAttrs(port{name: p.name})
		}
	}
	if len(outs) == 1 && !named {
		b.WriteString(rs[0])
	} else {
		b.WriteString("(" + strings.Join(rs, ", ") + ")")
	}
	if attrs != "" {
		b.WriteString(" attributes " + attrs)
	}
	b.WriteString(" {\n")
	b.WriteString(f.b.String())
	b.WriteString("  }\n")
	f.m.graphs = append(f.m.graphs, b.String())
}
