package graph

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/oracle"
)

// Spellings mlir-opt 19 and 22 print for these values (run by hand and by
// TestFloatSpellingMatchesMlirOpt below).
func TestFloatSpelling(t *testing.T) {
	f32 := func(v float64) uint64 { return uint64(math.Float32bits(float32(v))) }
	cases := []struct {
		v    float64
		name string
		want string
	}{
		{0, "f32", "0.000000e+00"},
		{math.Copysign(0, -1), "f32", "-0.000000e+00"},
		{1, "f32", "1.000000e+00"},
		{100, "f32", "1.000000e+02"},
		{0.1, "f32", "1.000000e-01"},
		{1e-5, "f32", "9.99999974E-6"},
		{-0.785398185, "f32", "-0.785398185"},
		{3.141592, "f32", "3.14159203"},
		{2.30258512, "f32", "2.30258512"},
		{1e30, "f32", "1.000000e+30"},
		{2997925, "f32", "0x4A36FA94"},
		{1.1, "f16", "1.099610e+00"},
		{0.1, "f16", "9.997550e-02"},
		{65504, "f16", "6.550400e+04"},
		{1e-7, "f16", "1.192090e-07"},
		{0.1, "f64", "1.000000e-01"},
		{3.141592, "f64", "3.1415920000000002"},
		{1e-5, "f64", "1.000000e-05"},
		{0.1, "bf16", "1.000980e-01"},
	}
	for _, c := range cases {
		ft := &FloatType{Name: c.name}
		var bits uint64
		if c.name == "f32" {
			bits = f32(c.v)
		} else {
			bits = FloatBits(c.v, c.name)
		}
		if got := formatFloatBits(bits, ft); got != c.want {
			t.Errorf("%v %s: got %s, want %s", c.v, c.name, got, c.want)
		}
	}
}

// TestFloatSpellingMatchesMlirOpt prints random values of every decoded
// format as anefix spells them and checks that mlir-opt prints them back
// character for character.
func TestFloatSpellingMatchesMlirOpt(t *testing.T) {
	bins := oracle.MlirOptPaths(t)
	rng := rand.New(rand.NewSource(7))
	var attrs []string
	for _, name := range []string{"f16", "bf16", "f32", "f64"} {
		for i := 0; i < 300; i++ {
			var bits uint64
			switch name {
			case "f16":
				bits = uint64(rng.Intn(1 << 16))
				if v := f16.ToFloat64(uint16(bits)); math.IsInf(v, 0) || math.IsNaN(v) {
					continue
				}
			case "bf16":
				bits = uint64(rng.Intn(1 << 16))
			case "f32":
				bits = uint64(rng.Uint32())
			case "f64":
				bits = rng.Uint64()
			}
			if i%3 == 0 { // short decimals are the common case in models
				v := float64(rng.Intn(20000)-10000) / math.Pow(10, float64(rng.Intn(8)))
				bits = FloatBits(v, name)
			}
			v, _ := FloatValue(bits, name)
			if math.IsInf(v, 0) || math.IsNaN(v) {
				continue
			}
			attrs = append(attrs, fmt.Sprintf("a%d = %s", len(attrs), (&FloatAttr{Type: &FloatType{Name: name}, Bits: bits}).String()))
		}
	}
	text := `"x.a"() {` + strings.Join(attrs, ", ") + "} : () -> ()\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.mlir"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bin := range bins {
		out, err := oracle.RunMlirOpt(bin, "", "--mlir-print-op-generic", filepath.Join(dir, "f.mlir"))
		if err != nil {
			t.Fatal(err)
		}
		// mlir-opt sorts attribute names; compare entry by entry.
		got := map[string]string{}
		s := string(out)
		s = s[strings.Index(s, "{a")+1 : strings.LastIndex(s, "} : ")]
		for _, e := range strings.Split(s, ", a") {
			k, v, _ := strings.Cut(strings.TrimPrefix(e, "a"), " = ")
			got["a"+k] = v
		}
		bad := 0
		for _, a := range attrs {
			k, v, _ := strings.Cut(a, " = ")
			if got[k] != v {
				if bad++; bad <= 10 {
					t.Errorf("%s prints %s as %s", bin, v, got[k])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d spellings differ", bin, bad, len(attrs))
		}
	}
}
