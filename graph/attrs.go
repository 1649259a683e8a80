package graph

import (
	"encoding/binary"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph/f16"
)

// Attr is an MLIR attribute. Attributes are immutable values; String returns
// their canonical MLIR spelling, which MLIR's parser reads back to the same
// attribute.
type Attr interface {
	String() string
	isAttr()
}

// NamedAttr is one entry of an attribute dictionary.
type NamedAttr struct {
	Name  string
	Value Attr
}

// IntegerAttr is `42 : i32`. Value holds the two's-complement bits for widths
// up to 64; Big holds wider values (then Value is unused).
type IntegerAttr struct {
	Type  Type
	Value int64
	Big   *big.Int
}

// FloatAttr is `1.5 : f16`. Bits is the value's encoding in Type's format, so
// NaN payloads and every float width up to 64 bits survive unchanged.
type FloatAttr struct {
	Type Type
	Bits uint64
}

// StringAttr is `"text"` with an optional type.
type StringAttr struct {
	Value string
	Type  Type
}

// BoolAttr is `true` / `false`.
type BoolAttr struct{ Value bool }

// UnitAttr is `unit` (a present-only flag).
type UnitAttr struct{}

// ArrayAttr is `[a, b]`. An array built by ArrayBuilder (both codecs'
// readers use it) whose elements are all integers of at most 64 bits, or all
// floats, of one type is packed: 8 bytes an element (IntegerAttr.Value or
// FloatAttr.Bits, so nothing is lost) and Elems is nil, instead of an
// attribute and an interface per element (about 48 bytes). Read any array
// with Len and At. A packed array holds only scalars, so code that looks
// for nested attributes (dictionaries, symbols, resources) may range over
// Elems; what asks about element types uses Packed.
type ArrayAttr struct {
	Elems []Attr
	pack  *packedElems
}

// packedElems are a packed ArrayAttr's elements.
type packedElems struct {
	typ   Type
	float bool
	vals  []uint64
}

// DictAttr is `{a = 1, b}`; entries are kept sorted by name, as MLIR does.
type DictAttr struct{ Entries []NamedAttr }

// TypeAttr is a type used as an attribute.
type TypeAttr struct{ Type Type }

// SymbolRefAttr is `@root` or `@root::@nested`.
type SymbolRefAttr struct {
	Root   string
	Nested []string
}

// DenseElementsAttr is `dense<…> : tensor<…>` of integers or floats. Raw
// holds the elements little-endian, each in ElemBytes(elem) bytes (i1 as one
// byte 0 or 1); a splat holds one element.
type DenseElementsAttr struct {
	Type  *TensorType
	Raw   []byte
	Splat bool
}

// DenseResourceAttr is `dense_resource<key> : tensor<…>`: elements stored in
// the module's resource table (weights), never copied into the attribute.
type DenseResourceAttr struct {
	Key  string
	Type *TensorType
}

// DenseArrayAttr is `array<i64: 1, 2>` of an integer or float element
// type. Raw holds the elements as MLIR stores them and bytecode writes them:
// little-endian, ElemBytes(Elem) bytes each (i1 as one byte 0 or 1), so an
// array costs its elements' bytes and nothing per element, and float bits
// (NaN payloads included) are kept exactly. Build one with IntArray or
// FloatArray; read it with Len, Int64At, Float64At, BitsAt and Int64s.
type DenseArrayAttr struct {
	Elem Type
	Raw  []byte
}

// OpaqueAttr is a dialect attribute kept verbatim, e.g.
// `#coreai.composite_declaration<"rms_norm" = {…}>`. Text includes the '#'.
type OpaqueAttr struct{ Text string }

// RawAttr is a builtin attribute anefix does not model (affine maps, sparse
// elements, dense strings, …), kept verbatim.
type RawAttr struct{ Text string }

// LocAttr is a location used as an attribute value (for example inside fused
// location metadata or a properties dictionary).
type LocAttr struct{ Loc Loc }

