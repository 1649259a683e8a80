package interp

import (
	"encoding/hex"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
)

// f8E4M3FN (real exports dequantize f8E4M3FN weights with
// blockwise_shift_scale; README "Known limits"): 1 sign, 4 exponent (bias 7) and 3 mantissa bits,
// no infinities, S.1111.111 is NaN, largest finite 448.

// f8Values are the non-negative finite values of codes 0x00…0x7E, which
// increase with the code.
var f8Values = func() [127]float64 {
	var v [127]float64
	for c := range v {
		e, m := c>>3, c&7
		if e == 0 {
			v[c] = float64(m) / 8 * math.Ldexp(1, -6)
		} else {
			v[c] = (1 + float64(m)/8) * math.Ldexp(1, e-7)
		}
	}
	return v
}()

// f8Decode gives the value of an f8E4M3FN code.
func f8Decode(b byte) float32 {
	c := b & 0x7f
	if c == 0x7f {
		return float32(math.NaN())
	}
	v := float32(f8Values[c])
	if b&0x80 != 0 {
		return -v
	}
	return v
}

// f8Encode rounds x to the nearest f8E4M3FN code, ties to an even code.
// Magnitudes from 464 (halfway between 448 and the next step, 480) give
// NaN: the format has no infinity. Guess, unconfirmed: that the runtime
// does not saturate to ±448 instead (OCP's FP8 spec allows both).
func f8Encode(x float64) byte {
	var sign byte
	if math.Signbit(x) {
		sign, x = 0x80, -x
	}
	if x != x || x >= 464 {
		return sign | 0x7f
	}
	i := sort.SearchFloat64s(f8Values[:], x) // first value ≥ x
	if i == len(f8Values) {
		return sign | 0x7e
	}
	if f8Values[i] == x || i == 0 {
		return sign | byte(i)
	}
	lo, hi := f8Values[i-1], f8Values[i]
	switch d1, d2 := x-lo, hi-x; {
	case d1 < d2:
		return sign | byte(i-1)
	case d2 < d1:
		return sign | byte(i)
	}
	if (i-1)&1 == 0 {
		return sign | byte(i-1)
	}
	return sign | byte(i)
}

func f8Round(x float64) float32 { return f8Decode(f8Encode(x)) }

// f8Dense decodes a dense f8E4M3FN constant that graph keeps verbatim (it
// does not decode f8 literals): `dense<"0x…"> : tensor<…xf8E4M3FN>` or a
// (nested) list of 0xNN codes, one byte per element.
func f8Dense(text string) (*Tensor, bool) {
	body, typ, ok := strings.Cut(text, "> : ")
	if !ok || !strings.HasPrefix(body, "dense<") {
		return nil, false
	}
	t, err := graph.ParseSimpleType(typ)
	tt, isT := t.(*graph.TensorType)
	if err != nil || !isT || !tt.IsStatic() || !graph.IsFloat(tt.Elem, "f8E4M3FN") {
		return nil, false
	}
	body = strings.TrimPrefix(body, "dense<")
	var codes []byte
	if strings.HasPrefix(body, `"0x`) && strings.HasSuffix(body, `"`) {
		b, err := hex.DecodeString(body[3 : len(body)-1])
		if err != nil {
			return nil, false
		}
		codes = b
	} else {
		for _, f := range strings.FieldsFunc(body, func(r rune) bool { return r == '[' || r == ']' || r == ',' || r == ' ' }) {
			v, err := strconv.ParseUint(f, 0, 8)
			if err != nil {
				return nil, false
			}
			codes = append(codes, byte(v))
		}
	}
	shape, err := ShapeOf(tt)
	if err != nil {
		return nil, false
	}
	n := numel(shape)
	if len(codes) == 1 && n > 1 { // splat
		for len(codes) < n {
			codes = append(codes, codes[0])
		}
	}
	if len(codes) != n {
		return nil, false
	}
	d := make([]float32, n)
	for i, c := range codes {
		d[i] = f8Decode(c)
	}
	return NewFloat(F8E4M3FN, shape, d), true
}
