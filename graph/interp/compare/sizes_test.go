package compare

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/mlirtext"
)

// hugeDims draws a shape for TestHugeShapesNeverPanic: ranks 0 to 5 with
// dims from 0 and 1 up to 2^31, 2^32, 2^62 and MaxInt64, so that many
// element counts are past int64 and many fit int64 but no memory.
func hugeDims(r *rand.Rand) []int64 {
	dims := make([]int64, r.IntN(6))
	for i := range dims {
		switch r.IntN(7) {
		case 0:
			dims[i] = r.Int64N(3)
		case 1:
			dims[i] = 1<<31 + r.Int64N(3) - 1
		case 2:
			dims[i] = 1<<32 + r.Int64N(3) - 1
		case 3:
			dims[i] = 1<<62 + r.Int64N(2)
		case 4:
			dims[i] = math.MaxInt64 - r.Int64N(2)
		default:
			dims[i] = 1 + r.Int64N(40)
		}
	}
	return dims
}

func dimsText(dims []int64, elem string) string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range dims {
		fmt.Fprintf(&b, "%dx", d)
	}
	return b.String() + elem + ">"
}

// hugeModule is a synthetic hostile model (a stand-in written by the
// test, the shape of the 287-byte file): a graph whose logits are
// a splat constant of logits, or relu of an input of in, or a dense
// literal of lit.
func hugeModule(variant int, logits, in string) string {
	head := "module {\n  coreai.graph @main(%arg0: tensor<1xsi32> {coreai.name = \"input_ids\"}, %arg1: " + in + " {coreai.name = \"x\"}) -> (" + logits + " {coreai.name = \"logits\"}) {\n"
	tail := "    coreai.output %0 : " + logits + "\n  }\n}\n"
	switch variant {
	case 0:
		return head + "    %0 = coreai.constant dense<1.0> : " + logits + "\n" + tail
	case 1:
		return head + "    %0 = \"coreai.relu\"(%arg1) : (" + in + ") -> " + logits + "\n" + tail
	}
	return head + "    %0 = \"coreai.add\"(%arg1, %arg1) : (" + in + ", " + in + ") -> " + logits + "\n" + tail
}

// TestHugeShapesNeverPanic: generated shapes, many whose element count
// does not fit int64 (legal MLIR types), go through the type parser, the
// memory estimate, the interpreter's size check and allocation, and
// Compare. Each step either works or returns an error; none panics, and
// the estimate never falls below the exact size of the constant (it wrapped
// before: the 1x4294967296x4294967296 logits passed the memory
// check and Compare then sliced out of range).
func TestHugeShapesNeverPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 8))
	const limit = 64 << 20
	n := 600
	if testing.Short() {
		n = 100
	}
	for i := range n {
		logits, in := hugeDims(r), hugeDims(r)
		if r.IntN(3) == 0 {
			in = logits
		}
		variant := r.IntN(3)
		text := hugeModule(variant, dimsText(logits, "f16"), dimsText(in, "f16"))
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m, _, err := mlirtext.Parse("huge.mlir", text)
			if err != nil {
				t.Fatalf("a legal type was refused: %v\n%s", err, text)
			}
			est := interp.EstimateMemory(m, "main")
			exact := big.NewInt(4) // the splat constant as float32
			for _, d := range logits {
				exact.Mul(exact, big.NewInt(d))
			}
			if variant == 0 && exact.IsInt64() && est < exact.Int64() || variant == 0 && !exact.IsInt64() && est != math.MaxInt64 {
				t.Errorf("estimate %d below the constant's %s bytes", est, exact)
			}
			sizeErr := interp.CheckSizes(m)
			if sizeErr == nil && est <= limit {
				// Small enough to run on its own: Run must not panic.
				run := interp.New(m, interp.Options{})
				args := []*interp.Tensor{interp.Zeros(interp.SI32, []int{1})}
				if tt, ok := graph.AsTensor(m.Graph("main").Inputs()[1].Type); ok {
					if shape, err := interp.ShapeOf(tt); err == nil {
						args = append(args, interp.Zeros(interp.F16, shape))
					}
				}
				if len(args) == 2 {
					run.Run("main", args)
				}
			} else if sizeErr != nil && !strings.Contains(sizeErr.Error(), "does not fit") {
				t.Errorf("size error without the reason: %v", sizeErr)
			}
			_, err = Compare(m, m, Options{Steps: 1, MaxMemory: limit})
			if sizeErr != nil && (err == nil || !strings.Contains(err.Error(), "does not fit")) {
				t.Errorf("Compare: %v; want the size error %v", err, sizeErr)
			}
		})
	}
}
