// Package f16 converts between float32/float64 and the two 16-bit float
// formats the Neural Engine path cares about: IEEE 754 binary16 ("half",
// Go type uint16 holding the bits) and bfloat16. Every narrowing conversion
// rounds to nearest, ties to even, in a single step from the source value (a
// float64 is never rounded through float32 first, which would round twice).
// Subnormal results are produced exactly, values too large become ±inf, and
// NaNs stay NaN (quiet, sign and leading payload bits kept).
package f16

import "math"

// Largest finite half value.
const MaxHalf = 65504

// Bit patterns of a few half values.
const (
	posInf   uint16 = 0x7c00
	negInf   uint16 = 0xfc00
	quietNaN uint16 = 0x7e00
)

// FromFloat32 rounds f to the nearest half (ties to even).
func FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant == 0 {
			return sign | posInf
		}
		// Quiet bit set so a signalling NaN cannot turn into infinity.
		return sign | posInf | 0x200 | uint16(mant>>13)
	}
	if exp == 0 {
		// Zero or float32 subnormal (< 2^-126): far below half's smallest
		// subnormal (2^-24), so it rounds to a signed zero.
		return sign
	}
	e := exp - 127
	if e > 15 {
		return sign | posInf
	}
	m := mant | 0x800000 // 24 significant bits
	shift := uint(13)
	if e < -14 {
		shift += uint(-14 - e)
		if shift > 25 {
			return sign
		}
	}
	q := m >> shift
	rem := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	bits := q
	if e >= -14 {
		// q carries the implicit bit, which adds the final 1 to the
		// biased exponent; a rounding carry propagates naturally.
		bits = uint32(e+14)<<10 + q
	}
	if bits >= uint32(posInf) {
		return sign | posInf
	}
	return sign | uint16(bits)
}

// FromFloat64 rounds f to the nearest half (ties to even) in one step.
func FromFloat64(f float64) uint16 {
	return uint16(round64(f, 5, 10))
}

// ToFloat32 widens a half exactly.
func ToFloat32(h uint16) float32 {
	return toFloat32Table[h]
}

// ToFloat64 widens a half exactly.
func ToFloat64(h uint16) float64 { return float64(toFloat32Table[h]) }

// toFloat32Table is filled once: 256 KiB that turns the interpreter's hottest
// conversion into a load.
var toFloat32Table = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = halfToFloat32Slow(uint16(i))
	}
	return &t
}()

func halfToFloat32Slow(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal half: mant × 2^-24, exact in float32.
		v := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	default:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	}
}

// IsNaN reports whether the half bits h are a NaN.
func IsNaN(h uint16) bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }

// IsInf reports whether the half bits h are ±inf.
func IsInf(h uint16) bool { return h&0x7fff == 0x7c00 }

// Round32 rounds a float32 to half precision and back: the value an f16
// tensor element holds after an op computed in float32.
func Round32(f float32) float32 { return toFloat32Table[FromFloat32(f)] }

// BF16FromFloat32 rounds f to the nearest bfloat16 (ties to even).
func BF16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 && b&0x7fffff != 0 {
		return uint16(b>>16) | 0x40 // quiet NaN, payload head kept
	}
	// Same exponent width as float32, so RNE on the low 16 bits is exact
	// for subnormals and overflows into the infinity pattern by itself.
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BF16FromFloat64 rounds f to the nearest bfloat16 in one step.
func BF16FromFloat64(f float64) uint16 {
	return uint16(round64(f, 8, 7))
}

// BF16ToFloat32 widens a bfloat16 exactly.
func BF16ToFloat32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// round64 rounds f to a binary format with ebits exponent bits and mbits
// explicit mantissa bits (IEEE layout, bias 2^(ebits-1)-1), ties to even.
func round64(f float64, ebits, mbits uint) uint32 {
	b := math.Float64bits(f)
	sign := uint32(b>>63) << (ebits + mbits)
	exp := int(b>>52) & 0x7ff
	mant := b & (1<<52 - 1)
	infBits := uint32(1<<ebits-1) << mbits
	if exp == 0x7ff {
		if mant == 0 {
			return sign | infBits
		}
		return sign | infBits | 1<<(mbits-1) | uint32(mant>>(52-mbits))
	}
	if exp == 0 {
		return sign // float64 subnormals are far below any 16-bit format
	}
	bias := 1<<(ebits-1) - 1
	emin := 1 - bias
	e := exp - 1023
	if e > bias {
		return sign | infBits
	}
	m := mant | 1<<52
	shift := 52 - mbits
	if e < emin {
		shift += uint(emin - e)
		if shift > 54 {
			return sign
		}
	}
	q := m >> shift
	rem := m & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	bits := q
	if e >= emin {
		bits = uint64(e-emin)<<mbits + q
	}
	if bits >= uint64(infBits) {
		return sign | infBits
	}
	return sign | uint32(bits)
}
