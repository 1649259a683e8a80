package graph

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is an MLIR type. Types are immutable values; two types are equal when
// their canonical text is equal (see TypeEqual). Builtin types anefix reasons
// about have concrete Go types; everything else is kept verbatim.
type Type interface {
	// String returns the type's canonical MLIR spelling, e.g. "tensor<1x?xf16>".
	String() string
	isType()
}

// Dynamic marks a `?` dimension in a TensorType shape.
const Dynamic int64 = -1

// TensorType is builtin `tensor<…>`, ranked or unranked.
type TensorType struct {
	Shape    []int64 // nil with Unranked; Dynamic for `?`
	Elem     Type
	Encoding Attr // optional, printed after the element type
	Unranked bool // tensor<*xT>
}

// IntegerType is builtin iN / siN / uiN.
type IntegerType struct {
	Width      int
	Signedness Signedness
}

// Signedness of an IntegerType.
type Signedness uint8

const (
	Signless Signedness = iota
	Signed
	Unsigned
)

// FloatType is a builtin floating-point type named by its MLIR keyword:
// f16, bf16, f32, f64, f80, f128, tf32, f8E4M3FN, f8E5M2, f8E4M3, …
type FloatType struct{ Name string }

// IndexType is builtin `index`.
type IndexType struct{}

// NoneType is builtin `none`.
type NoneType struct{}

// FunctionType is builtin `(inputs) -> results`.
type FunctionType struct {
	Inputs  []Type
	Results []Type
}

// OpaqueType is a dialect type such as `!coreai.handle<tensor<4xf16>>` or
// `!coreai.token`, kept verbatim. Text includes the leading '!'.
type OpaqueType struct{ Text string }

// RawType is a builtin type anefix does not model (vector, memref, complex,
// tuple, …), kept verbatim in its canonical spelling.
type RawType struct{ Text string }

func (*TensorType) isType()   {}
func (*IntegerType) isType()  {}
func (*FloatType) isType()    {}
func (*IndexType) isType()    {}
func (*NoneType) isType()     {}
func (*FunctionType) isType() {}
func (*OpaqueType) isType()   {}
func (*RawType) isType()      {}

// Commonly used type singletons. Callers must not mutate them.
var (
	F16   = &FloatType{"f16"}
	BF16  = &FloatType{"bf16"}
	F32   = &FloatType{"f32"}
	F64   = &FloatType{"f64"}
	I1    = &IntegerType{Width: 1}
	i8    = &IntegerType{Width: 8}
	I32   = &IntegerType{Width: 32}
	I64   = &IntegerType{Width: 64}
	SI8   = &IntegerType{Width: 8, Signedness: Signed}
	UI8   = &IntegerType{Width: 8, Signedness: Unsigned}
	SI16  = &IntegerType{Width: 16, Signedness: Signed}
	UI16  = &IntegerType{Width: 16, Signedness: Unsigned}
	SI32  = &IntegerType{Width: 32, Signedness: Signed}
	UI32  = &IntegerType{Width: 32, Signedness: Unsigned}
	SI64  = &IntegerType{Width: 64, Signedness: Signed}
	Index = &IndexType{}
	None  = &NoneType{}
)

// Tensor returns a ranked tensor type.
func Tensor(elem Type, shape ...int64) *TensorType {
	s := make([]int64, len(shape))
	copy(s, shape)
	return &TensorType{Shape: s, Elem: elem}
}

func (t *TensorType) String() string {
	var b strings.Builder
	b.WriteString("tensor<")
	if t.Unranked {
		b.WriteString("*x")
	} else {
		for _, d := range t.Shape {
			if d == Dynamic {
				b.WriteByte('?')
			} else {
				b.WriteString(strconv.FormatInt(d, 10))
			}
			b.WriteByte('x')
		}
	}
	b.WriteString(t.Elem.String())
	if t.Encoding != nil {
		b.WriteString(", ")
		b.WriteString(t.Encoding.String())
	}
	b.WriteByte('>')
	return b.String()
}

// Rank is the number of dimensions, or -1 for an unranked tensor.
func (t *TensorType) Rank() int {
	if t.Unranked {
		return -1
	}
	return len(t.Shape)
}

// IsStatic reports whether every dimension is known.
func (t *TensorType) IsStatic() bool {
	if t.Unranked {
		return false
	}
	for _, d := range t.Shape {
		if d == Dynamic {
			return false
		}
	}
	return true
}

// NumElements is the element count of a static tensor, or -1 when t is not
// static or its count does not fit int64 (ElementCount says which).
func (t *TensorType) NumElements() int64 {
	n, err := t.ElementCount()
	if err != nil {
		return -1
	}
	return n
}

