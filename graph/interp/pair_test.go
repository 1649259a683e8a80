package interp

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/mlirtext"
)

// pairModule is y = (x + x) · w with w a 4×2 f16 blob: one matmul on a
// weight, after an op of the lanes' own.
func pairModule(t *testing.T, name string, w []byte) *graph.Module {
	t.Helper()
	src := fmt.Sprintf(`module {
  coreai.graph @main(%%x: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x2xf16> {coreai.name = "y"}) {
    %%w = coreai.constant dense_resource<w> : tensor<4x2xf16>
    %%x2 = coreai.decomposable.broadcasting_add %%x, %%x : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
    %%y = "coreai.matmul"(%%x2, %%w) : (tensor<1x4xf16>, tensor<4x2xf16>) -> tensor<1x2xf16>
    coreai.output %%y : tensor<1x2xf16>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w: %q
    }
  }
#-}
`, blobHex(2, w))
	m, _, err := mlirtext.Parse(name+".mlir", src)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, src)
	}
	return m
}

func halves(v ...float32) []byte {
	out := make([]byte, 0, 2*len(v))
	for _, x := range v {
		h := f16.FromFloat32(x)
		out = append(out, byte(h), byte(h>>8))
	}
	return out
}

// pairLanes is n lanes of x = [l+1, 0.5, -1, 2] for lane l.
func pairLanes(n int) [][]*Tensor {
	out := make([][]*Tensor, n)
	for l := range out {
		out[l] = []*Tensor{NewFloat(F16, []int{1, 4}, []float32{float32(l + 1), 0.5, -1, 2})}
	}
	return out
}

// Pair runs a matmul whose weight is the same bytes in both graphs once
// for both (the weight read once: 16 bytes, where separate runs read 32),
// with each graph's outputs what it computes alone; a weight that differs
// is not paired. A side that fails before the paired op (here a work bound
// of 1 on CAND) releases the other, which runs the op alone: no hang, and
// its outputs unchanged. Expected values by hand: y = 2x · w, with w
// columns [1, 0, 0, 0] and [0, 0, 1, 1] (same) or [0, 1, 0, 0] and
// [1, 1, 1, 1] (other), all exact in f16.
func TestPairRunsSharedWeightOnce(t *testing.T) {
	same := halves(1, 0, 0, 0, 0, 1, 0, 1) // row-major 4×2
	other := halves(0, 1, 1, 1, 0, 1, 0, 1)
	lane := func(l int, w []byte) []float32 {
		x := []float32{float32(l + 1), 0.5, -1, 2}
		if &w[0] == &same[0] {
			return []float32{2 * x[0], 2 * (x[2] + x[3])}
		}
		return []float32{2 * x[1], 2 * (x[0] + x[1] + x[2] + x[3])}
	}
	cases := []struct {
		name      string
		candW     []byte
		candWork  int64
		paired    int
		reads     int64 // by both interpreters
		candFails bool
	}{
		{name: "same weight", candW: same, paired: 1, reads: 16},
		{name: "other weight", candW: other, paired: 0, reads: 32},
		{name: "candidate fails first", candW: same, candWork: 1, paired: 1, reads: 16, candFails: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSharedBlobs()
			defer s.Close()
			a := New(pairModule(t, "ref", same), Options{Blobs: s})
			b := New(pairModule(t, "cand", c.candW), Options{Blobs: s, MaxWork: c.candWork})
			defer a.Close()
			defer b.Close()
			p := NewPair(a, "main", b, "main")
			aout, bout, aerr, berr := p.Run(pairLanes(3), pairLanes(3))
			if aerr != nil {
				t.Fatal(aerr)
			}
			if c.candFails != (berr != nil) {
				t.Fatalf("candidate error %v, want one: %v", berr, c.candFails)
			}
			if c.candFails && !errors.As(berr, new(*workError)) {
				t.Errorf("candidate error %v, want the work bound's", berr)
			}
			if p.Paired() != c.paired {
				t.Errorf("%d ops paired, want %d", p.Paired(), c.paired)
			}
			for l := range 3 {
				if got := aout[l][0].Floats(); !slices.Equal(got, lane(l, same)) {
					t.Errorf("REF lane %d: %v, want %v", l, got, lane(l, same))
				}
				if !c.candFails {
					if got := bout[l][0].Floats(); !slices.Equal(got, lane(l, c.candW)) {
						t.Errorf("CAND lane %d: %v, want %v", l, got, lane(l, c.candW))
					}
				}
			}
			if got := a.WeightBytesRead() + b.WeightBytesRead(); got != c.reads {
				t.Errorf("weight bytes read %d, want %d", got, c.reads)
			}
		})
	}
}