func (*IntegerAttr) isAttr()       {}
func (*FloatAttr) isAttr()         {}
func (*StringAttr) isAttr()        {}
func (*BoolAttr) isAttr()          {}
func (*UnitAttr) isAttr()          {}
func (*ArrayAttr) isAttr()         {}
func (*DictAttr) isAttr()          {}
func (*TypeAttr) isAttr()          {}
func (*SymbolRefAttr) isAttr()     {}
func (*DenseElementsAttr) isAttr() {}
func (*DenseResourceAttr) isAttr() {}
func (*DenseArrayAttr) isAttr()    {}
func (*OpaqueAttr) isAttr()        {}
func (*RawAttr) isAttr()           {}
func (*LocAttr) isAttr()           {}

// Int returns an IntegerAttr of type t.
func Int(v int64, t Type) *IntegerAttr { return &IntegerAttr{Type: t, Value: v} }

// Str returns a StringAttr.
func Str(s string) *StringAttr { return &StringAttr{Value: s} }

// Float returns a FloatAttr holding v rounded to type t (f16, bf16, f32, f64).
func Float(v float64, t *FloatType) *FloatAttr {
	return &FloatAttr{Type: t, Bits: FloatBits(v, t.Name)}
}

// FloatBits encodes v in the named float format with round-to-nearest-even.
// Formats other than f16/bf16/f32/f64 return 0.
func FloatBits(v float64, name string) uint64 {
	switch name {
	case "f64":
		return math.Float64bits(v)
	case "f32":
		return uint64(math.Float32bits(float32(v)))
	case "f16":
		return uint64(f16.FromFloat64(v))
	case "bf16":
		return uint64(f16.BF16FromFloat64(v))
	}
	return 0
}

// FloatValue decodes bits of the named float format; ok is false for formats
// anefix does not decode.
func FloatValue(bits uint64, name string) (v float64, ok bool) {
	switch name {
	case "f64":
		return math.Float64frombits(bits), true
	case "f32":
		return float64(math.Float32frombits(uint32(bits))), true
	case "f16":
		return f16.ToFloat64(uint16(bits)), true
	case "bf16":
		return float64(math.Float32frombits(uint32(bits) << 16)), true
	}
	return 0, false
}

// Float64 returns the attribute's value; ok is false for undecoded formats.
func (a *FloatAttr) Float64() (float64, bool) {
	ft, _ := a.Type.(*FloatType)
	if ft == nil {
		return 0, false
	}
	return FloatValue(a.Bits, ft.Name)
}

// Dict builds a DictAttr, sorting entries by name (last duplicate wins).
func Dict(entries ...NamedAttr) *DictAttr {
	d := &DictAttr{}
	for _, e := range entries {
		d = d.With(e.Name, e.Value)
	}
	return d
}

// Get returns the value of name, or nil.
func (d *DictAttr) Get(name string) Attr {
	if d == nil {
		return nil
	}
	i := sort.Search(len(d.Entries), func(i int) bool { return d.Entries[i].Name >= name })
	if i < len(d.Entries) && d.Entries[i].Name == name {
		return d.Entries[i].Value
	}
	return nil
}

// With returns a copy of d with name set to v (v == nil removes it).
func (d *DictAttr) With(name string, v Attr) *DictAttr {
	var src []NamedAttr
	if d != nil {
		src = d.Entries
	}
	out := make([]NamedAttr, 0, len(src)+1)
	done := false
	for _, e := range src {
		if !done && e.Name >= name {
			if v != nil {
				out = append(out, NamedAttr{name, v})
			}
			done = true
			if e.Name == name {
				continue
			}
		}
		out = append(out, e)
	}
	if !done && v != nil {
		out = append(out, NamedAttr{name, v})
	}
	return &DictAttr{Entries: out}
}

// Len is the number of entries.
func (d *DictAttr) Len() int {
	if d == nil {
		return 0
	}
	return len(d.Entries)
}

// ElemBytes is the storage size of one element of a dense attribute.
func ElemBytes(elem Type) int {
	w := BitWidth(elem)
	if w == 0 {
		return 0
	}
	return (w + 7) / 8
}

// NumElements of the attribute's tensor type.
func (a *DenseElementsAttr) NumElements() int64 { return a.Type.NumElements() }

