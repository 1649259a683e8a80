package interp

import (
	"os"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

func parseFile(t *testing.T, path string) *graph.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := mlirtext.Parse(path, string(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The handle form steps like the attribute form, with the values worked
// out by hand: acc' = 0.5·acc + x, cache[0, pos, :] = acc', out = Σ_rows
// cache'.
func TestHandleStates(t *testing.T) {
	steps := []struct {
		x        []float32
		pos      int64
		acc, out []float32
	}{
		{x: []float32{1, 1, 1, 1}, pos: 1, acc: []float32{1.5, 2, 2.5, 3}, out: []float32{1.5, 2, 2.5, 3}},
		{x: []float32{0, 0, 0, 0}, pos: 2, acc: []float32{0.75, 1, 1.25, 1.5}, out: []float32{2.25, 3, 3.75, 4.5}},
		{x: []float32{0, 0, 0, 0}, pos: 1, acc: []float32{0.375, 0.5, 0.625, 0.75}, out: []float32{1.125, 1.5, 1.875, 2.25}},
	}
	for _, file := range []string{"attr-f32.mlir", "handle-f32.mlir"} {
		t.Run(file, func(t *testing.T) {
			in := New(parseFile(t, "../../testdata/states/"+file), Options{})
			acc := NewFloat(F32, []int{1, 4}, []float32{1, 2, 3, 4})
			cache := Zeros(F32, []int{1, 8, 4})
			for i, s := range steps {
				outs, err := in.Run("main", []*Tensor{acc, NewFloat(F32, []int{1, 4}, s.x), cache, NewInt(SI32, []int{1}, []int64{s.pos})})
				if err != nil {
					t.Fatal(err)
				}
				if len(outs) != 3 {
					t.Fatalf("step %d: %d outputs", i, len(outs))
				}
				acc, cache = outs[0], outs[1]
				if got := acc.Floats(); !equalF(got, s.acc) {
					t.Errorf("step %d: acc = %v, want %v", i, got, s.acc)
				}
				if got := cache.Floats()[4*s.pos : 4*s.pos+4]; !equalF(got, s.acc) {
					t.Errorf("step %d: cache row %d = %v, want %v", i, s.pos, got, s.acc)
				}
				if got := outs[2].Floats(); !equalF(got, s.out) {
					t.Errorf("step %d: out = %v, want %v", i, got, s.out)
				}
			}
		})
	}
}

func equalF(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Malformed uses of the state ops are errors naming the op, never a panic.
func TestHandleStateErrors(t *testing.T) {
	const head = `module {
  coreai.graph @main(%h: !coreai.handle<tensor<4xf32>> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}, %x: tensor<4xf32> {coreai.name = "x"}) -> (OUTTYPES) {
    %t0 = "coreai.create_token"() : () -> !coreai.token
`
	cases := []struct{ name, outTypes, body, want string }{
		{"write to a tensor", "!coreai.token {coreai.name = \"s\"}", `
    %t1 = "coreai.write_handle"(%x, %x, %t0) : (tensor<4xf32>, tensor<4xf32>, !coreai.token) -> !coreai.token
    coreai.output %t1 : !coreai.token`, "not a !coreai.handle argument"},
		{"write of another shape", "!coreai.token {coreai.name = \"s\"}", `
    %c = coreai.constant dense<1.0> : tensor<2xf32>
    %t1 = "coreai.write_handle"(%h, %c, %t0) : (!coreai.handle<tensor<4xf32>>, tensor<2xf32>, !coreai.token) -> !coreai.token
    coreai.output %t1 : !coreai.token`, "writes tensor<2xf32> into a handle holding tensor<4xf32>"},
		{"token no state names", "!coreai.token {coreai.name = \"other\"}", `
    coreai.output %t0 : !coreai.token`, "no handle input names"},
		{"read with too few operands", "tensor<4xf32> {coreai.name = \"y\"}", `
    %v, %t1 = "coreai.read_handle"(%h) : (!coreai.handle<tensor<4xf32>>) -> (tensor<4xf32>, !coreai.token)
    coreai.output %v : tensor<4xf32>`, "expected operands (handle, token)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(head, "OUTTYPES", c.outTypes, 1) + c.body + "\n  }\n}\n"
			m, _, err := mlirtext.Parse("t.mlir", text)
			if err != nil {
				t.Fatal(err)
			}
			_, err = New(m, Options{}).Run("main", []*Tensor{Zeros(F32, []int{4}), Zeros(F32, []int{4})})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "@main") {
				t.Fatalf("err = %v, want one naming @main and %q", err, c.want)
			}
		})
	}
}

// A handle written inside an invoked graph would not update the caller's
// state: an error, not a silent stale state.
func TestHandleWriteInCallee(t *testing.T) {
	const text = `module {
  coreai.graph @main(%h: !coreai.handle<tensor<4xf32>> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}, %x: tensor<4xf32> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "s"}) {
    %t = coreai.invoke @w(%h, %x) : (!coreai.handle<tensor<4xf32>>, tensor<4xf32>) -> !coreai.token
    coreai.output %t : !coreai.token
  }
  coreai.graph private @w(%h: !coreai.handle<tensor<4xf32>>, %x: tensor<4xf32>) -> !coreai.token {
    %t0 = coreai.create_token : !coreai.token
    %t1 = coreai.write_handle %h, %x, %t0 : (<tensor<4xf32>>, tensor<4xf32>, !coreai.token) -> !coreai.token
    coreai.output %t1 : !coreai.token
  }
}
`
	m, _, err := mlirtext.Parse("t.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(m, Options{}).Run("main", []*Tensor{Zeros(F32, []int{4}), Zeros(F32, []int{4})})
	if err == nil || !strings.Contains(err.Error(), "@w") || !strings.Contains(err.Error(), "inside an invoked graph") {
		t.Fatalf("err = %v", err)
	}
}
