package bytecode

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/anefix/anefix/graph"
)

// propKind is the attribute kind a native properties field must hold. The
// reader checks every decoded field against it, so that a layout is only
// accepted for a blob it really describes.
type propKind int

// Attribute kinds of native properties fields.
const (
	anyProp          propKind = iota // any attribute
	stringProp                       // a string (sym_name, sym_visibility)
	functionTypeProp                 // a type attribute holding a function type
	dictArrayProp                    // an array of dictionaries (arg_attrs, res_attrs)
	unitProp                         // the unit attribute (no_inline)
	symbolRefProp                    // a symbol reference (callee)
)

func (k propKind) String() string {
	return [...]string{"any attribute", "a string", "a function type", "an array of dictionaries", "unit", "a symbol reference"}[k]
}

func (k propKind) matches(a graph.Attr) bool {
	switch k {
	case stringProp:
		_, ok := a.(*graph.StringAttr)
		return ok
	case functionTypeProp:
		ta, ok := a.(*graph.TypeAttr)
		if !ok {
			return false
		}
		_, ok = ta.Type.(*graph.FunctionType)
		return ok
	case dictArrayProp:
		arr, ok := a.(*graph.ArrayAttr)
		if !ok {
			return false
		}
		if _, _, _, packed := arr.Packed(); packed {
			return false // integers or floats
		}
		for _, e := range arr.Elems {
			if _, ok := e.(*graph.DictAttr); !ok {
				return false
			}
		}
		return true
	case unitProp:
		_, ok := a.(*graph.UnitAttr)
		return ok
	case symbolRefProp:
		_, ok := a.(*graph.SymbolRefAttr)
		return ok
	}
	return true
}

// propField is one entry of an op's native properties layout: an attribute
// reference, written as a plain index or, when Optional, as a flagged one
// (0 = absent), holding an attribute of the given Kind.
type propField struct {
	Name     string
	Optional bool
	Kind     propKind
}

// nativeLayout is the native properties layout ODS generates for one op in
// the MLIR releases listed in MLIR (major versions whose output was checked;
// empty for a layout registered without that knowledge). ODS writes an op's
// attributes sorted by name, the required ones with writeAttribute (a plain
// index) and the optional, default-valued and unit ones with
// writeOptionalAttribute (a flagged index), as MLIR's op definition
// generator does (read in its source, and seen in mlir-opt's output).
type nativeLayout struct {
	MLIR   []int
	Fields []propField
}

func (l *nativeLayout) forMLIR(major int) bool {
	for _, m := range l.MLIR {
		if m == major {
			return true
		}
	}
	return false
}

// describe is "MLIR 19" or "MLIR 22" for messages.
func (l *nativeLayout) describe() string {
	if len(l.MLIR) == 0 {
		return "a registered layout"
	}
	parts := make([]string, len(l.MLIR))
	for i, m := range l.MLIR {
		parts[i] = strconv.Itoa(m)
	}
	return "the MLIR " + strings.Join(parts, "/") + " layout"
}

var (
	optStr       = func(n string) propField { return propField{n, true, stringProp} }
	optDictArray = func(n string) propField { return propField{n, true, dictArrayProp} }
	optUnit      = func(n string) propField { return propField{n, true, unitProp} }
)

// nativeLayouts are the layouts anefix knows, each confirmed by reading
// what that mlir-opt writes (tests in layout_test.go run mlir-opt 19.1.7
// and 22.1.8). In the func dialect's op definitions MLIR 22 has `no_inline`
// (a UnitAttr) on func.func and `arg_attrs`, `res_attrs`, `no_inline` on
// func.call, which MLIR 19 lacks. The release that first carried each addition
// (20 or 21) was not checked, so for other producers the layout is inferred
// from the blob (see decodeNative). Registered ops not listed keep their
// blob opaque.
var nativeLayouts = map[string][]*nativeLayout{
	"builtin.module": {{MLIR: []int{19, 22}, Fields: []propField{optStr("sym_name"), optStr("sym_visibility")}}},
	"func.func": {
		{MLIR: []int{19}, Fields: []propField{
			optDictArray("arg_attrs"), {"function_type", false, functionTypeProp}, optDictArray("res_attrs"),
			{"sym_name", false, stringProp}, optStr("sym_visibility"),
		}},
		{MLIR: []int{22}, Fields: []propField{
			optDictArray("arg_attrs"), {"function_type", false, functionTypeProp}, optUnit("no_inline"),
			optDictArray("res_attrs"), {"sym_name", false, stringProp}, optStr("sym_visibility"),
		}},
	},
	"func.call": {
		{MLIR: []int{19}, Fields: []propField{{"callee", false, symbolRefProp}}},
		{MLIR: []int{22}, Fields: []propField{
			optDictArray("arg_attrs"), {"callee", false, symbolRefProp}, optUnit("no_inline"), optDictArray("res_attrs"),
		}},
	},
}