// Element returns the raw bytes of element i (a splat returns its one value).
func (a *DenseElementsAttr) Element(i int64) []byte {
	n := int64(ElemBytes(a.Type.Elem))
	if a.Splat {
		i = 0
	}
	return a.Raw[i*n : (i+1)*n]
}

// Float64At decodes element i as a float (float element types) or integer.
func (a *DenseElementsAttr) Float64At(i int64) float64 {
	b := a.Element(i)
	switch e := a.Type.Elem.(type) {
	case *FloatType:
		v, _ := FloatValue(leUint(b), e.Name)
		return v
	case *IntegerType:
		return float64(intFromBits(leUint(b), e))
	case *IndexType:
		return float64(int64(leUint(b)))
	}
	return math.NaN()
}

// Int64At decodes element i as an integer (respecting signedness).
func (a *DenseElementsAttr) Int64At(i int64) int64 {
	b := a.Element(i)
	if e, ok := a.Type.Elem.(*IntegerType); ok {
		return intFromBits(leUint(b), e)
	}
	return int64(leUint(b))
}

func leUint(b []byte) uint64 {
	var buf [8]byte
	copy(buf[:], b)
	return binary.LittleEndian.Uint64(buf[:])
}

// intFromBits sign- or zero-extends the low Width bits.
func intFromBits(bits uint64, t *IntegerType) int64 {
	if t.Width >= 64 {
		return int64(bits)
	}
	mask := uint64(1)<<uint(t.Width) - 1
	bits &= mask
	if t.Signedness != Unsigned && t.Width > 1 && bits&(1<<uint(t.Width-1)) != 0 {
		return int64(bits | ^mask)
	}
	return int64(bits)
}

// ---- printing ----

func (a *IntegerAttr) String() string {
	if it, ok := a.Type.(*IntegerType); ok && it.Width == 1 && a.Big == nil {
		if a.Value&1 != 0 {
			return "true"
		}
		return "false"
	}
	return a.valueString() + " : " + a.Type.String()
}

// attrWriter is where WriteAttr prints: a *strings.Builder or *bufio.Writer.
type attrWriter interface {
	Write(p []byte) (int, error)
	WriteString(s string) (int, error)
	WriteByte(c byte) error
}

// WriteAttr prints a's String form to w. Arrays, dictionaries and dense
// attributes are written element by element, so printing a large attribute
// does not build its spelling as strings nested in strings (each level a
// full copy); errors are left to w (a bufio.Writer keeps the first).
func WriteAttr(w attrWriter, a Attr) { WriteAttrTypes(w, a, nil) }

// WriteAttrTypes is WriteAttr with the types inside a spelled by typeStr
// (nil: Type.String): a printer that caches type spellings passes its
// cache, since a module's attributes repeat few types.
func WriteAttrTypes(w attrWriter, a Attr, typeStr func(Type) string) {
	var ap attrPrinter
	ap.w, ap.typeStr = w, typeStr
	ap.attr(a)
}

// attrPrinter holds one scratch buffer for a WriteAttr call: numbers are
// formatted into it and written in chunks, not as a string each.
type attrPrinter struct {
	w       attrWriter
	scratch []byte
	typeStr func(Type) string // nil: Type.String
}

func (ap *attrPrinter) typ(t Type) string {
	if ap.typeStr != nil && t != nil {
		return ap.typeStr(t)
	}
	return t.String()
}

// flush writes the scratch buffer once it holds at least n bytes.
func (ap *attrPrinter) flush(n int) {
	if len(ap.scratch) >= n {
		ap.w.Write(ap.scratch)
		ap.scratch = ap.scratch[:0]
	}
}

