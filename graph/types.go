package graph

import (
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
	I8    = &IntegerType{Width: 8}
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

// NumElements is the element count of a static tensor, or -1.
func (t *TensorType) NumElements() int64 {
	if !t.IsStatic() {
		return -1
	}
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
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
	switch t.Signedness {
	case Signed:
		return "si" + strconv.Itoa(t.Width)
	case Unsigned:
		return "ui" + strconv.Itoa(t.Width)
	}
	return "i" + strconv.Itoa(t.Width)
}

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