// The pairing's own work is bounded by its input: a weight computed by a
// chain of x+x doubles its signature text at every step, and two graphs
// with many stackable ops would need a table of len(x)·len(y) cells. Both
// are refused (the ops run unpaired, with the same results) instead of
// allocating without limit. Bounds by hand: 20 doublings of a signature
// of ~200 bytes are ~200 MB of text (and the same again in temporaries);
// a 5000 × 5000 table is 100 MB; either kept under 16 MiB allocated.
func TestPairWorkBounded(t *testing.T) {
	allocated := func(f func()) uint64 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	t.Run("doubling signature", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("module {\n  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = \"x\"}) -> (tensor<1x2xf16> {coreai.name = \"y\"}) {\n")
		b.WriteString("    %w0 = coreai.constant dense_resource<w> : tensor<4x2xf16>\n")
		const levels = 20
		for i := 1; i <= levels; i++ {
			fmt.Fprintf(&b, "    %%w%d = coreai.decomposable.broadcasting_add %%w%d, %%w%d : (tensor<4x2xf16>, tensor<4x2xf16>) -> tensor<4x2xf16>\n", i, i-1, i-1)
		}
		fmt.Fprintf(&b, "    %%y = \"coreai.matmul\"(%%x, %%w%d) : (tensor<1x4xf16>, tensor<4x2xf16>) -> tensor<1x2xf16>\n", levels)
		b.WriteString("    coreai.output %y : tensor<1x2xf16>\n  }\n}\n")
		fmt.Fprintf(&b, "{-#\n  dialect_resources: {\n    builtin: {\n      w: %q\n    }\n  }\n#-}\n", blobHex(2, halves(1, 0, 0, 0, 0, 1, 0, 1)))
		m, _, err := mlirtext.Parse("doubling.mlir", b.String())
		if err != nil {
			t.Fatal(err)
		}
		s := NewSharedBlobs()
		defer s.Close()
		in := New(m, Options{Blobs: s})
		defer in.Close()
		pl, err := in.planFor(in.graphs["main"])
		if err != nil {
			t.Fatal(err)
		}
		var ops []stackOp
		if n := allocated(func() { ops = in.stackOps(pl) }); n > 16<<20 {
			t.Errorf("signatures allocated %d bytes", n)
		}
		if len(ops) != 0 {
			t.Errorf("the matmul on a %d-level doubled weight has a signature (%d bytes): want none", levels, len(ops[0].sig))
		}
	})
	t.Run("table", func(t *testing.T) {
		mk := func(n int, prefix string) []stackOp {
			out := make([]stackOp, n)
			for i := range out {
				out[i] = stackOp{op: graph.NewOp("coreai.matmul", nil, nil, nil, graph.Unknown), sig: fmt.Sprint(prefix, i%7)}
			}
			return out
		}
		x, y := mk(5000, "s"), mk(5000, "s")
		var order [][2]*graph.Operation
		if n := allocated(func() { order = commonOrder(x, y) }); n > 16<<20 {
			t.Errorf("5000 × 5000 ops: %d bytes allocated", n)
		}
		if order != nil {
			t.Errorf("5000 × 5000 ops paired %d, want none past the bound", len(order))
		}
		// Within the bound, the longest common subsequence by hand:
		// a b c against b c a pairs b and c.
		a, b := mk(3, ""), mk(3, "")
		a[0].sig, a[1].sig, a[2].sig = "a", "b", "c"
		b[0].sig, b[1].sig, b[2].sig = "b", "c", "a"
		got := commonOrder(a, b)
		want := [][2]*graph.Operation{{a[1].op, b[0].op}, {a[2].op, b[1].op}}
		if !slices.Equal(got, want) {
			t.Errorf("order %v, want %v", got, want)
		}
	})
}