func (ap *attrPrinter) attr(a Attr) {
	w := ap.w
	switch a := a.(type) {
	case *ArrayAttr:
		w.WriteByte('[')
		if p := a.pack; p != nil {
			ap.packed(p)
		}
		for i, e := range a.Elems {
			if i > 0 {
				w.WriteString(", ")
			}
			ap.attr(e)
		}
		w.WriteByte(']')
	case *DictAttr:
		w.WriteByte('{')
		for i, e := range a.Entries {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString(QuoteIdent(e.Name))
			if _, unit := e.Value.(*UnitAttr); !unit {
				w.WriteString(" = ")
				ap.attr(e.Value)
			}
		}
		w.WriteByte('}')
	case *IntegerAttr:
		if it, ok := a.Type.(*IntegerType); ok && it.Width == 1 && a.Big == nil {
			w.WriteString(a.String())
			return
		}
		ap.scratch = a.appendValue(ap.scratch)
		ap.flush(0)
		w.WriteString(" : ")
		w.WriteString(ap.typ(a.Type))
	case *DenseElementsAttr:
		a.write(ap)
	case *DenseArrayAttr:
		a.write(ap)
	case *DenseResourceAttr:
		w.WriteString("dense_resource<")
		w.WriteString(QuoteIdent(a.Key))
		w.WriteString("> : ")
		w.WriteString(ap.typ(a.Type))
	case *TypeAttr:
		w.WriteString(ap.typ(a.Type))
	default:
		w.WriteString(a.String())
	}
}

// packed prints a packed array's elements through one scratch attribute,
// which is printed as an unpacked element would be.
func (ap *attrPrinter) packed(p *packedElems) {
	var scratch Attr
	ia, fa := &IntegerAttr{Type: p.typ}, &FloatAttr{Type: p.typ}
	if scratch = ia; p.float {
		scratch = fa
	}
	for i, v := range p.vals {
		if i > 0 {
			ap.w.WriteString(", ")
		}
		ia.Value, fa.Bits = int64(v), v
		ap.attr(scratch)
	}
}

func (a *IntegerAttr) valueString() string { return string(a.appendValue(nil)) }

func (a *IntegerAttr) appendValue(dst []byte) []byte {
	if a.Big != nil {
		return a.Big.Append(dst, 10)
	}
	if it, ok := a.Type.(*IntegerType); ok {
		if it.Signedness == Unsigned && it.Width <= 64 {
			if it.Width == 64 {
				return strconv.AppendUint(dst, uint64(a.Value), 10)
			}
			return strconv.AppendUint(dst, uint64(a.Value)&(uint64(1)<<uint(it.Width)-1), 10)
		}
		return strconv.AppendInt(dst, intFromBits(uint64(a.Value), it), 10)
	}
	return strconv.AppendInt(dst, a.Value, 10)
}

func (a *FloatAttr) String() string { return formatFloatBits(a.Bits, a.Type) + " : " + a.Type.String() }

// formatFloatBits prints a float as MLIR's printer does (mlirFloatString),
// and otherwise (inf, nan, values whose decimal form would not read back, the
// f8 formats anefix does not decode) as the hex bit pattern, which MLIR
// accepts for any float and prints itself for inf and nan.
func formatFloatBits(bits uint64, t Type) string {
	ft, _ := t.(*FloatType)
	if ft != nil {
		if v, ok := FloatValue(bits, ft.Name); ok && !math.IsInf(v, 0) && !math.IsNaN(v) {
			if s, ok := mlirFloatString(v, bits, ft.Name); ok {
				return s
			}
		}
	}
	w := BitWidth(t)
	if w <= 0 {
		w = 64
	}
	digits := (w + 3) / 4
	return "0x" + strings.ToUpper(padHex(strconv.FormatUint(bits, 16), digits))
}

func padHex(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

func (a *StringAttr) String() string {
	s := QuoteString(a.Value)
	if a.Type != nil {
		s += " : " + a.Type.String()
	}
	return s
}

// QuoteString quotes s as an MLIR string literal.
func QuoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	WriteQuoted(&b, s)
	return b.String()
}

// WriteQuoted writes s as an MLIR string literal (QuoteString) to w.
func WriteQuoted(w attrWriter, s string) {
	const digits = "0123456789ABCDEF"
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			continue
		}
		w.WriteString(s[start:i])
		w.WriteByte('\\')
		w.WriteByte(digits[c>>4])
		w.WriteByte(digits[c&15])
		start = i + 1
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}

