// Package halfbits converts between float64 and the IEEE binary16 and
// bfloat16 encodings with round-to-nearest-even, directly from float64 so
// that no double rounding through float32 can occur.
package halfbits

import "math"

// FromFloat64 encodes f as IEEE binary16 (round to nearest, ties to even;
// overflow to ±inf; NaN stays NaN).
func FromFloat64(f float64) uint16 { return uint16(round(f, 5, 10)) }

// BF16FromFloat64 encodes f as bfloat16 (round to nearest, ties to even).
func BF16FromFloat64(f float64) uint16 { return uint16(round(f, 8, 7)) }

// ToFloat64 decodes an IEEE binary16 value exactly.
func ToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch e {
	case 0:
		return sign * m * 0x1p-24
	case 0x1f:
		if m != 0 {
			return math.Float64frombits(math.Float64bits(math.NaN()) | uint64(h&0x8000)<<48 | uint64(h&0x3ff)<<42)
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + m/1024) * math.Ldexp(1, e-15)
}

// BF16ToFloat64 decodes a bfloat16 value exactly.
func BF16ToFloat64(h uint16) float64 {
	return float64(math.Float32frombits(uint32(h) << 16))
}

// round encodes f in an IEEE-style format with expBits exponent bits and
// mantBits stored mantissa bits.
func round(f float64, expBits, mantBits uint) uint64 {
	b := math.Float64bits(f)
	signBit := (b >> 63) << (expBits + mantBits)
	exp := int(b>>52) & 0x7ff
	mant := b & (1<<52 - 1)
	maxExp := uint64(1)<<expBits - 1
	inf := signBit | maxExp<<mantBits
	if exp == 0x7ff {
		if mant != 0 { // NaN: keep the top payload bits, force quiet
			return inf | 1<<(mantBits-1) | mant>>(52-mantBits)
		}
		return inf
	}
	if exp == 0 { // float64 subnormals are far below any target's range
		return signBit
	}
	bias := int(1)<<(expBits-1) - 1
	e := exp - 1023
	m := mant | 1<<52
	if e >= 1-bias { // normal in the target
		r := roundShift(m, 52-mantBits)
		te := uint64(e + bias)
		if r >= 1<<(mantBits+1) {
			r >>= 1
			te++
		}
		if te >= maxExp {
			return inf
		}
		return signBit | te<<mantBits | r&(1<<mantBits-1)
	}
	// Subnormal in the target: units of 2^(1-bias-mantBits).
	shift := uint(52 - int(mantBits) + (1 - bias - e))
	if shift > 63 {
		return signBit
	}
	return signBit | roundShift(m, shift) // a carry into the exponent encodes the min normal
}

func roundShift(m uint64, s uint) uint64 {
	q := m >> s
	rem := m & (1<<s - 1)
	half := uint64(1) << (s - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}