// ElementCount is the element count of a static tensor; an unranked or
// dynamic tensor, or one whose count does not fit int64, is an error.
func (t *TensorType) ElementCount() (int64, error) {
	if !t.IsStatic() {
		return 0, fmt.Errorf("%s is not a static shape", t)
	}
	n, ok := ShapeElements(t.Shape)
	if !ok {
		return 0, &SizeError{Type: t, What: "element count"}
	}
	return n, nil
}

// ByteSize is the storage size of a static tensor's elements, ElemBytes
// each (the dense and blob layout); an element type without a byte size is
// an error, as is a size that does not fit int64.
func (t *TensorType) ByteSize() (int64, error) {
	n, err := t.ElementCount()
	if err != nil {
		return 0, err
	}
	eb := ElemBytes(t.Elem)
	if eb == 0 {
		return 0, fmt.Errorf("%s: element type %s has no byte size", t, t.Elem)
	}
	b, ok := MulSize(n, int64(eb))
	if !ok {
		return 0, &SizeError{Type: t, What: "byte size"}
	}
	return b, nil
}

// WithElem returns a copy of t with another element type.
func (t *TensorType) WithElem(e Type) *TensorType {
	c := *t
	c.Shape = append([]int64(nil), t.Shape...)
	c.Elem = e
	return &c
}

// WithShape returns a copy of t with another (ranked) shape.
func (t *TensorType) WithShape(shape []int64) *TensorType {
	c := *t
	c.Unranked = false
	c.Shape = append([]int64(nil), shape...)
	return &c
}

func (t *IntegerType) String() string {
	if t.Width >= 0 && t.Width < len(intNames[0]) && int(t.Signedness) < len(intNames) {
		return intNames[t.Signedness][t.Width] // printed with every integer attribute: no string built
	}
	return intName(t.Signedness, t.Width)
}

func intName(s Signedness, width int) string {
	switch s {
	case Signed:
		return "si" + strconv.Itoa(width)
	case Unsigned:
		return "ui" + strconv.Itoa(width)
	}
	return "i" + strconv.Itoa(width)
}

// intNames spells the integer types up to 64 bits, by signedness and width.
var intNames = func() (t [3][65]string) {
	for s := range t {
		for w := range t[s] {
			t[s][w] = intName(Signedness(s), w)
		}
	}
	return t
}()

func (t *FloatType) String() string    { return t.Name }
func (*IndexType) String() string      { return "index" }
func (*NoneType) String() string       { return "none" }
func (t *OpaqueType) String() string   { return t.Text }
func (t *RawType) String() string      { return t.Text }
func (t *FunctionType) String() string { return FormatFunctionType(t.Inputs, t.Results) }

// FormatFunctionType prints `(a, b) -> c` or `(a) -> (b, c)` as MLIR does.
func FormatFunctionType(in, out []Type) string {
	var b strings.Builder
	b.WriteByte('(')
	writeTypeList(&b, in)
	b.WriteString(") -> ")
	if len(out) == 1 {
		if _, isFn := out[0].(*FunctionType); !isFn {
			b.WriteString(out[0].String())
			return b.String()
		}
	}
	b.WriteByte('(')
	writeTypeList(&b, out)
	b.WriteByte(')')
	return b.String()
}

func writeTypeList(b *strings.Builder, ts []Type) {
	for i, t := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.String())
	}
}

// TypeEqual reports whether two types are the same MLIR type.
func TypeEqual(a, b Type) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	switch x := a.(type) {
	case *FloatType:
		y, ok := b.(*FloatType)
		return ok && x.Name == y.Name
	case *IntegerType:
		y, ok := b.(*IntegerType)
		return ok && *x == *y
	case *TensorType:
		y, ok := b.(*TensorType)
		if !ok || x.Unranked != y.Unranked || len(x.Shape) != len(y.Shape) || !TypeEqual(x.Elem, y.Elem) {
			return false
		}
		for i := range x.Shape {
			if x.Shape[i] != y.Shape[i] {
				return false
			}
		}
		if (x.Encoding == nil) != (y.Encoding == nil) {
			return false
		}
		return x.Encoding == nil || x.Encoding.String() == y.Encoding.String()
	}
	return a.String() == b.String()
}

// ElementType returns the element type of a shaped type (tensor, or the
// tensor inside !coreai.handle<…>), or t itself for a scalar type.
func ElementType(t Type) Type {
	switch x := t.(type) {
	case *TensorType:
		return x.Elem
	case *OpaqueType:
		if inner := HandleInner(x); inner != nil {
			return inner.Elem
		}
	}
	return t
}

// AsTensor returns t as a tensor type, looking through !coreai.handle<…>.
func AsTensor(t Type) (*TensorType, bool) {
	switch x := t.(type) {
	case *TensorType:
		return x, true
	case *OpaqueType:
		if inner := HandleInner(x); inner != nil {
			return inner, true
		}
	}
	return nil, false
}