// IsBareIdent reports whether s can be printed without quotes as an MLIR
// bare identifier (attribute names, symbol names, resource keys).
func IsBareIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '$' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// QuoteIdent prints s bare when possible, else as a string literal.
func QuoteIdent(s string) string {
	if IsBareIdent(s) {
		return s
	}
	return QuoteString(s)
}

// SymbolName prints `@name`, quoting as needed.
func SymbolName(s string) string { return "@" + QuoteIdent(s) }

func (a *BoolAttr) String() string {
	if a.Value {
		return "true"
	}
	return "false"
}

func (*UnitAttr) String() string { return "unit" }

func (a *ArrayAttr) String() string { return attrString(a) }

// Len is the number of elements.
func (a *ArrayAttr) Len() int {
	if a.pack != nil {
		return len(a.pack.vals)
	}
	return len(a.Elems)
}

// At returns element i (a new IntegerAttr or FloatAttr in a packed array).
func (a *ArrayAttr) At(i int) Attr {
	if p := a.pack; p != nil {
		if p.float {
			return &FloatAttr{Type: p.typ, Bits: p.vals[i]}
		}
		return &IntegerAttr{Type: p.typ, Value: int64(p.vals[i])}
	}
	return a.Elems[i]
}

// Packed reports whether the array is packed and returns its elements'
// type, whether they are floats, and their values (IntegerAttr.Value as
// uint64, or FloatAttr.Bits); vals must not be modified.
func (a *ArrayAttr) Packed() (elem Type, float bool, vals []uint64, ok bool) {
	if p := a.pack; p != nil {
		return p.typ, p.float, p.vals, true
	}
	return nil, false, nil, false
}

// ArrayBuilder builds an ArrayAttr element by element, packing it while
// every element is an IntegerAttr of at most 64 bits, or a FloatAttr, of
// the first element's type. Both packed values and attributes are gathered
// in blocks and copied once into slices of the exact length: append's
// growth allocated several times the final slice for millions of elements.
type ArrayBuilder struct {
	n     int
	typ   Type
	float bool
	mixed bool // an element could not be packed: attrs holds them all
	vals  blocks[uint64]
	attrs blocks[Attr]
}

// Add appends one element.
func (b *ArrayBuilder) Add(a Attr) {
	if !b.mixed {
		if v, ok := b.packable(a); ok {
			b.vals.add(v)
			b.n++
			return
		}
		// Unpack what was packed so far; the rest stays unpacked.
		b.mixed = true
		p := packedElems{typ: b.typ, float: b.float, vals: b.vals.flat()}
		b.vals = blocks[uint64]{}
		arr := ArrayAttr{pack: &p}
		for i := range p.vals {
			b.attrs.add(arr.At(i))
		}
	}
	b.attrs.add(a)
	b.n++
}

// packable returns a's packed value when a continues the packing.
func (b *ArrayBuilder) packable(a Attr) (uint64, bool) {
	var t Type
	var v uint64
	var float bool
	switch x := a.(type) {
	case *IntegerAttr:
		if x.Big != nil {
			return 0, false
		}
		t, v = x.Type, uint64(x.Value)
	case *FloatAttr:
		t, v, float = x.Type, x.Bits, true
	default:
		return 0, false
	}
	if b.n == 0 {
		b.typ, b.float = t, float
		return v, true
	}
	return v, float == b.float && TypeEqual(t, b.typ)
}

// Array returns the array built (an empty one holds nil Elems).
func (b *ArrayBuilder) Array() *ArrayAttr {
	switch {
	case b.n == 0:
		return &ArrayAttr{}
	case b.mixed:
		return &ArrayAttr{Elems: b.attrs.flat()}
	}
	return &ArrayAttr{pack: &packedElems{typ: b.typ, float: b.float, vals: b.vals.flat()}}
}

// blocks gathers values in blocks of growing size (at most 64Ki values).
type blocks[T any] struct {
	full  [][]T
	cur   []T
	total int
}

