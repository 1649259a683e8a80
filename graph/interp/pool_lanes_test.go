package interp

import (
	"runtime"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

// A float buffer that dies in a run is the next same-length result's
// (floatPool), within a run and across runs, with the values unchanged.
// Per run the graph below makes three 8192-element results, x and y
// fresh-shaped, z; x dies at y, y at z. Without the pool every run
// allocates all three (3 × 32 KiB); with it, x takes the buffer the last
// run's y left and z takes x's, so only y is new (32 KiB, plus small
// headers). Values by hand: x = 1.5 + 1.5, y = x·x, z = y·y.
func TestPoolReusesDeadBuffers(t *testing.T) {
	const n = 8192
	src := `module {
  coreai.graph @main() -> (tensor<8192xf32> {coreai.name = "z"}) {
    %c = coreai.constant dense<1.5> : tensor<8192xf32>
    %x = coreai.add %c, %c : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    %y = coreai.mul %x, %x : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    %z = coreai.mul %y, %y : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    coreai.output %z : tensor<8192xf32>
  }
}
`
	m, _, err := mlirtext.Parse("pool.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	in := New(m, Options{})
	defer in.Close()
	const runs = 20
	var ms0, ms1 runtime.MemStats
	for r := range runs + 2 {
		if r == 2 {
			runtime.GC()
			runtime.ReadMemStats(&ms0)
		}
		out, err := in.Run("main", nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range out[0].Floats() {
			if v != 81 {
				t.Fatalf("run %d: z[%d] = %g, want 81", r, i, v)
			}
		}
	}
	runtime.ReadMemStats(&ms1)
	per := int64(ms1.TotalAlloc-ms0.TotalAlloc) / runs
	t.Logf("%d bytes allocated per run (one result is %d)", per, 4*n)
	if per >= 2*4*n {
		t.Errorf("%d bytes allocated per run, two results' worth or more: dead buffers are not reused", per)
	}
}

// A buffer a live view still reads (sliceView) is not dead: its source's
// last use does not give it to the pool, so the next result of its length
// does not overwrite what the view shows. By hand: v = (1.5 + 1.5)[:4096]
// = 3, b = 1.5 · 1.5 = 2.25.
func TestPoolKeepsViewedBuffers(t *testing.T) {
	src := `module {
  coreai.graph @main() -> (tensor<4096xf32> {coreai.name = "v"}, tensor<8192xf32> {coreai.name = "b"}) {
    %c = coreai.constant dense<1.5> : tensor<8192xf32>
    %b0 = coreai.constant dense<[0]> : tensor<1xsi32>
    %e0 = coreai.constant dense<[4096]> : tensor<1xsi32>
    %s1 = coreai.constant dense<[1]> : tensor<1xsi32>
    %a = coreai.add %c, %c : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    %v = coreai.slice %a, %b0, %e0, %s1 : (tensor<8192xf32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) -> tensor<4096xf32>
    %b = coreai.mul %c, %c : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    coreai.output %v, %b : tensor<4096xf32>, tensor<8192xf32>
  }
}
`
	m, _, err := mlirtext.Parse("poolview.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	in := New(m, Options{})
	defer in.Close()
	for r := range 3 {
		out, err := in.Run("main", nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range out[0].Floats() {
			if v != 3 {
				t.Fatalf("run %d: v[%d] = %g, want 3", r, i, v)
			}
		}
		for i, v := range out[1].Floats() {
			if v != 2.25 {
				t.Fatalf("run %d: b[%d] = %g, want 2.25", r, i, v)
			}
		}
	}
}
