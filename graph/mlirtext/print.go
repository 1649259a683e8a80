package mlirtext

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
)

// Format prints m in form (formKeep is treated as FormGeneric).
func Format(m *graph.Module, form Form) ([]byte, error) {
	var b bytes.Buffer
	if err := Write(&b, m, form); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write prints m to w. FormGeneric is what `mlir-opt --mlir-print-op-generic
// --mlir-print-debuginfo` prints (locations inline instead of aliased);
// FormPretty uses the coreai printed syntax for the ops that have one and
// generic syntax for every op whose contents that syntax cannot carry, so
// nothing is lost in either form.
func Write(w io.Writer, m *graph.Module, form Form) error {
	// Values a bytecode reader kept in an encoding anefix cannot interpret
	// have no text form; printing their descriptions would be invalid MLIR.
	if op, why := graph.FindBytecodeOnly(m); op != nil {
		return fmt.Errorf("%s: %s; it has no MLIR text form, so this module can only be written as bytecode", op.Describe(), why)
	}
	if err := checkNesting(m, form); err != nil {
		return err
	}
	return write(w, m, form, true)
}

// write prints m, with its resources or without (checkNesting's trial).
func write(w io.Writer, m *graph.Module, form Form, withResources bool) error {
	pr := &printer{w: bufio.NewWriterSize(w, 1<<16), pretty: form == FormPretty}
	pr.names = map[*graph.Block]*blockNames{}
	pr.tstr = map[graph.Type]string{}
	pr.typeFn = pr.typeStr // one func value, not one made at each call
	pr.blocks = map[*graph.Block]string{}
	pr.nameTopLevel(m.Op)
	pr.op(m.Op, 0)
	if pr.err != nil {
		return pr.err
	}
	pr.w.WriteByte('\n')
	if withResources {
		if err := pr.resources(m); err != nil {
			return err
		}
	}
	return pr.w.Flush()
}

type printer struct {
	w      *bufio.Writer
	pretty bool
	// names holds each block's value names (blockNames); lastBlock and
	// lastNames are the block found last (an op's operands are mostly in
	// its own block).
	names     map[*graph.Block]*blockNames
	lastBlock *graph.Block
	lastNames *blockNames
	blocks    map[*graph.Block]string
	nextV     int
	nextA     int
	err       error // first IR inconsistency met while printing
	tstr      map[graph.Type]string
	typeFn    func(graph.Type) string // typeStr, for graph.WriteAttrTypes
	num       []byte                  // scratch for names and numbers
	// lastLoc is the last location printed and locText its spelling:
	// neighbouring ops share one (a parsed module shares equal locations,
	// and an exporter gives an op's constants the op's location).
	lastLoc graph.Loc
	locText bytes.Buffer
}

// valueName is a value's printed name as numbers, formatted as it is
// written (a string per value cost about three times as much): the kind in
// the low 2 bits, then the number, then a group index.
type valueName uint64

const (
	vnUnset  = iota
	vnResult // %N
	vnGroup  // %N#i
	vnArg    // %argN
)

// maxNamed bounds the numbers a valueName holds (2^31 values would take
// hundreds of gigabytes; past it printing fails instead of mis-naming).
const maxNamed = 1<<31 - 1

// blockNames names a block's values: its arguments %argN from args on,
// and the results of the op at position k from results[k], the name of its
// first result (vnUnset for none); the other results follow from it (a
// group's index, or the next numbers for coreai ops named one by one). Four
// or eight bytes an op instead of a map entry a value.
type blockNames struct {
	args    int
	results []valueName
}

// nameFor makes the valueName of kind, n and i, or records that the numbers
// ran out.
func (pr *printer) nameFor(kind, n, i int) valueName {
	if n > maxNamed || i > maxNamed {
		if pr.err == nil {
			pr.err = fmt.Errorf("mlirtext: cannot print: more than %d values", maxNamed)
		}
		return vnUnset
	}
	return valueName(kind) | valueName(n)<<2 | valueName(i)<<33
}

// valueName is v's name as nameOp gave it, or vnUnset for a value outside
// the module.
func (pr *printer) valueName(v *graph.Value) valueName {
	if v == nil {
		return vnUnset
	}
	b := v.ParentBlock()
	bn := pr.lastNames
	if b != pr.lastBlock || bn == nil {
		if bn = pr.names[b]; bn == nil {
			return vnUnset
		}
		pr.lastBlock, pr.lastNames = b, bn
	}
	op := v.DefiningOp()
	if op == nil {
		_, i, _ := v.BlockArg()
		return pr.nameFor(vnArg, bn.args+i, 0)
	}
	k := op.Position()
	if k < 0 || k >= len(bn.results) {
		return vnUnset
	}
	vn, i := bn.results[k], v.ResultIndex()
	switch {
	case i == 0 || vn == vnUnset:
		return vn
	case vn&3 == vnGroup:
		return pr.nameFor(vnGroup, int(vn>>2&maxNamed), i)
	}
	return pr.nameFor(vnResult, int(vn>>2&maxNamed)+i, 0) // named one by one
}

// appendName appends v's name; ok is false for a value without one.
func appendName(dst []byte, vn valueName) ([]byte, bool) {
	n := int64(vn >> 2 & maxNamed)
	switch vn & 3 {
	case vnResult:
		return strconv.AppendInt(append(dst, '%'), n, 10), true
	case vnGroup:
		dst = strconv.AppendInt(append(dst, '%'), n, 10)
		return strconv.AppendInt(append(dst, '#'), int64(vn>>33), 10), true
	case vnArg:
		return strconv.AppendInt(append(dst, "%arg"...), n, 10), true
	}
	return dst, false
}

// typeStr caches type spellings by identity; parsed modules share type
// objects, so most lookups hit.
func (pr *printer) typeStr(t graph.Type) string {
	if s, ok := pr.tstr[t]; ok {
		return s
	}
	s := t.String()
	pr.tstr[t] = s
	return s
}

// nameTopLevel numbers values the way MLIR does in spirit: results %N,
// block arguments %argN, restarting for each op directly in a module
// (functions are isolated from above). Names are assigned before printing
// so uses that precede definitions (graph regions) print correctly.
func (pr *printer) nameTopLevel(op *graph.Operation) {
	pr.nextV, pr.nextA = 0, 0
	pr.nameOp(op, true)
}

// nameOp names op's results and, inside its regions, every value, and
// returns the name of op's first result (vnUnset for none).
func (pr *printer) nameOp(op *graph.Operation, top bool) valueName {
	first := valueName(vnUnset)
	if n := op.NumResults(); n > 1 && pr.pretty && strings.HasPrefix(op.Name, "coreai.") {
		// coreai ops name their results one by one (`%1, %2 =
		// coreai.read_handle …`, coreai-torch's tests).
		first = pr.nameFor(vnResult, pr.nextV, 0)
		pr.nameFor(vnResult, pr.nextV+n-1, 0) // the last must fit too
		pr.nextV += n
	} else if n > 0 {
		if n == 1 {
			first = pr.nameFor(vnResult, pr.nextV, 0)
		} else {
			first = pr.nameFor(vnGroup, pr.nextV, 0)
			pr.nameFor(vnGroup, pr.nextV, n-1)
		}
		pr.nextV++
	}
	for _, r := range op.Regions {
		for bi, b := range r.Blocks {
			pr.blocks[b] = "^bb" + strconv.Itoa(bi)
			bn := &blockNames{args: pr.nextA, results: make([]valueName, 0, b.Len())}
			pr.names[b] = bn
			if len(b.Args()) > 0 {
				pr.nameFor(vnArg, pr.nextA+len(b.Args())-1, 0)
			}
			pr.nextA += len(b.Args())
			// Functions restart at %0 (they are isolated from above), unless
			// the module body itself defines values that nested regions
			// could see: then one numbering keeps every name unambiguous.
			restart := top && op.Name == "builtin.module" && !definesValues(b)
			for o := b.First(); o != nil; o = o.Next() {
				if restart {
					save, saveA := pr.nextV, pr.nextA
					pr.nextV, pr.nextA = 0, 0
					bn.results = append(bn.results, pr.nameOp(o, false))
					pr.nextV, pr.nextA = save, saveA
					continue
				}
				bn.results = append(bn.results, pr.nameOp(o, false))
			}
		}
	}
	return first
}

func definesValues(b *graph.Block) bool {
	if len(b.Args()) > 0 {
		return true
	}
	for o := b.First(); o != nil; o = o.Next() {
		if o.NumResults() > 0 {
			return true
		}
	}
	return false
}

func (pr *printer) name(v *graph.Value) string {
	if b, ok := appendName(nil, pr.valueName(v)); ok {
		return string(b)
	}
	return pr.invalidName(v)
}

// writeName writes v's name without building a string.
func (pr *printer) writeName(v *graph.Value) {
	b, ok := appendName(pr.num[:0], pr.valueName(v))
	if !ok {
		pr.str(pr.invalidName(v))
		return
	}
	pr.w.Write(b)
	pr.num = b[:0]
}

func (pr *printer) invalidName(v *graph.Value) string {
	// A nil operand or a value from outside the module is an IR bug; report
	// it instead of writing text that cannot be read back.
	if pr.err == nil {
		what := "a value defined outside the module"
		if v == nil {
			what = "a nil value"
		}
		pr.err = fmt.Errorf("mlirtext: cannot print: an operand refers to %s", what)
	}
	return "%<<invalid>>"
}

func (pr *printer) indent(n int) {
	for i := 0; i < n; i++ {
		pr.w.WriteByte(' ')
	}
}

func (pr *printer) str(s string) { pr.w.WriteString(s) }

func (pr *printer) loc(l graph.Loc) {
	if l == nil {
		l = graph.Unknown
	}
	// The custom form shows the locations the text carried, nothing more.
	if f, ok := l.(*graph.FileLoc); ok && f.Implicit && pr.pretty {
		return
	}
	pr.str(" loc(")
	if l != pr.lastLoc || pr.locText.Len() == 0 {
		pr.locText.Reset()
		graph.WriteLoc(&pr.locText, l)
		pr.lastLoc = l
	}
	pr.w.Write(pr.locText.Bytes())
	pr.str(")")
}

func (pr *printer) resultsPrefix(op *graph.Operation) {
	n := op.NumResults()
	if n == 0 {
		return
	}
	vn := pr.valueName(op.Result(0))
	switch {
	case n > 1 && vn&3 == vnGroup: // %N:n
		b := strconv.AppendInt(append(pr.num[:0], '%'), int64(vn>>2&maxNamed), 10)
		b = strconv.AppendInt(append(b, ':'), int64(n), 10)
		pr.w.Write(b)
		pr.num = b[:0]
	default:
		for i, r := range op.Results() {
			if i > 0 {
				pr.str(", ")
			}
			pr.writeName(r)
		}
	}
	pr.str(" = ")
}

func (pr *printer) operands(vs []*graph.Value) {
	for i, v := range vs {
		if i > 0 {
			pr.str(", ")
		}
		pr.writeName(v)
	}
}

func types(vs []*graph.Value) []graph.Type {
	out := make([]graph.Type, len(vs))
	for i, v := range vs {
		out[i] = v.Type()
	}
	return out
}

func (pr *printer) op(op *graph.Operation, ind int) {
	pr.indent(ind)
	if pr.pretty && pr.prettyOp(op, ind) {
		return
	}
	pr.genericOp(op, ind)
}

func (pr *printer) genericOp(op *graph.Operation, ind int) {
	pr.resultsPrefix(op)
	graph.WriteQuoted(pr.w, op.Name)
	pr.str("(")
	pr.operands(op.Operands())
	pr.str(")")
	if s := op.Successors(); len(s) > 0 {
		pr.str("[")
		for i, b := range s {
			if i > 0 {
				pr.str(", ")
			}
			pr.str(pr.blocks[b])
		}
		pr.str("]")
	}
	if op.Props != nil {
		pr.str(" <")
		graph.WriteAttrTypes(pr.w, op.Props, pr.typeFn)
		pr.str(">")
	}
	if len(op.Regions) > 0 {
		pr.str(" (")
		for i, r := range op.Regions {
			if i > 0 {
				pr.str(", ")
			}
			pr.region(r, ind, true)
		}
		pr.str(")")
	}
	if op.Attrs.Len() > 0 {
		pr.str(" ")
		graph.WriteAttrTypes(pr.w, op.Attrs, pr.typeFn)
	}
	pr.str(" : ")
	pr.fnType(op)
	pr.loc(op.Loc)
	pr.str("\n")
}

// fnType prints `(operand types) -> result types` as MLIR does.
func (pr *printer) fnType(op *graph.Operation) {
	pr.str("(")
	for i, v := range op.Operands() {
		if i > 0 {
			pr.str(", ")
		}
		pr.str(pr.valType(v))
	}
	pr.str(") -> ")
	rs := op.Results()
	if len(rs) == 1 {
		if _, isFn := rs[0].Type().(*graph.FunctionType); !isFn {
			pr.str(pr.typeStr(rs[0].Type()))
			return
		}
	}
	pr.str("(")
	for i, v := range rs {
		if i > 0 {
			pr.str(", ")
		}
		pr.str(pr.typeStr(v.Type()))
	}
	pr.str(")")
}

func (pr *printer) valType(v *graph.Value) string {
	if v == nil || v.Type() == nil {
		return "<<no type>>"
	}
	return pr.typeStr(v.Type())
}

// region prints `{ blocks }`; with entryLabel false the entry block's
// arguments are printed elsewhere (a function signature).
func (pr *printer) region(r *graph.Region, ind int, entryLabel bool) {
	pr.str("{\n")
	for i, b := range r.Blocks {
		label := i > 0 || (entryLabel && (len(b.Args()) > 0 || b.Len() == 0))
		if label {
			pr.indent(ind)
			pr.str(pr.blocks[b])
			if len(b.Args()) > 0 {
				pr.str("(")
				for k, a := range b.Args() {
					if k > 0 {
						pr.str(", ")
					}
					pr.str(pr.name(a))
					pr.str(": ")
					pr.str(pr.typeStr(a.Type()))
					pr.loc(a.Loc)
				}
				pr.str(")")
			}
			pr.str(":\n")
		}
		for o := b.First(); o != nil; o = o.Next() {
			pr.op(o, ind+2)
		}
	}
	pr.indent(ind)
	pr.str("}")
}

// ------------------------------------------------------------ pretty form

func (pr *printer) prettyOp(op *graph.Operation, ind int) bool {
	// Custom syntax spells the op name bare; other names need quotes.
	if len(op.Successors()) > 0 || !graph.IsBareIdent(op.Name) {
		return false
	}
	switch op.Name {
	case "builtin.module":
		return pr.prettyModule(op, ind)
	case "coreai.graph", "func.func":
		return pr.prettyFunc(op, ind)
	case "coreai.invoke", "func.call":
		return pr.prettyCall(op)
	case "coreai.constant":
		return pr.prettyConstant(op)
	}
	if returnOps[op.Name] {
		return pr.prettyReturn(op)
	}
	if op.Name == "coreai.metal4_kernel" {
		return pr.prettyMetalKernel(op)
	}
	if strings.HasPrefix(op.Name, "coreai.") {
		return pr.prettyUniform(op, ind)
	}
	return false
}

func propsDict(op *graph.Operation) (*graph.DictAttr, bool) {
	if op.Props == nil {
		return nil, true
	}
	d, ok := op.Props.(*graph.DictAttr)
	return d, ok
}

func (pr *printer) prettyModule(op *graph.Operation, ind int) bool {
	d, ok := propsDict(op)
	if !ok || op.NumOperands() > 0 || op.NumResults() > 0 || len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 || len(op.Regions[0].Blocks[0].Args()) > 0 {
		return false
	}
	sym := ""
	if d.Len() > 0 {
		s, ok := d.Get(graph.AttrSymName).(*graph.StringAttr)
		if d.Len() != 1 || !ok || s.Type != nil {
			return false
		}
		sym = s.Value
	}
	pr.str("module")
	if sym != "" {
		pr.str(" ")
		pr.str(graph.SymbolName(sym))
	}
	if op.Attrs.Len() > 0 {
		pr.str(" attributes ")
		graph.WriteAttrTypes(pr.w, op.Attrs, pr.typeFn)
	}
	pr.str(" ")
	pr.region(op.Regions[0], ind, false)
	pr.loc(op.Loc)
	pr.str("\n")
	return true
}

func (pr *printer) prettyFunc(op *graph.Operation, ind int) bool {
	d, ok := propsDict(op)
	if !ok || d == nil || op.NumOperands() > 0 || op.NumResults() > 0 || len(op.Regions) != 1 {
		return false
	}
	sym, ok1 := d.Get(graph.AttrSymName).(*graph.StringAttr)
	fta, ok2 := d.Get(graph.AttrFunctionType).(*graph.TypeAttr)
	if !ok1 || !ok2 || sym.Type != nil {
		return false
	}
	ft, ok := fta.Type.(*graph.FunctionType)
	if !ok {
		return false
	}
	known := 2
	vis := ""
	if v := d.Get(graph.AttrVisibility); v != nil {
		s, ok := v.(*graph.StringAttr)
		if !ok || s.Type != nil || (s.Value != "private" && s.Value != "public" && s.Value != "nested") {
			return false
		}
		vis = s.Value
		known++
	}
	noinline := false
	if v := d.Get(attrNoInline); v != nil {
		if _, ok := v.(*graph.UnitAttr); !ok || op.Name != "coreai.graph" {
			return false
		}
		noinline = true
		known++
	}
	argAttrs, okA := dictList(d.Get(graph.AttrArgAttrs), len(ft.Inputs))
	resAttrs, okR := dictList(d.Get(graph.AttrResAttrs), len(ft.Results))
	if !okA || !okR {
		return false
	}
	if d.Get(graph.AttrArgAttrs) != nil {
		known++
	}
	if d.Get(graph.AttrResAttrs) != nil {
		known++
	}
	if known != d.Len() {
		return false
	}
	r := op.Regions[0]
	decl := len(r.Blocks) == 0
	if !decl {
		entry := r.Blocks[0]
		if len(entry.Args()) != len(ft.Inputs) {
			return false
		}
		for i, a := range entry.Args() {
			if !graph.TypeEqual(a.Type(), ft.Inputs[i]) {
				return false
			}
		}
	}
	pr.str(opShortName(op.Name))
	if vis != "" {
		pr.str(" ")
		pr.str(vis)
	}
	if noinline {
		pr.str(" noinline")
	}
	pr.str(" ")
	pr.str(graph.SymbolName(sym.Value))
	pr.str("(")
	for i, t := range ft.Inputs {
		if i > 0 {
			pr.str(", ")
		}
		if !decl {
			a := r.Blocks[0].Arg(i)
			pr.str(pr.name(a))
			pr.str(": ")
		}
		pr.str(t.String())
		if argAttrs[i].Len() > 0 {
			pr.str(" ")
			graph.WriteAttrTypes(pr.w, argAttrs[i], pr.typeFn)
		}
		if !decl {
			pr.loc(r.Blocks[0].Arg(i).Loc)
		}
	}
	pr.str(")")
	if len(ft.Results) > 0 {
		pr.str(" -> ")
		_, isFn := ft.Results[0].(*graph.FunctionType)
		if len(ft.Results) == 1 && resAttrs[0].Len() == 0 && !isFn {
			pr.str(ft.Results[0].String())
		} else {
			pr.str("(")
			for i, t := range ft.Results {
				if i > 0 {
					pr.str(", ")
				}
				pr.str(t.String())
				if resAttrs[i].Len() > 0 {
					pr.str(" ")
					graph.WriteAttrTypes(pr.w, resAttrs[i], pr.typeFn)
				}
			}
			pr.str(")")
		}
	}
	if op.Attrs.Len() > 0 {
		pr.str(" attributes ")
		graph.WriteAttrTypes(pr.w, op.Attrs, pr.typeFn)
	}
	if !decl {
		pr.str(" ")
		pr.region(r, ind, false)
	}
	pr.loc(op.Loc)
	pr.str("\n")
	return true
}

// dictList checks that a is absent or an array of n dictionaries.
func dictList(a graph.Attr, n int) ([]*graph.DictAttr, bool) {
	out := make([]*graph.DictAttr, n)
	for i := range out {
		out[i] = &graph.DictAttr{}
	}
	if a == nil {
		return out, true
	}
	arr, ok := a.(*graph.ArrayAttr)
	if !ok || arr.Len() != n {
		return nil, false
	}
	empty := true
	for i := range n {
		d, ok := arr.At(i).(*graph.DictAttr)
		if !ok {
			return nil, false
		}
		out[i] = d
		if d.Len() > 0 {
			empty = false
		}
	}
	// An all-empty list would not come back from the printed form.
	return out, !empty
}

func opShortName(name string) string {
	if name == "builtin.module" {
		return "module"
	}
	return name
}

func (pr *printer) prettyReturn(op *graph.Operation) bool {
	if op.Props != nil || op.Attrs.Len() > 0 || op.NumResults() > 0 || len(op.Regions) > 0 {
		return false
	}
	pr.str(op.Name)
	if op.NumOperands() > 0 {
		pr.str(" ")
		pr.operands(op.Operands())
		pr.str(" : ")
		for i, v := range op.Operands() {
			if i > 0 {
				pr.str(", ")
			}
			pr.str(v.Type().String())
		}
	}
	pr.loc(op.Loc)
	pr.str("\n")
	return true
}

func (pr *printer) prettyCall(op *graph.Operation) bool {
	d, ok := propsDict(op)
	if !ok || d.Len() != 1 || len(op.Regions) > 0 {
		return false
	}
	callee, ok := d.Get("callee").(*graph.SymbolRefAttr)
	if !ok {
		return false
	}
	pr.resultsPrefix(op)
	pr.str(op.Name)
	pr.str(" ")
	pr.str(callee.String())
	pr.str("(")
	pr.operands(op.Operands())
	pr.str(")")
	if op.Attrs.Len() > 0 {
		pr.str(" ")
		graph.WriteAttrTypes(pr.w, op.Attrs, pr.typeFn)
	}
	pr.str(" : ")
	pr.str(graph.FormatFunctionType(types(op.Operands()), types(op.Results())))
	pr.loc(op.Loc)
	pr.str("\n")
	return true
}

// attrType is the type written after a typed attribute, when it has one.
func attrType(a graph.Attr) graph.Type {
	switch x := a.(type) {
	case *graph.DenseElementsAttr:
		return x.Type
	case *graph.DenseResourceAttr:
		return x.Type
	case *graph.IntegerAttr:
		if it, ok := x.Type.(*graph.IntegerType); ok && it.Width == 1 {
			return nil // printed as true/false, type implicit
		}
		return x.Type
	case *graph.FloatAttr:
		return x.Type
	case *graph.StringAttr:
		return x.Type
	}
	return nil
}

func (pr *printer) prettyConstant(op *graph.Operation) bool {
	d, ok := propsDict(op)
	if !ok || d.Len() != 1 || op.Attrs.Len() > 0 || op.NumOperands() > 0 || op.NumResults() != 1 || len(op.Regions) > 0 {
		return false
	}
	v := d.Get("value")
	if v == nil {
		return false
	}
	t := attrType(v)
	if t == nil {
		// Verbatim attributes (complex, string elements) end in ": type".
		raw, isRaw := v.(*graph.RawAttr)
		if !isRaw || !strings.HasSuffix(raw.Text, " : "+op.Result(0).Type().String()) {
			return false
		}
	} else if !graph.TypeEqual(t, op.Result(0).Type()) {
		return false
	}
	pr.resultsPrefix(op)
	pr.str("coreai.constant ")
	graph.WriteAttrTypes(pr.w, v, pr.typeFn)
	pr.loc(op.Loc)
	pr.str("\n")
	return true
}

// typeList writes the types of vs: one bare (unless a function type), else
// parenthesized.
func (pr *printer) typeList(vs []*graph.Value) {
	if len(vs) == 1 {
		if _, isFn := vs[0].Type().(*graph.FunctionType); !isFn {
			pr.str(pr.valType(vs[0]))
			return
		}
	}
	pr.w.WriteByte('(')
	for i, v := range vs {
		if i > 0 {
			pr.str(", ")
		}
		pr.str(pr.valType(v))
	}
	pr.w.WriteByte(')')
}

// sigTypeList writes the types of a custom op signature: a state handle
// stripped to `<tensor<…>>` as coreai-torch prints it, one type bare unless
// parens is set.
func (pr *printer) sigTypeList(vs []*graph.Value, parens bool) {
	if len(vs) == 1 {
		if _, isFn := vs[0].Type().(*graph.FunctionType); isFn {
			parens = true // `((T) -> U) -> V`, else the arrow is ambiguous
		}
	}
	if len(vs) != 1 || parens {
		pr.w.WriteByte('(')
	}
	for i, v := range vs {
		if i > 0 {
			pr.str(", ")
		}
		s := pr.valType(v)
		if isHandle(v.Type()) {
			s = strings.TrimPrefix(s, "!coreai.handle")
		}
		pr.str(s)
	}
	if len(vs) != 1 || parens {
		pr.w.WriteByte(')')
	}
}

// prettyMetalKernel prints `coreai.metal4_kernel kernel_args(…),
// threads_per_grid %g, threads_per_thread_group %t, result_shapes(…)
// {attrs} : (…) -> T` when the segment sizes fit that form.
func (pr *printer) prettyMetalKernel(op *graph.Operation) bool {
	d, ok := propsDict(op)
	if !ok || d == nil || d.Len() != 1 || len(op.Regions) > 0 {
		return false
	}
	seg, ok := d.Get(attrSegmentSizes).(*graph.DenseArrayAttr)
	if !ok || seg.Len() != len(metalKernelGroups) {
		return false
	}
	if it, ok := seg.Elem.(*graph.IntegerType); !ok || it.Width != 32 || it.Signedness != graph.Signless {
		return false
	}
	sizes := seg.Int64s()
	total := int64(0)
	for i, n := range sizes {
		if n < 0 || !strings.HasSuffix(metalKernelGroups[i], "(") && n != 1 {
			return false
		}
		total += n
	}
	if total != int64(op.NumOperands()) {
		return false
	}
	for _, r := range op.Results() {
		if isHandle(r.Type()) {
			return false
		}
	}
	pr.resultsPrefix(op)
	pr.str(op.Name)
	ops := op.Operands()
	for i, g := range metalKernelGroups {
		if i > 0 {
			pr.str(",")
		}
		kw := strings.TrimSuffix(g, "(")
		pr.str(" " + kw)
		n := sizes[i]
		if kw != g {
			pr.str("(")
			pr.operands(ops[:n])
			pr.str(")")
		} else {
			pr.str(" " + pr.name(ops[0]))
		}
		ops = ops[n:]
	}
	if op.Attrs.Len() > 0 {
		pr.str(" ")
		graph.WriteAttrTypes(pr.w, op.Attrs, pr.typeFn)
	}
	pr.str(" : ")
	if op.NumOperands() > 0 {
		pr.sigTypeList(op.Operands(), false)
		pr.str(" -> ")
	}
	pr.typeList(op.Results())
	pr.loc(op.Loc)
	pr.str("\n")
	return true
}

func isHandle(t graph.Type) bool {
	o, ok := t.(*graph.OpaqueType)
	return ok && strings.HasPrefix(o.Text, "!coreai.handle<")
}

func (pr *printer) prettyUniform(op *graph.Operation, ind int) bool {
	// Properties print only as stripped enum attributes (`mode = <constant>`).
	var enums []string
	if op.Props != nil {
		d, ok := op.Props.(*graph.DictAttr)
		if !ok {
			return false
		}
		for _, e := range d.Entries {
			body, ok := enumAttrBody(e.Name, e.Value)
			if !ok || !graph.IsBareIdent(e.Name) {
				return false
			}
			enums = append(enums, e.Name+" = "+body)
		}
	}
	kws := regionOps[op.Name]
	if len(op.Regions) > len(kws) || len(op.Regions) > 0 && len(kws) == 0 {
		return false
	}
	ops := op.Operands()
	kwOps, hasKw := keywordOperands[op.Name]
	if hasKw {
		paren := strings.HasSuffix(kwOps[len(kwOps)-1], "(")
		if n := len(kwOps) + 1; len(ops) != n && !(paren && op.Name == "coreai.slice_update" && len(ops) == 5) {
			return false
		}
	}
	for _, r := range op.Results() {
		if isHandle(r.Type()) {
			return false // a stripped handle is read back only among operand types
		}
	}
	if len(ops) == 0 {
		if len(op.Results()) != 1 {
			return false // `: T` alone names one result type
		}
		if _, isFn := op.Result(0).Type().(*graph.FunctionType); isFn {
			return false // `: ((T) -> U)` would read as operand types
		}
	}
	if len(kws) > 0 && len(op.Regions) == 0 && op.Attrs.Len() > 0 {
		return false // the attribute dictionary would read as the first region
	}
	pr.resultsPrefix(op)
	pr.str(op.Name)
	switch {
	case hasKw:
		pr.str(" " + pr.name(ops[0]))
		rest := ops[1:]
		for _, kw := range kwOps {
			if strings.HasSuffix(kw, "(") {
				pr.str(" " + kw[:len(kw)-1] + " (")
				pr.operands(rest)
				pr.str(")")
				break
			}
			pr.str(" " + kw + " " + pr.name(rest[0]))
			rest = rest[1:]
		}
	case len(ops) > 0:
		pr.str(" ")
		pr.operands(ops)
	}
	for _, e := range enums {
		pr.str(" " + e)
	}
	for i, r := range op.Regions {
		if kws[i] != "" {
			pr.str(" " + kws[i])
		}
		pr.str(" ")
		pr.region(r, ind, true)
	}
	if op.Attrs.Len() > 0 {
		pr.str(" ")
		graph.WriteAttrTypes(pr.w, op.Attrs, pr.typeFn)
	}
	pr.str(" : ")
	if len(ops) > 0 {
		pr.sigTypeList(ops, parenSingleInput[op.Name])
		if toOps[op.Name] {
			pr.str(" to ")
		} else {
			pr.str(" -> ")
		}
	}
	pr.typeList(op.Results())
	pr.loc(op.Loc)
	pr.str("\n")
	return true
}

// -------------------------------------------------------------- resources

func (pr *printer) resources(m *graph.Module) error {
	dialect, external := withData(m.Resources), withData(m.ExternalResources)
	if len(dialect) == 0 && len(external) == 0 {
		return nil
	}
	pr.str("\n{-#\n")
	sections := 0
	if len(dialect) > 0 {
		pr.str("  dialect_resources: {\n")
		if err := pr.resourceGroups(dialect, false); err != nil {
			return err
		}
		pr.str("  }")
		sections++
	}
	if len(external) > 0 {
		if sections > 0 {
			pr.str(",\n")
		}
		pr.str("  external_resources: {\n")
		if err := pr.resourceGroups(external, true); err != nil {
			return err
		}
		pr.str("  }")
	}
	pr.str("\n#-}\n")
	return nil
}

// withData leaves out the blob entries that hold no data: a handle
// declared without bytes (the bytecode writer keeps the declaration of a
// blob a pass removed, graph/bytecode's planResources; an absent weight a
// read-only command marked). Text has no spelling for one, and it needs
// none: a dense_resource<key> without an entry is such a handle when read
// back, and mlir-opt 19 and 22 print the same bytecode without the entry.
// Whether a module may be written with a referenced handle of that kind is
// graph.VerifyWritable's to say, before any writer runs.
func withData(rs []*graph.Resource) []*graph.Resource {
	out := rs[:0:0]
	for _, r := range rs {
		if r.Kind == graph.BlobResource && r.Blob == nil && r.Text == "" {
			continue
		}
		out = append(out, r)
	}
	return out
}

// resourceGroups prints entries grouped by owner, owners in order of first
// appearance, entries in their order.
func (pr *printer) resourceGroups(rs []*graph.Resource, external bool) error {
	var owners []string
	byOwner := map[string][]*graph.Resource{}
	for _, r := range rs {
		if _, ok := byOwner[r.Dialect]; !ok {
			owners = append(owners, r.Dialect)
		}
		byOwner[r.Dialect] = append(byOwner[r.Dialect], r)
	}
	for i, o := range owners {
		if i > 0 {
			pr.str(",\n")
		}
		pr.str("    " + graph.QuoteIdent(o) + ": {\n")
		for k, r := range byOwner[o] {
			if k > 0 {
				pr.str(",\n")
			}
			pr.str("      " + graph.QuoteIdent(r.Key) + ": ")
			if err := pr.resourceValue(r, external); err != nil {
				return err
			}
		}
		pr.str("\n    }")
	}
	pr.str("\n")
	return nil
}

func (pr *printer) resourceValue(r *graph.Resource, external bool) error {
	if external && r.Text != "" {
		pr.str(r.Text)
		return nil
	}
	switch r.Kind {
	case graph.BoolResource:
		pr.str(strconv.FormatBool(r.Bool))
		return nil
	case graph.StringResource:
		pr.str(graph.QuoteString(r.String))
		return nil
	}
	if r.Blob == nil {
		return fmt.Errorf("resource %q has no data", r.Key)
	}
	align := r.Alignment
	if align == 0 {
		align = 1
	}
	if !graph.ValidAlignment(align) {
		// The parser refuses it, so printing it would write unreadable text.
		return fmt.Errorf("resource %q: alignment %d is not a power of two up to %d", r.Key, align, graph.MaxBlobAlignment)
	}
	var a [4]byte
	binary.LittleEndian.PutUint32(a[:], uint32(align))
	pr.str(`"0x`)
	pr.str(strings.ToUpper(hex.EncodeToString(a[:])))
	if hb, ok := r.Blob.(*hexBlob); ok {
		// Still text: copy the digits as they were.
		pr.str(hb.text[hb.off : hb.off+int(2*hb.n)])
	} else {
		buf := make([]byte, 1<<16)
		enc := make([]byte, 2<<16)
		n := r.Blob.Size()
		for off := int64(0); off < n; {
			k := min(int64(len(buf)), n-off)
			got, err := r.Blob.ReadAt(buf[:k], off)
			if int64(got) < k {
				if err == nil {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("reading resource %q: %w", r.Key, err)
			}
			hex.Encode(enc, buf[:k])
			pr.w.Write(bytes.ToUpper(enc[:2*k]))
			off += k
		}
	}
	pr.str(`"`)
	return nil
}
