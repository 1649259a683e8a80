package interp

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
)

// Elem is a tensor element type the interpreter computes with.
type Elem uint8

// Element kinds. Integers keep width and signedness for wrap-around.
const (
	ElemInvalid Elem = iota
	F16
	BF16
	F32
	Bool // i1
	SI8
	UI8
	SI16
	UI16
	SI32
	UI32
	SI64
	UI64
	SI4 // 4-bit weights (linear INT4, palette indices); graph/subbyte.go says how blobs store them
	UI4
	F8E4M3FN // 8-bit float weights (f8.go), held as float32 values
	UI2      // palette indices of 2, 3 and 6 bits (lut_to_dense); ui1 indices are held as i1
	UI3
	UI6
)

var elemNames = [...]string{"invalid", "f16", "bf16", "f32", "i1", "si8", "ui8", "si16", "ui16", "si32", "ui32", "si64", "ui64", "si4", "ui4", "f8E4M3FN", "ui2", "ui3", "ui6"}

func (e Elem) String() string {
	if int(e) < len(elemNames) {
		return elemNames[e]
	}
	return "elem?"
}

// IsFloat reports whether e is a floating-point kind.
func (e Elem) IsFloat() bool { return e == F16 || e == BF16 || e == F32 || e == F8E4M3FN }

// ElemOf maps an IR element type to an Elem. Signless integers other than
// i1 count as signed (MLIR's usual reading).
func ElemOf(t graph.Type) (Elem, error) {
	switch x := t.(type) {
	case *graph.FloatType:
		switch x.Name {
		case "f16":
			return F16, nil
		case "bf16":
			return BF16, nil
		case "f32":
			return F32, nil
		case "f8E4M3FN":
			return F8E4M3FN, nil
		}
	case *graph.IntegerType:
		uns := x.Signedness == graph.Unsigned
		switch x.Width {
		case 1:
			return Bool, nil
		case 2, 3, 6:
			if uns {
				return map[int]Elem{2: UI2, 3: UI3, 6: UI6}[x.Width], nil
			}
		case 4:
			return pick(uns, UI4, SI4), nil
		case 8:
			return pick(uns, UI8, SI8), nil
		case 16:
			return pick(uns, UI16, SI16), nil
		case 32:
			return pick(uns, UI32, SI32), nil
		case 64:
			return pick(uns, UI64, SI64), nil
		}
	case *graph.IndexType:
		return SI64, nil
	case *graph.OpaqueType:
		// coreai's boolean element type, held like i1 (a guess: no public
		// source gives its storage).
		if x.Text == "!coreai.bool" {
			return Bool, nil
		}
	}
	if strings.HasPrefix(t.String(), "complex<") {
		return ElemInvalid, fmt.Errorf("element type %s is not supported by the interpreter: it holds no complex values, so create_complex, real_part and imaginary_part do not run", t)
	}
	return ElemInvalid, fmt.Errorf("element type %s is not supported by the interpreter", t)
}

func pick(c bool, a, b Elem) Elem {
	if c {
		return a
	}
	return b
}

// irType returns the IR element type for e.
func (e Elem) irType() graph.Type {
	switch e {
	case F16:
		return graph.F16
	case BF16:
		return graph.BF16
	case F32:
		return graph.F32
	case Bool:
		return graph.I1
	case SI8:
		return graph.SI8
	case UI8:
		return graph.UI8
	case SI16:
		return graph.SI16
	case UI16:
		return graph.UI16
	case SI32:
		return graph.SI32
	case UI32:
		return graph.UI32
	case SI64:
		return graph.SI64
	case UI64:
		return &graph.IntegerType{Width: 64, Signedness: graph.Unsigned}
	case F8E4M3FN:
		return &graph.FloatType{Name: "f8E4M3FN"}
	case SI4:
		return &graph.IntegerType{Width: 4, Signedness: graph.Signed}
	case UI4:
		return &graph.IntegerType{Width: 4, Signedness: graph.Unsigned}
	case UI2, UI3, UI6:
		return &graph.IntegerType{Width: e.bits(), Signedness: graph.Unsigned}
	}
	return graph.None
}