func (bl *blocks[T]) add(v T) {
	if len(bl.cur) == cap(bl.cur) {
		if bl.cur != nil {
			bl.full = append(bl.full, bl.cur)
		}
		bl.cur = make([]T, 0, min(max(8, 2*cap(bl.cur)), 1<<16))
	}
	bl.cur = append(bl.cur, v)
	bl.total++
}

// flat returns the values in one slice of the exact length.
func (bl *blocks[T]) flat() []T {
	if bl.full == nil {
		return bl.cur
	}
	out := make([]T, 0, bl.total)
	for _, b := range bl.full {
		out = append(out, b...)
	}
	return append(out, bl.cur...)
}

func (d *DictAttr) String() string { return attrString(d) }

func attrString(a Attr) string {
	var b strings.Builder
	WriteAttr(&b, a)
	return b.String()
}

func (a *TypeAttr) String() string { return a.Type.String() }

func (a *SymbolRefAttr) String() string {
	s := SymbolName(a.Root)
	for _, n := range a.Nested {
		s += "::" + SymbolName(n)
	}
	return s
}

func (a *DenseResourceAttr) String() string {
	return "dense_resource<" + QuoteIdent(a.Key) + "> : " + a.Type.String()
}

func (a *OpaqueAttr) String() string { return a.Text }
func (a *RawAttr) String() string    { return a.Text }
func (a *LocAttr) String() string    { return "loc(" + a.Loc.String() + ")" }

// denseHexThreshold: above this many elements, dense attributes print as hex
// (as MLIR does), which is exact and compact.
const denseHexThreshold = 100

func (a *DenseElementsAttr) String() string { return attrString(a) }

func (a *DenseElementsAttr) write(ap *attrPrinter) {
	b := ap.w
	b.WriteString("dense<")
	n := a.Type.NumElements()
	_, isBool := a.Type.Elem.(*IntegerType)
	isBool = isBool && BitWidth(a.Type.Elem) == 1
	switch {
	case n == 0: // `dense<> : tensor<0xui32>`, as MLIR prints an empty literal
	case a.Splat || n == 1: // MLIR prints any one-element literal as a splat
		ap.scratch = a.appendElem(ap.scratch, 0)
		ap.flush(0)
	case n > denseHexThreshold && !isBool:
		b.WriteString("\"0x")
		ap.hexUpper(a.Raw)
		b.WriteByte('"')
	default:
		var idx int64
		a.writeNested(ap, a.Type.Shape, &idx)
		ap.flush(0)
	}
	b.WriteString("> : ")
	b.WriteString(ap.typ(a.Type))
}

// hexUpper writes data as upper-case hex in chunks.
func (ap *attrPrinter) hexUpper(data []byte) {
	const digits = "0123456789ABCDEF"
	for _, c := range data {
		ap.scratch = append(ap.scratch, digits[c>>4], digits[c&15])
		ap.flush(4096)
	}
	ap.flush(0)
}

// writeNested spells elements into ap's scratch buffer, written out in
// chunks.
func (a *DenseElementsAttr) writeNested(ap *attrPrinter, shape []int64, idx *int64) {
	if len(shape) == 0 {
		ap.scratch = a.appendElem(ap.scratch, *idx)
		*idx++
		ap.flush(4096)
		return
	}
	ap.scratch = append(ap.scratch, '[')
	for i := int64(0); i < shape[0]; i++ {
		if i > 0 {
			ap.scratch = append(ap.scratch, ", "...)
		}
		a.writeNested(ap, shape[1:], idx)
	}
	ap.scratch = append(ap.scratch, ']')
}

func (a *DenseElementsAttr) elemString(i int64) string { return string(a.appendElem(nil, i)) }

// appendElem appends element i's spelling (integers without building a
// string).
func (a *DenseElementsAttr) appendElem(dst []byte, i int64) []byte {
	bits := leUint(a.Element(i))
	switch e := a.Type.Elem.(type) {
	case *FloatType:
		return append(dst, formatFloatBits(bits, e)...)
	case *IntegerType:
		return appendIntBits(dst, bits, e)
	}
	return strconv.AppendInt(dst, int64(bits), 10)
}

