package graph_test

import (
	"math/big"
	"testing"

	"github.com/anefix/anefix/graph"
)

// TestArrayBuilder: an array of integers (64 bits or fewer) or of floats of
// one type is packed, any other stays an attribute per element, and either
// way Len, At and the printed form are those of the elements given, in
// order (the spellings are MLIR's generic form of each element, written by
// hand).
func TestArrayBuilder(t *testing.T) {
	f16 := &graph.FloatType{Name: "f16"}
	nan := &graph.FloatAttr{Type: graph.F32, Bits: 0x7fc00001} // a NaN payload survives
	cases := []struct {
		name   string
		elems  []graph.Attr
		packed bool
		want   string
	}{
		{"empty", nil, false, "[]"},
		{"ones", []graph.Attr{graph.Int(1, graph.I64), graph.Int(1, graph.I64), graph.Int(1, graph.I64)}, true, "[1 : i64, 1 : i64, 1 : i64]"},
		{"one element", []graph.Attr{graph.Int(-7, graph.SI32)}, true, "[-7 : si32]"},
		{"unsigned", []graph.Attr{graph.Int(-1, graph.UI32), graph.Int(5, graph.UI32)}, true, "[4294967295 : ui32, 5 : ui32]"},
		{"bools as i1", []graph.Attr{graph.Int(1, graph.I1), graph.Int(0, graph.I1)}, true, "[true, false]"},
		{"index", []graph.Attr{graph.Int(3, graph.Index), graph.Int(4, graph.Index)}, true, "[3 : index, 4 : index]"},
		{"floats", []graph.Attr{graph.Float(1.5, f16), graph.Float(-2, f16)}, true, "[1.500000e+00 : f16, -2.000000e+00 : f16]"},
		{"nan payload", []graph.Attr{nan, graph.Float(0, graph.F32)}, true, "[0x7FC00001 : f32, 0.000000e+00 : f32]"},
		{"types differ", []graph.Attr{graph.Int(1, graph.I64), graph.Int(1, graph.I32), graph.Int(2, graph.I64)}, false, "[1 : i64, 1 : i32, 2 : i64]"},
		{"int then float", []graph.Attr{graph.Int(1, graph.I64), graph.Float(1, graph.F32)}, false, "[1 : i64, 1.000000e+00 : f32]"},
		{"string last", []graph.Attr{graph.Int(1, graph.I64), graph.Int(2, graph.I64), graph.Str("x")}, false, `[1 : i64, 2 : i64, "x"]`},
		{"wide integer", []graph.Attr{graph.Int(1, graph.I64), &graph.IntegerAttr{Type: &graph.IntegerType{Width: 128}, Big: new(big.Int).Lsh(big.NewInt(1), 100)}}, false, "[1 : i64, 1267650600228229401496703205376 : i128]"},
		{"nested", []graph.Attr{&graph.ArrayAttr{Elems: []graph.Attr{graph.Int(1, graph.I64)}}}, false, "[[1 : i64]]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b graph.ArrayBuilder
			for _, e := range c.elems {
				b.Add(e)
			}
			a := b.Array()
			if _, _, _, packed := a.Packed(); packed != c.packed {
				t.Errorf("packed = %v, want %v", packed, c.packed)
			}
			if a.Len() != len(c.elems) {
				t.Fatalf("Len %d, want %d", a.Len(), len(c.elems))
			}
			for i, e := range c.elems {
				if got := a.At(i); got.String() != e.String() {
					t.Errorf("At(%d) = %s, want %s", i, got, e)
				}
			}
			if got := a.String(); got != c.want {
				t.Errorf("printed %s, want %s", got, c.want)
			}
			if !graph.AttrEqual(a, &graph.ArrayAttr{Elems: c.elems}) && len(c.elems) > 0 {
				t.Errorf("not equal to the unpacked array of the same elements")
			}
		})
	}
}

// TestArrayBuilderLarge: elements past the builder's first blocks keep
// their order, packed and unpacked (the unpacking happens after 100,000
// packed elements).
func TestArrayBuilderLarge(t *testing.T) {
	const n = 200_000
	for _, mixed := range []bool{false, true} {
		var b graph.ArrayBuilder
		for i := range n {
			if mixed && i == n/2 {
				b.Add(graph.Str("s"))
				continue
			}
			b.Add(graph.Int(int64(i), graph.I64))
		}
		a := b.Array()
		if a.Len() != n {
			t.Fatalf("mixed=%v: Len %d", mixed, a.Len())
		}
		for _, i := range []int{0, 1, 7, 8, 65535, 65536, n/2 - 1, n/2 + 1, n - 1} {
			ia, ok := a.At(i).(*graph.IntegerAttr)
			if !ok || ia.Value != int64(i) {
				t.Errorf("mixed=%v: At(%d) = %v", mixed, i, a.At(i))
			}
		}
	}
}