// round rounds a float32 result to e's precision.
func (e Elem) round(x float32) float32 {
	switch e {
	case F16:
		return f16.Round32(x)
	case BF16:
		return f16.BF16ToFloat32(f16.BF16FromFloat32(x))
	case F8E4M3FN:
		return f8Round(float64(x))
	}
	return x
}

// round64 rounds a float64 result to e's precision in one step.
func (e Elem) round64(x float64) float32 {
	switch e {
	case F16:
		return f16.ToFloat32(f16.FromFloat64(x))
	case BF16:
		return f16.BF16ToFloat32(f16.BF16FromFloat64(x))
	case F8E4M3FN:
		return f8Round(x)
	}
	return float32(x)
}

// wrap truncates an integer to e's width (two's complement), as a cast or
// integer arithmetic result would.
func (e Elem) wrap(v int64) int64 {
	switch e {
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	case SI8:
		return int64(int8(v))
	case UI8:
		return int64(uint8(v))
	case SI16:
		return int64(int16(v))
	case UI16:
		return int64(uint16(v))
	case SI32:
		return int64(int32(v))
	case UI32:
		return int64(uint32(v))
	case SI4:
		return int64(int8(v<<4) >> 4)
	case UI4:
		return v & 15
	case UI2, UI3, UI6:
		return v & (1<<e.bits() - 1)
	}
	return v
}

// bits is the width of the sub-byte unsigned kinds UI2, UI3, UI6.
func (e Elem) bits() int {
	switch e {
	case UI2:
		return 2
	case UI3:
		return 3
	case UI6:
		return 6
	}
	return 0
}

// Tensor is a dense row-major tensor. Float kinds live in F (f16/bf16 values
// exactly representable), integer kinds and i1 in I. A float tensor read
// from a weight blob may instead hold its little-endian bytes in raw, used
// in place by the kernels that know how (matmul, conv, gather) and widened
// to F on first use by the others.
type Tensor struct {
	Elem  Elem
	Shape []int
	F     []float32
	I     []int64
	raw   []byte // f16/bf16/f32 little endian; nil once materialized
	rawEl Elem
	// rawT marks a rank-2 raw tensor whose bytes hold the transpose of
	// Shape (a transposed weight, e.g. a tied lm_head), so the transpose
	// costs nothing and matmul reads the weight in place.
	rawT bool
	// packed holds an index constant's blob bytes instead of I (fold.go):
	// packedBits-wide fields, or one per byte when packedBits is 8.
	packed     []byte
	packedBits int
}

// NewFloat returns a float tensor of elem e holding data (not copied; the
// caller guarantees f16/bf16 values are representable).
func NewFloat(e Elem, shape []int, data []float32) *Tensor {
	return &Tensor{Elem: e, Shape: shape, F: data}
}

// NewInt returns an integer (or i1) tensor.
func NewInt(e Elem, shape []int, data []int64) *Tensor {
	return &Tensor{Elem: e, Shape: shape, I: data}
}

// Zeros returns a zero tensor of the given kind and shape.
func Zeros(e Elem, shape []int) *Tensor {
	n := numel(shape)
	if e.IsFloat() {
		return NewFloat(e, shape, make([]float32, n))
	}
	return NewInt(e, shape, make([]int64, n))
}

// FromF32 builds a float tensor of kind e from float32 values, rounding each
// to e.
func FromF32(e Elem, shape []int, vals []float32) *Tensor {
	out := make([]float32, len(vals))
	for i, v := range vals {
		out[i] = e.round(v)
	}
	return NewFloat(e, append([]int(nil), shape...), out)
}

// Len is the element count.
func (t *Tensor) Len() int { return numel(t.Shape) }

// FromWeight reports whether t still holds a weight blob's bytes (a
// constant, or a shape-only view of one), not yet widened: an observer can
// skip it without widening a weight per step.
func (t *Tensor) FromWeight() bool { return t.F == nil && t.raw != nil }

