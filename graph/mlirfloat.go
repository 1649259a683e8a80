package graph

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// How MLIR's printer spells a finite float (mlir-opt 19 and 22 agree; the
// cases are checked against both in mlirfloat_test.go). It first tries
// scientific notation with six digits after the point ("1.000000e+00",
// "0.000000e+00") and keeps it when it reads back to the same bits;
// otherwise it uses LLVM APFloat's natural form with as many significant
// digits as the format needs to round-trip ("9.99999974E-6",
// "-0.785398185", "3.14159203"), provided that contains a '.'; otherwise the
// caller prints hex. coreai-torch's printed modules use these spellings, so a
// module printed back by anefix matches the text it read.

// significandBits is the precision (with the implicit bit) of the formats
// FloatValue decodes.
func significandBits(name string) int {
	switch name {
	case "f16":
		return 11
	case "bf16":
		return 8
	case "f32":
		return 24
	case "f64":
		return 53
	}
	return 0
}

// mlirFloatString returns MLIR's spelling of v (whose encoding in format
// name is bits), or ok=false when MLIR would print it in hex.
func mlirFloatString(v float64, bits uint64, name string) (string, bool) {
	prec := significandBits(name)
	if prec == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return "", false
	}
	if s := apfloatString(v, prec, 6, 0, false); readsBack(s, bits, name) {
		return s, true
	}
	s := apfloatString(v, prec, 0, 3, true)
	return s, strings.ContainsRune(s, '.')
}

// readsBack reports whether MLIR's reader turns s into bits. Decimal to f32
// and f64 is correctly rounded; f16 and bf16 go through float64 first,
// which can differ from a direct rounding only on exact ties far below the
// digits printed here.
func readsBack(s string, bits uint64, name string) bool {
	switch name {
	case "f32":
		f, err := strconv.ParseFloat(s, 32)
		return err == nil && uint64(math.Float32bits(float32(f))) == bits
	case "f64":
		f, err := strconv.ParseFloat(s, 64)
		return err == nil && math.Float64bits(f) == bits
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && FloatBits(f, name) == bits
}

// apfloatString formats v as LLVM's APFloat::toString does for a format
// with prec significand bits: digits is the number of significant digits
// (0: the format's natural 2+prec*59/196), width the largest run of padding
// zeros before scientific notation is used (0: always scientific), and
// truncZero drops padding zeros ("E" exponent) instead of filling to digits
// ("e" exponent, at least two exponent digits).
func apfloatString(v float64, prec, digits, width int, truncZero bool) string {
	var b strings.Builder
	if math.Signbit(v) {
		b.WriteByte('-')
		v = -v
	}
	if digits == 0 {
		digits = 2 + prec*59/196
	}
	if v == 0 {
		switch {
		case width != 0:
			b.WriteString("0")
		case truncZero:
			b.WriteString("0.0E+0")
		default:
			b.WriteString("0.0" + strings.Repeat("0", digits-1) + "e+00")
		}
		return b.String()
	}
	// v = sig * 2^exp with sig odd.
	frac, e := math.Frexp(v)
	sig := new(big.Int)
	new(big.Float).SetMantExp(big.NewFloat(frac), 53).Int(sig)
	exp := e - 53
	if tz := sig.TrailingZeroBits(); tz > 0 {
		sig.Rsh(sig, tz)
		exp += int(tz)
	}
	// Change the base: sig * 10^exp, exactly.
	if exp > 0 {
		sig.Lsh(sig, uint(exp))
		exp = 0
	} else if exp < 0 {
		sig.Mul(sig, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-exp)), nil))
	}
	// APFloat first drops (truncates) the low digits beyond what the
	// requested precision needs, then rounds half up to digits.
	required := (digits*196 + 58) / 59
	discard := 0
	if n := sig.BitLen(); n > required {
		discard = (n - required) * 59 / 196
	}
	d := sig.String()
	d = d[:len(d)-discard]
	exp += discard
	for len(d) > 1 && d[len(d)-1] == '0' {
		d = d[:len(d)-1]
		exp++
	}
	if len(d) > digits {
		dropped := len(d) - digits
		up := d[digits] >= '5'
		d = d[:digits]
		exp += dropped
		if up {
			for len(d) > 0 && d[len(d)-1] == '9' {
				d = d[:len(d)-1]
				exp++
			}
			if d == "" {
				d = "1"
			} else {
				d = d[:len(d)-1] + string(d[len(d)-1]+1)
			}
		} else {
			for len(d) > 1 && d[len(d)-1] == '0' {
				d = d[:len(d)-1]
				exp++
			}
		}
	}
	n := len(d)
	var sci bool
	switch {
	case width == 0:
		sci = true
	case exp >= 0:
		sci = exp > width || n+exp > digits
	default:
		msd := exp + n - 1
		sci = msd < 0 && -msd > width
	}
	switch {
	case sci:
		e10 := exp + n - 1
		b.WriteByte(d[0])
		b.WriteByte('.')
		if n == 1 && truncZero {
			b.WriteByte('0')
		} else {
			b.WriteString(d[1:])
		}
		if !truncZero && digits > n-1 {
			b.WriteString(strings.Repeat("0", digits-n+1))
		}
		sign := byte('+')
		if e10 < 0 {
			sign, e10 = '-', -e10
		}
		es := strconv.Itoa(e10)
		if truncZero {
			b.WriteString("E")
		} else {
			b.WriteString("e")
			if len(es) < 2 {
				es = "0" + es
			}
		}
		b.WriteByte(sign)
		b.WriteString(es)
	case exp >= 0:
		b.WriteString(d)
		b.WriteString(strings.Repeat("0", exp))
	case -exp < n:
		b.WriteString(d[:n+exp])
		b.WriteByte('.')
		b.WriteString(d[n+exp:])
	default:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -exp-n))
		b.WriteString(d)
	}
	return b.String()
}
