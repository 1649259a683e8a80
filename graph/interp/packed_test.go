package interp

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/mlirtext"
)

// blobHex is a dense_resource body: the 4-byte alignment, then the bytes.
func blobHex(align uint32, b []byte) string {
	h := make([]byte, 4)
	binary.LittleEndian.PutUint32(h, align)
	return "0x" + strings.ToUpper(hex.EncodeToString(append(h, b...)))
}

func bytesOf(t *Tensor) []byte {
	out := make([]byte, len(t.I))
	for i, v := range t.I {
		out[i] = byte(v)
	}
	return out
}

func halfBytes(t *Tensor) []byte {
	out := make([]byte, 2*len(t.F))
	for i, v := range t.F {
		binary.LittleEndian.PutUint16(out[2*i:], f16.FromFloat32(v))
	}
	return out
}

// runIR parses a module and runs its @main without inputs.
func runIR(t *testing.T, name, src string) []*Tensor {
	t.Helper()
	m, _, err := mlirtext.Parse(name+".mlir", src)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, src)
	}
	in := New(m, Options{})
	defer in.Close()
	out, err := in.Run("main", nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// TestPackedAgainstNumpy reads packed sub-byte blobs as the IR holds them
// (dense_resource bytes packed the way coreai-torch's _intx.py packs them,
// written by numpy in testdata/numpy/gen.py) and runs lut_to_dense over
// every index width palettize writes, with f16, si8, ui8 and f8E4M3FN
// palettes and vector palettes, and blockwise_shift_scale of packed si4
// and ui4 data; results must equal numpy's exactly.
func TestPackedAgainstNumpy(t *testing.T) {
	f := loadVecs(t, "packed.vec.gz")
	n := 0
	for _, bits := range []int{1, 2, 3, 4, 6, 8} {
		for _, lt := range []string{"f16", "si8", "ui8", "f8E4M3FN"} {
			c := fmt.Sprintf("lut/%d_%s", bits, lt)
			lut := vecIn(t, f, c, "lut")
			want := vecIn(t, f, c, "out")
			var lb []byte
			align := uint32(1)
			switch lt {
			case "f16":
				lb, align = halfBytes(lut), 2
			default:
				lb = bytesOf(lut)
			}
			res := lt
			outType := fmt.Sprintf("tensor<8x5x%s>", res)
			src := fmt.Sprintf(`module {
  coreai.graph @main() -> (%[4]s {coreai.name = "y"}) {
    %%0 = coreai.constant dense_resource<idx> : tensor<8x5xui%[1]d>
    %%1 = coreai.constant dense_resource<lut> : tensor<2x1x%[2]dx1x%[3]s>
    %%2 = coreai.constant dense<0> : tensor<si16>
    %%3 = coreai.lut_to_dense %%0, %%1, %%2 : (tensor<8x5xui%[1]d>, tensor<2x1x%[2]dx1x%[3]s>, tensor<si16>) -> %[4]s
    coreai.output %%3 : %[4]s
  }
}

{-#
  dialect_resources: {
    builtin: {
      idx: "%[5]s",
      lut: "%[6]s"
    }
  }
#-}
`, bits, 1<<bits, lt, outType, blobHex(1, bytesOf(vecIn(t, f, c, "bytes"))), blobHex(align, lb))
			got := runIR(t, c, src)[0]
			if lt == "f8E4M3FN" {
				got = FromF32(F16, got.Shape, got.Floats())
			} else if !got.Elem.IsFloat() {
				got = asElem(NewInt(SI32, got.Shape, got.I), SI32)
			}
			compareTensors(t, c, got, want, 0)
			n++
		}
		c := fmt.Sprintf("lutvec/%d", bits)
		src := fmt.Sprintf(`module {
  coreai.graph @main() -> (tensor<6x4xf16> {coreai.name = "y"}) {
    %%0 = coreai.constant dense_resource<idx> : tensor<3x4xui%[1]d>
    %%1 = coreai.constant dense_resource<lut> : tensor<1x1x%[2]dx2xf16>
    %%2 = coreai.constant dense<0> : tensor<si16>
    %%3 = coreai.lut_to_dense %%0, %%1, %%2 : (tensor<3x4xui%[1]d>, tensor<1x1x%[2]dx2xf16>, tensor<si16>) -> tensor<6x4xf16>
    coreai.output %%3 : tensor<6x4xf16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      idx: "%[3]s",
      lut: "%[4]s"
    }
  }
#-}
`, bits, 1<<bits, blobHex(1, bytesOf(vecIn(t, f, c, "bytes"))), blobHex(2, halfBytes(vecIn(t, f, c, "lut"))))
		compareTensors(t, c, runIR(t, c, src)[0], vecIn(t, f, c, "out"), 0)
		n++
	}
	for _, qt := range []string{"si4", "ui4"} {
		c := "bss/" + qt
		off1 := vecIn(t, f, c, "off1")
		var o1 []string
		for i := 0; i < 4; i++ {
			o1 = append(o1, fmt.Sprintf("[%d, %d]", off1.I[2*i], off1.I[2*i+1]))
		}
		src := fmt.Sprintf(`module {
  coreai.graph @main() -> (tensor<4x6xf16> {coreai.name = "y"}) {
    %%0 = coreai.constant dense_resource<q> : tensor<4x6x%[1]s>
    %%1 = coreai.constant dense_resource<scale> : tensor<4x2xf16>
    %%2 = coreai.constant dense<[%[2]s]> : tensor<4x2x%[1]s>
    %%3 = coreai.constant dense_resource<off2> : tensor<4x2xf16>
    %%4 = coreai.blockwise_shift_scale %%0, %%1, %%2, %%3 : (tensor<4x6x%[1]s>, tensor<4x2xf16>, tensor<4x2x%[1]s>, tensor<4x2xf16>) -> tensor<4x6xf16>
    coreai.output %%4 : tensor<4x6xf16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      q: "%[3]s",
      scale: "%[4]s",
      off2: "%[5]s"
    }
  }
#-}
`, qt, strings.Join(o1, ", "), blobHex(1, bytesOf(vecIn(t, f, c, "bytes"))), blobHex(2, halfBytes(vecIn(t, f, c, "scale"))), blobHex(2, halfBytes(vecIn(t, f, c, "off2"))))
		compareTensors(t, c, runIR(t, c, src)[0], vecIn(t, f, c, "out"), 0)
		n++
	}
	if n != 32 {
		t.Fatalf("%d packed cases, want 32", n)
	}
}

// A lut_to_dense of constants is computed once and kept in its element
// type's bytes; its indices stay in their blob. EstimateMemory counts
// that: 2 bytes per fp16 element, nothing for the indices (before: 8 per
// index and 4 per element, 6 GB and 3 GB for full-scale synth arm A).
func TestFoldedLUTMemory(t *testing.T) {
	const rows, cols = 512, 256
	idx := make([]byte, rows*cols/2)
	for i := range idx {
		idx[i] = byte(i * 7)
	}
	lut := make([]byte, 2*16*16)
	for i := 0; i < 16*16; i++ {
		binary.LittleEndian.PutUint16(lut[2*i:], f16.FromFloat64(float64(i%16)/16-0.5))
	}
	src := fmt.Sprintf(`module {
  coreai.graph @main(%%arg0: tensor<1x1xsi32> {coreai.name = "ids"}) -> (tensor<1x%[2]dxf16> {coreai.name = "y"}) {
    %%0 = coreai.constant dense_resource<idx> : tensor<%[1]dx%[2]dxui4>
    %%1 = coreai.constant dense_resource<lut> : tensor<16x1x16x1xf16>
    %%2 = coreai.constant dense<0> : tensor<si16>
    %%3 = coreai.lut_to_dense %%0, %%1, %%2 : (tensor<%[1]dx%[2]dxui4>, tensor<16x1x16x1xf16>, tensor<si16>) -> tensor<%[1]dx%[2]dxf16>
    %%4 = coreai.gather_nd %%3 at %%arg0 : (tensor<%[1]dx%[2]dxf16>, tensor<1x1xsi32>) to tensor<1x%[2]dxf16>
    coreai.output %%4 : tensor<1x%[2]dxf16>
  }
}

{-#
  dialect_resources: {
    builtin: {
      idx: "%[3]s",
      lut: "%[4]s"
    }
  }
#-}
`, rows, cols, blobHex(1, idx), blobHex(2, lut))
	m, _, err := mlirtext.Parse("fold.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	est := EstimateMemory(m, "main")
	if est < 2*rows*cols || est > 2*rows*cols+64<<10 {
		t.Errorf("estimate %d bytes, want about %d (the folded weight in fp16)", est, 2*rows*cols)
	}
	in := New(m, Options{})
	defer in.Close()
	for step := 0; step < 2; step++ {
		out, err := in.Run("main", []*Tensor{NewInt(SI32, []int{1, 1}, []int64{int64(3 + step)})})
		if err != nil {
			t.Fatal(err)
		}
		row := 3 + step
		for c := 0; c < cols; c++ {
			i := row*cols + c
			q := idx[i/2] >> (4 * (i % 2)) & 15
			want := f16.ToFloat64(binary.LittleEndian.Uint16(lut[2*((row/32)*16+int(q)):]))
			if float64(out[0].Floats()[c]) != want {
				t.Fatalf("step %d, column %d: %g, want %g", step, c, out[0].Floats()[c], want)
			}
		}
	}
	var lutOp *graph.Operation
	m.Walk(func(op *graph.Operation) bool {
		if op.Name == "coreai.lut_to_dense" {
			lutOp = op
		}
		return true
	})
	if ft := in.consts[lutOp]; ft == nil || ft.raw == nil || len(ft.raw) != 2*rows*cols {
		t.Fatalf("the lut_to_dense is not kept as fp16 bytes: %+v", ft)
	}
}