// Floats returns the float data, widening a raw weight on first use.
func (t *Tensor) Floats() []float32 {
	if t.F == nil && t.raw != nil {
		t.F = widen(t.raw, t.rawEl)
		if t.rawT {
			r, c := t.Shape[0], t.Shape[1]
			tr := make([]float32, len(t.F))
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					tr[i*c+j] = t.F[j*r+i]
				}
			}
			t.F = tr
			t.rawT = false
		}
		t.raw = nil
	}
	return t.F
}

func widen(raw []byte, e Elem) []float32 {
	switch e {
	case F16:
		h := u16s(raw)
		out := make([]float32, len(h))
		for i, v := range h {
			out[i] = f16.ToFloat32(v)
		}
		return out
	case BF16:
		h := u16s(raw)
		out := make([]float32, len(h))
		for i, v := range h {
			out[i] = f16.BF16ToFloat32(v)
		}
		return out
	}
	src := f32s(raw)
	out := make([]float32, len(src))
	copy(out, src)
	return out
}

// u16s and f32s view little-endian bytes in place; every platform Go runs
// anefix on (amd64, arm64) is little endian and tolerates unaligned loads.
func u16s(b []byte) []uint16 {
	if len(b) < 2 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

func f32s(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// Type returns the tensor's IR type.
func (t *Tensor) Type() *graph.TensorType {
	s := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		s[i] = int64(d)
	}
	return graph.Tensor(t.Elem.irType(), s...)
}

// Clone returns a deep copy (raw weights are materialized).
func (t *Tensor) Clone() *Tensor {
	c := &Tensor{Elem: t.Elem, Shape: append([]int(nil), t.Shape...)}
	if t.Elem.IsFloat() {
		c.F = append([]float32(nil), t.Floats()...)
	} else {
		c.I = append([]int64(nil), t.I...)
	}
	return c
}

// Float64At returns element i as a float64 (integers converted).
func (t *Tensor) Float64At(i int) float64 {
	if t.Elem.IsFloat() {
		return float64(t.Floats()[i])
	}
	return float64(t.I[i])
}

// Ints returns the elements as int64 (floats truncated), for shape and
// index operands.
func (t *Tensor) Ints() []int64 {
	if !t.Elem.IsFloat() {
		return t.I
	}
	f := t.Floats()
	out := make([]int64, len(f))
	for i, v := range f {
		out[i] = int64(v)
	}
	return out
}

func (t *Tensor) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tensor<%sx%s>", shapeString(t.Shape), t.Elem)
	return b.String()
}

func shapeString(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, "x")
}

// numel is the element count of an interpreter shape. Declared shapes are
// checked before anything runs (ShapeOf, checkSizes); a computed shape whose
// count does not fit int saturates, so an allocation from it fails (a
// panic safeExec reports with the op) instead of wrapping to a short buffer.
func numel(shape []int) int {
	n, ok := graph.ShapeElementsInt(shape)
	if !ok {
		return math.MaxInt
	}
	return n
}

// ShapeOf is the interpreter's shape of a static tensor type: its
// dimensions as ints. A dynamic shape, or one whose element count does not
// fit int (graph.TensorType.ElementCount), is an error. It is the one place
// a declared shape becomes a shape the kernels allocate.
func ShapeOf(tt *graph.TensorType) ([]int, error) {
	n, err := tt.ElementCount()
	if err != nil {
		return nil, err
	}
	if n > math.MaxInt/8 { // Tensor.F/I take up to 8 bytes an element
		return nil, &graph.SizeError{Type: tt, What: "byte size in the interpreter"}
	}
	s := make([]int, len(tt.Shape))
	for i, d := range tt.Shape {
		s[i] = int(d)
	}
	return s, nil
}

func stridesOf(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(ax int64, rank int) (int, error) {
	a := int(ax)
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", ax, rank)
	}
	return a, nil
}