// IsFloat reports whether t is a float type named name ("f32", "f16", …).
func IsFloat(t Type, name string) bool {
	f, ok := t.(*FloatType)
	return ok && f.Name == name
}

// BitWidth of a scalar int/float/index type (index counts as 64), or 0.
func BitWidth(t Type) int {
	switch x := t.(type) {
	case *IntegerType:
		return x.Width
	case *IndexType:
		return 64
	case *FloatType:
		switch x.Name {
		case "f16", "bf16":
			return 16
		case "f32", "tf32":
			return 32
		case "f64":
			return 64
		case "f80":
			return 80
		case "f128":
			return 128
		}
		if strings.HasPrefix(x.Name, "f8") {
			return 8
		}
		if strings.HasPrefix(x.Name, "f6") {
			return 6
		}
		if strings.HasPrefix(x.Name, "f4") {
			return 4
		}
	}
	return 0
}

// IsHandleType reports whether t is a Core AI state handle or token type
// (`!coreai.handle<…>` / `!coreai.token`), which mark states in some builds.
func IsHandleType(t Type) bool {
	o, ok := t.(*OpaqueType)
	return ok && (strings.HasPrefix(o.Text, "!coreai.handle<") || o.Text == "!coreai.token")
}

// HandleInner parses the tensor type inside `!coreai.handle<tensor<…>>`, or
// returns nil. Only static and `?` shapes with scalar element types are read.
func HandleInner(o *OpaqueType) *TensorType {
	const p = "!coreai.handle<"
	if !strings.HasPrefix(o.Text, p) || !strings.HasSuffix(o.Text, ">") {
		return nil
	}
	t, err := ParseSimpleType(o.Text[len(p) : len(o.Text)-1])
	if err != nil {
		return nil
	}
	tt, _ := t.(*TensorType)
	return tt
}

// ---- sizes ----
//
// Every element count and byte size computed from a declared shape goes
// through these: MLIR accepts any int64 dimension, so
// tensor<1x4294967296x4294967296xf16> is a legal type whose element count
// (2^64) wraps to 0 in int64 arithmetic. A size that does not fit is an
// error (SizeError) or, where only a bound is compared, saturates.

// ErrSizeOverflow is wrapped by every SizeError.
var ErrSizeOverflow = errors.New("size does not fit in int64")

// SizeError is a shape whose element count or byte size does not fit int64.
// Callers name the op or port it belongs to.
type SizeError struct {
	Type Type   // the shaped type
	What string // "element count" or "byte size"
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%s: its %s does not fit in int64 (more than %d)", e.Type, e.What, int64(math.MaxInt64))
}

func (e *SizeError) Unwrap() error { return ErrSizeOverflow }

// MulSize is a*b for sizes a, b >= 0; ok is false when either is negative
// or the product does not fit int64.
func MulSize(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// AddSize is a+b for sizes a, b >= 0; ok is false when either is negative
// or the sum does not fit int64.
func AddSize(a, b int64) (int64, bool) {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return 0, false
	}
	return a + b, true
}

// SatMul and SatAdd are MulSize and AddSize saturating at math.MaxInt64
// (negative operands count as 0), for estimates compared against a limit.
func SatMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if n, ok := MulSize(a, b); ok {
		return n
	}
	return math.MaxInt64
}

// SatAdd is a+b saturating at math.MaxInt64 (negative operands count as 0).
func SatAdd(a, b int64) int64 {
	a, b = max(a, 0), max(b, 0)
	if n, ok := AddSize(a, b); ok {
		return n
	}
	return math.MaxInt64
}

// ShapeElements is the product of dims; ok is false when a dimension is
// negative (Dynamic) or the product does not fit int64. The empty shape
// (a scalar tensor) has one element.
func ShapeElements(dims []int64) (int64, bool) {
	return shapeElements(dims, math.MaxInt64)
}

// ShapeElementsInt is ShapeElements for int dimensions (the interpreter's
// shapes); ok is false also when the product does not fit int.
func ShapeElementsInt(dims []int) (int, bool) {
	return shapeElements(dims, math.MaxInt)
}

func shapeElements[D int | int64](dims []D, limit int64) (D, bool) {
	zero := false
	for _, d := range dims {
		if d < 0 {
			return 0, false
		}
		zero = zero || d == 0
	}
	if zero { // 0 whatever the other dims: [2^40, 2^40, 0] is empty, not an overflow
		return 0, true
	}
	n := int64(1)
	for _, d := range dims {
		var ok bool
		if n, ok = MulSize(n, int64(d)); !ok || n > limit {
			return 0, false
		}
	}
	return D(n), true
}