// IntArray returns an integer DenseArrayAttr of elem (i1 … i64, any
// signedness) holding vals, each truncated to elem's width.
func IntArray(elem Type, vals ...int64) *DenseArrayAttr {
	w := ElemBytes(elem)
	raw := make([]byte, 0, len(vals)*w)
	var buf [8]byte
	for _, v := range vals {
		if BitWidth(elem) == 1 {
			v &= 1
		}
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		raw = append(raw, buf[:w]...)
	}
	return &DenseArrayAttr{Elem: elem, Raw: raw}
}

// FloatArray returns a float DenseArrayAttr of elem (f16, bf16, f32, f64)
// holding vals rounded to elem.
func FloatArray(elem *FloatType, vals ...float64) *DenseArrayAttr {
	w := ElemBytes(elem)
	raw := make([]byte, 0, len(vals)*w)
	var buf [8]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint64(buf[:], FloatBits(v, elem.Name))
		raw = append(raw, buf[:w]...)
	}
	return &DenseArrayAttr{Elem: elem, Raw: raw}
}

// Len is the number of elements.
func (a *DenseArrayAttr) Len() int {
	w := ElemBytes(a.Elem)
	if w == 0 {
		return 0
	}
	return len(a.Raw) / w
}

// BitsAt is element i's stored bits (zero-extended).
func (a *DenseArrayAttr) BitsAt(i int) uint64 {
	w := ElemBytes(a.Elem)
	return leUint(a.Raw[i*w : (i+1)*w])
}

// Int64At is integer element i, sign- or zero-extended by the element
// type's signedness (i1 reads 0 or 1); float elements read as their bits.
func (a *DenseArrayAttr) Int64At(i int) int64 {
	bits := a.BitsAt(i)
	if it, ok := a.Elem.(*IntegerType); ok {
		return intFromBits(bits, it)
	}
	return int64(bits)
}

// Float64At is element i as a float (an integer element converts); ok is
// false for a float format anefix does not decode.
func (a *DenseArrayAttr) Float64At(i int) (float64, bool) {
	if ft, ok := a.Elem.(*FloatType); ok {
		return FloatValue(a.BitsAt(i), ft.Name)
	}
	return float64(a.Int64At(i)), true
}

// Int64s returns the integer elements as a new slice (Int64At of each).
func (a *DenseArrayAttr) Int64s() []int64 {
	out := make([]int64, a.Len())
	for i := range out {
		out[i] = a.Int64At(i)
	}
	return out
}

func (a *DenseArrayAttr) String() string { return attrString(a) }

func (a *DenseArrayAttr) write(ap *attrPrinter) {
	b := ap.w
	b.WriteString("array<")
	b.WriteString(ap.typ(a.Elem))
	n := a.Len()
	if n > 0 {
		b.WriteString(": ")
	}
	ft, isF := a.Elem.(*FloatType)
	it, _ := a.Elem.(*IntegerType)
	for i := 0; i < n; i++ {
		if i > 0 {
			ap.scratch = append(ap.scratch, ", "...)
		}
		bits := a.BitsAt(i)
		switch {
		case isF:
			ap.scratch = append(ap.scratch, formatFloatBits(bits, ft)...)
		case it != nil:
			ap.scratch = appendIntBits(ap.scratch, bits, it)
		default:
			ap.scratch = strconv.AppendInt(ap.scratch, int64(bits), 10)
		}
		ap.flush(4096)
	}
	ap.flush(0)
	b.WriteByte('>')
}

// appendIntBits prints an integer element as MLIR does: i1 as true/false,
// unsigned types unsigned, others signed.
func appendIntBits(dst []byte, bits uint64, it *IntegerType) []byte {
	switch {
	case it.Width == 1:
		return strconv.AppendBool(dst, bits&1 != 0)
	case it.Signedness == Unsigned:
		if it.Width < 64 {
			bits &= uint64(1)<<uint(it.Width) - 1
		}
		return strconv.AppendUint(dst, bits, 10)
	}
	return strconv.AppendInt(dst, intFromBits(bits, it), 10)
}

// AttrEqual reports whether two attributes are the same MLIR attribute.
func AttrEqual(a, b Attr) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return a.String() == b.String()
}