var layoutMu sync.RWMutex

// RegisterNativeLayout declares the native properties layout of a
// registered op whose ODS properties are all attributes, in the order its
// writeProperties emits them (ODS sorts them by name), replacing every
// layout anefix had for the op. Once declared, the op's properties are read
// into a dictionary and re-encoded after changes instead of being carried
// opaquely. Use it only for a layout confirmed against real files, e.g. with
// NativeProps.Describe. Nil fields remove the declaration.
func RegisterNativeLayout(op string, fields []propField) {
	layoutMu.Lock()
	defer layoutMu.Unlock()
	if fields == nil {
		delete(nativeLayouts, op)
		return
	}
	nativeLayouts[op] = []*nativeLayout{{Fields: append([]propField(nil), fields...)}}
}

func layoutsOf(op string) []*nativeLayout {
	layoutMu.RLock()
	defer layoutMu.RUnlock()
	return nativeLayouts[op]
}

var producerRe = regexp.MustCompile(`^MLIR(\d+)\.`)

// producerMLIRMajor is the MLIR major version named by a bytecode producer
// string ("MLIR22.0.0git" → 22), or 0 when it names none (anefix's own
// "anefix", other writers).
func producerMLIRMajor(producer string) int {
	m := producerRe.FindStringSubmatch(producer)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n > 1000 {
		return 0
	}
	return n
}

// layoutForMLIR is the layout confirmed for an MLIR major version, or nil.
func layoutForMLIR(op string, major int) *nativeLayout {
	for _, l := range layoutsOf(op) {
		if l.forMLIR(major) {
			return l
		}
	}
	return nil
}

// registeredOps are op names anefix marks as registered when it adds them
// to a file.
var registeredOps = map[string]bool{"builtin.module": true, "func.func": true, "func.return": true, "func.call": true}

// upstreamDialects are dialects registered in upstream MLIR tools such as
// mlir-opt: their ops read properties in their own layout, so anefix
// writes the properties of new ops of these dialects as attributes.
var upstreamDialects = map[string]bool{
	"builtin": true, "func": true, "arith": true, "math": true, "tensor": true, "scf": true, "cf": true,
	"memref": true, "linalg": true, "tosa": true, "llvm": true, "vector": true, "affine": true, "shape": true,
	"index": true, "ml_program": true, "sparse_tensor": true, "bufferization": true, "gpu": true, "complex": true,
	"quant": true, "ub": true, "emitc": true, "async": true, "pdl": true, "transform": true,
}

