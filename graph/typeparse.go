package graph

import (
	"fmt"
	"strconv"
	"strings"
)

// floatNames are the builtin float keywords MLIR 19 knows.
var floatNames = map[string]bool{
	"f16": true, "bf16": true, "f32": true, "f64": true, "f80": true, "f128": true, "tf32": true,
	"f8E5M2": true, "f8E4M3": true, "f8E4M3FN": true, "f8E5M2FNUZ": true, "f8E4M3FNUZ": true,
	"f8E4M3B11FNUZ": true, "f8E3M4": true, "f6E2M3FN": true, "f6E3M2FN": true, "f4E2M1FN": true,
	"f8E8M0FNU": true,
}

// IsFloatKeyword reports whether s names a builtin float type.
func IsFloatKeyword(s string) bool { return floatNames[s] }

// ParseScalarType parses a builtin scalar type keyword (f16, si32, index, …).
func ParseScalarType(s string) (Type, bool) {
	switch s {
	case "index":
		return Index, true
	case "none":
		return None, true
	}
	if floatNames[s] {
		return &FloatType{Name: s}, true
	}
	sign, rest := Signless, s
	switch {
	case strings.HasPrefix(s, "si"):
		sign, rest = Signed, s[2:]
	case strings.HasPrefix(s, "ui"):
		sign, rest = Unsigned, s[2:]
	case strings.HasPrefix(s, "i"):
		rest = s[1:]
	default:
		return nil, false
	}
	if rest == "" || rest[0] == '0' && len(rest) > 1 {
		return nil, false
	}
	w, err := strconv.Atoi(rest)
	if err != nil || w <= 0 || w > 1<<24 {
		return nil, false
	}
	return &IntegerType{Width: w, Signedness: sign}, true
}

// ParseSimpleType parses a scalar type or a ranked/unranked tensor of a
// scalar type without encoding: the subset used in option values and inside
// !coreai.handle<…>. The full MLIR type grammar lives in graph/mlirtext.
func ParseSimpleType(s string) (Type, error) {
	s = strings.TrimSpace(s)
	if t, ok := ParseScalarType(s); ok {
		return t, nil
	}
	if !strings.HasPrefix(s, "tensor<") || !strings.HasSuffix(s, ">") {
		return nil, fmt.Errorf("unsupported type %q (want a scalar type or tensor<…>)", s)
	}
	body := s[len("tensor<") : len(s)-1]
	if strings.HasPrefix(body, "*x") {
		e, ok := ParseScalarType(body[2:])
		if !ok {
			return nil, fmt.Errorf("bad element type in %q", s)
		}
		return &TensorType{Unranked: true, Elem: e}, nil
	}
	parts := strings.Split(body, "x")
	// Element type is the last part; float names like f8E4M3 contain no 'x'.
	elem, ok := ParseScalarType(parts[len(parts)-1])
	if !ok {
		return nil, fmt.Errorf("bad element type in %q", s)
	}
	shape := make([]int64, 0, len(parts)-1)
	for _, p := range parts[:len(parts)-1] {
		if p == "?" {
			shape = append(shape, Dynamic)
			continue
		}
		d, err := strconv.ParseInt(p, 10, 64)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("bad dimension %q in %q", p, s)
		}
		shape = append(shape, d)
	}
	return &TensorType{Shape: shape, Elem: elem}, nil
}
