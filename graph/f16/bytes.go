package f16

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Stats counts what a narrowing conversion did to a buffer.
type Stats struct {
	Count     int // elements converted
	Overflow  int // finite inputs that became ±inf (|x| rounds above 65504)
	Underflow int // nonzero finite inputs that became ±0
	NaN       int // NaN inputs (kept NaN)
}

// F32ToF16LE converts little-endian float32 elements in src to little-endian
// half elements in dst (len(dst) must be len(src)/2) and counts overflow and
// underflow. It never fails on values; the caller decides whether overflow is
// an error.
func F32ToF16LE(dst, src []byte) (Stats, error) {
	var st Stats
	if len(src)%4 != 0 {
		return st, fmt.Errorf("f16: float32 buffer of %d bytes is not a multiple of 4", len(src))
	}
	if len(dst) != len(src)/2 {
		return st, fmt.Errorf("f16: destination has %d bytes, need %d", len(dst), len(src)/2)
	}
	for i := 0; i < len(src)/4; i++ {
		bits := binary.LittleEndian.Uint32(src[4*i:])
		f := math.Float32frombits(bits)
		h := FromFloat32(f)
		st.Count++
		switch {
		case f != f:
			st.NaN++
		case IsInf(h) && !math.IsInf(float64(f), 0):
			st.Overflow++
		case h&0x7fff == 0 && f != 0:
			st.Underflow++
		}
		binary.LittleEndian.PutUint16(dst[2*i:], h)
	}
	return st, nil
}

// F16ToF32LE widens little-endian halves in src into little-endian float32
// elements in dst (len(dst) must be 2*len(src)). Exact.
func F16ToF32LE(dst, src []byte) error {
	if len(src)%2 != 0 {
		return fmt.Errorf("f16: half buffer of %d bytes is not a multiple of 2", len(src))
	}
	if len(dst) != 2*len(src) {
		return fmt.Errorf("f16: destination has %d bytes, need %d", len(dst), 2*len(src))
	}
	for i := 0; i < len(src)/2; i++ {
		h := binary.LittleEndian.Uint16(src[2*i:])
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(ToFloat32(h)))
	}
	return nil
}