// decodeProps decodes one op's properties blob. For a registered op it
// returns the layout used, nil when the blob is kept opaque.
func (ir *irReader) decodeProps(name string, registered bool, p rawProp) (graph.Attr, *nativeLayout, error) {
	d := newDecoder(p.data, p.off, ir.f.name)
	if !registered {
		a, err := ir.st.attrRef(d)
		if err != nil {
			return nil, nil, err
		}
		if !d.empty() {
			return nil, nil, d.errorf("trailing bytes in the properties of unregistered op %s", name)
		}
		return a, nil, nil
	}
	opaque := func(why string) *NativeProps {
		return &NativeProps{
			OpaqueAttr: &graph.OpaqueAttr{Text: fmt.Sprintf("#anefix.native_properties<%q, %d bytes>", name, len(p.data))},
			Op:         name, Blob: p.data, Why: why, src: ir.f, st: ir.st,
		}
	}
	layouts := layoutsOf(name)
	if len(layouts) == 0 {
		return opaque(""), nil, nil
	}
	// The layout confirmed for the producer's MLIR version first, then the
	// others: a blob is accepted by the first layout it fits completely with
	// every field of the right kind. The known layouts of one op differ in
	// their number of fields, so at most one of them can fit.
	major := producerMLIRMajor(ir.f.producer)
	order := make([]*nativeLayout, 0, len(layouts))
	for _, l := range layouts {
		if l.forMLIR(major) {
			order = append(order, l)
		}
	}
	for _, l := range layouts {
		if !l.forMLIR(major) {
			order = append(order, l)
		}
	}
	var firstErr error
	for _, l := range order {
		a, err := ir.decodeNative(name, p, l)
		if err == nil {
			return a, l, nil
		}
		if _, ok := err.(*layoutMismatch); !ok {
			return nil, nil, err
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	// No known layout describes the blob: carry it unchanged and say so.
	return opaque(fmt.Sprintf("they match no layout anefix knows for %s (producer %q; %v)", name, ir.f.producer, firstErr)), nil, nil
}

// layoutMismatch says why a blob does not fit a layout.
type layoutMismatch struct {
	off int64
	msg string
}

func (e *layoutMismatch) Error() string { return fmt.Sprintf("at byte offset %d: %s", e.off, e.msg) }

func (ir *irReader) decodeNative(name string, p rawProp, l *nativeLayout) (graph.Attr, error) {
	d := newDecoder(p.data, p.off, ir.f.name)
	mismatch := func(at int64, format string, args ...any) error {
		return &layoutMismatch{at, l.describe() + ": " + fmt.Sprintf(format, args...)}
	}
	var entries []graph.NamedAttr
	for _, fld := range l.Fields {
		at := d.offset()
		if d.empty() {
			return nil, mismatch(at, "the blob ends before field %s", fld.Name)
		}
		idx, err := d.varint()
		if err != nil {
			return nil, mismatch(at, "field %s: %v", fld.Name, err)
		}
		if fld.Optional {
			if idx&1 == 0 {
				if idx != 0 {
					return nil, mismatch(at, "absent optional %s has a non-zero index", fld.Name)
				}
				continue
			}
			idx >>= 1
		}
		if idx >= uint64(len(ir.st.attrs)) {
			return nil, mismatch(at, "field %s names attribute %d of %d", fld.Name, idx, len(ir.st.attrs))
		}
		a, err := ir.st.attr(at, idx)
		if err != nil {
			// Malformed, or not meant as an attribute reference: either way
			// this layout does not describe the blob.
			return nil, mismatch(at, "field %s: %v", fld.Name, err)
		}
		if !fld.Kind.matches(a) {
			return nil, mismatch(at, "field %s must be %s, found %s", fld.Name, fld.Kind, a.String())
		}
		entries = append(entries, graph.NamedAttr{Name: fld.Name, Value: a})
	}
	if !d.empty() {
		return nil, mismatch(d.offset(), "%d bytes left after the %d fields", d.remaining(), len(l.Fields))
	}
	if len(entries) == 0 {
		return nil, nil
	}
	return &graph.DictAttr{Entries: entries}, nil
}

// Describe lists the blob's varints with the attributes they would name if
// the layout were a sequence of attribute references (plain, or flagged
// optional: 0 = absent, odd = present). It is a guess to help confirm an
// op's layout from a real file, never used for writing.
func (p *NativeProps) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s native properties (%d bytes):", p.Op, len(p.Blob))
	d := newDecoder(p.Blob, 0, "")
	for !d.empty() {
		v, err := d.varint()
		if err != nil {
			b.WriteString(" <truncated varint>")
			break
		}
		fmt.Fprintf(&b, "\n  %d", v)
		if p.st == nil {
			continue
		}
		if v < uint64(len(p.st.attrs)) {
			if a, err := p.st.attr(0, v); err == nil {
				fmt.Fprintf(&b, "  as attribute #%d: %s", v, a.String())
			}
		}
		switch {
		case v == 0:
			b.WriteString("  as optional: absent")
		case v&1 == 1 && v>>1 < uint64(len(p.st.attrs)):
			if a, err := p.st.attr(0, v>>1); err == nil {
				fmt.Fprintf(&b, "  as optional #%d: %s", v>>1, a.String())
			}
		}
	}
	return b.String()
}
