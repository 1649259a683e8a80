package passes

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/mlirtext"
)

// ptParse reads a test module from MLIR text and checks it verifies.
func ptParse(t *testing.T, text string) *graph.Module {
	t.Helper()
	m, _, err := mlirtext.Parse("t.mlir", text)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatalf("input does not verify: %v", err)
	}
	return m
}

// ptPrint prints m in the coreai printed form.
func ptPrint(t *testing.T, m *graph.Module) string {
	t.Helper()
	b, err := mlirtext.Format(m, mlirtext.FormPretty)
	if err != nil {
		t.Fatalf("print: %v", err)
	}
	return string(b)
}

// ptRun builds a pipeline from spec and runs it with verification.
func ptRun(t *testing.T, m *graph.Module, spec Spec) (*Result, error) {
	t.Helper()
	p, err := Build(spec)
	if err != nil {
		t.Fatalf("build %+v: %v", spec, err)
	}
	return p.Run(m, RunOptions{VerifyEach: true})
}

// f32hex spells float32 values as a resource blob (alignment prefix 4).
func f32hex(vals ...float32) string {
	var b bytes.Buffer
	b.WriteString("0x04000000")
	for _, v := range vals {
		var x [4]byte
		binary.LittleEndian.PutUint32(x[:], math.Float32bits(v))
		for _, c := range x {
			b.WriteString(strings.ToUpper(string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])))
		}
	}
	return b.String()
}

const stripBasic = `module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %c = coreai.constant dense<2.5> : tensor<4xf32>
    %w = coreai.constant dense_resource<w0> : tensor<4xf32>
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy_1"("m.py":199:0))
    %1 = coreai.decomposable.broadcasting_add %0, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = coreai.decomposable.broadcasting_mul %1, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %3 = coreai.exp %2 : tensor<4xf32> -> tensor<4xf32>
    %4 = coreai.cast %3 : tensor<4xf32> to tensor<4xf16> loc("_to_copy_2"("m.py":201:0))
    coreai.output %4 : tensor<4xf16>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w0: "BLOB"
    }
  }
#-}
`

type stripFP32CastsCase struct {
	name    string
	text    string
	set     []string
	wantErr string   // substring of the error; "" = success
	want    []string // substrings of the printed result
	notWant []string
	f32Left int64 // f32 values expected after the pass
	// wantNote is a substring of one of the change's notes ("" = none asked).
	wantNote string
	check    func(t *testing.T, m *graph.Module, ch *Change)
}

var stripFP32CastsCases = []stripFP32CastsCase{
	{
		name:    "basic island",
		text:    strings.Replace(stripBasic, "BLOB", f32hex(1, 2, 1e-9, -70000), 1),
		set:     []string{"strip-fp32-casts.clamp=true"},
		want:    []string{"dense_resource<w0_f16> : tensor<4xf16>", "coreai.exp %3 : tensor<4xf16> -> tensor<4xf16>"},
		notWant: []string{"coreai.cast", "f32", "w0:"},
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if ch.OpsRemoved != 2 {
				t.Errorf("OpsRemoved = %d, want 2", ch.OpsRemoved)
			}
			if len(ch.Constants) != 2 {
				t.Fatalf("constants = %+v", ch.Constants)
			}
			rc := ch.Constants[1]
			if rc.Resource != "w0" || rc.Overflow != 1 || rc.Underflow != 1 || rc.Elements != 4 {
				t.Errorf("resource change = %+v", rc)
			}
			r := m.Resource("w0_f16")
			if r == nil || m.Resource("w0") != nil {
				t.Fatalf("resources: %v", m.Resources)
			}
			b, err := r.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			want := []uint16{0x3c00, 0x4000, 0x0000, 0xfbff} // 1, 2, flushed, clamped
			for i, w := range want {
				if got := binary.LittleEndian.Uint16(b[2*i:]); got != w {
					t.Errorf("elem %d = %#04x, want %#04x", i, got, w)
				}
			}
		},
	},
	{
		name:    "overflow is an error without clamp",
		text:    strings.Replace(stripBasic, "BLOB", f32hex(1, 2, 3, 1e6), 1),
		wantErr: "exceed the f16 range",
	},
	{
		name: "unknown op leaves its island in f32 with a note naming it",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = "coreai.frobnicate"(%0) : (tensor<4xf32>) -> tensor<4xf32> loc("frob_3"("m.py":7:0))
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}`,
		f32Left:  2,
		want:     []string{`coreai.frobnicate %0 : tensor<4xf32> -> tensor<4xf32>`},
		wantNote: "it holds coreai.frobnicate (frob_3 at m.py:7), which strip-fp32-casts cannot retype: the op table (graph/coreaiop) has no row for coreai.frobnicate",
	},
	{
		name: "unknown op in an island selected by pattern stops the pass naming it",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = "coreai.frobnicate"(%0) : (tensor<4xf32>) -> tensor<4xf32> loc("frob_3"("m.py":7:0))
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}`,
		set:     []string{"strip-fp32-casts.islands=frob_*"},
		wantErr: "coreai.frobnicate (frob_3 at m.py:7) in an fp32 island that islands= selects by pattern cannot be retyped to f16",
	},
	{
		name: "island selection by op id",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy_1"("a.py":1:0))
    %1 = coreai.exp %0 : tensor<4xf32> -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    %3 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy_9"("b.py":2:0))
    %4 = coreai.exp %3 : tensor<4xf32> -> tensor<4xf32>
    %5 = coreai.cast %4 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2, %5 : tensor<4xf16>, tensor<4xf16>
  }
}`,
		set:     []string{"strip-fp32-casts.islands=_to_copy_9"},
		f32Left: 2,
		want:    []string{"coreai.exp %arg0 : tensor<4xf16>", "_to_copy_1"},
		notWant: []string{"_to_copy_9"},
	},
	{
		name: "island exclusion by op id",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy_1"("a.py":1:0))
    %1 = coreai.exp %0 : tensor<4xf32> -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    %3 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy_9"("b.py":2:0))
    %4 = coreai.exp %3 : tensor<4xf32> -> tensor<4xf32>
    %5 = coreai.cast %4 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2, %5 : tensor<4xf16>, tensor<4xf16>
  }
}`,
		set:     []string{"strip-fp32-casts.exclude=*b.py:*"},
		f32Left: 2,
		want:    []string{"_to_copy_9"},
		notWant: []string{"_to_copy_1"},
	},
	{
		name: "keep-norms leaves a normalization island in f32",
		text: `module {
  coreai.graph @main(%x: tensor<1x4xf16>) -> (tensor<1x4xf16>, tensor<1x4xf16>) {
    %ax = coreai.constant dense<1> : tensor<1xsi32>
    %eps = coreai.constant dense<1.0e-06> : tensor<f32>
    %0 = coreai.cast %x : tensor<1x4xf16> to tensor<1x4xf32> loc("_to_copy_1"("norm.py":1:0))
    %1 = coreai.decomposable.broadcasting_mul %0, %0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = coreai.reduce_mean %1, %ax : (tensor<1x4xf32>, tensor<1xsi32>) -> tensor<1x1xf32>
    %3 = coreai.decomposable.broadcasting_add %2, %eps : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x1xf32>
    %4 = coreai.rsqrt %3 : tensor<1x1xf32> -> tensor<1x1xf32>
    %5 = coreai.decomposable.broadcasting_mul %0, %4 : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
    %6 = coreai.cast %5 : tensor<1x4xf32> to tensor<1x4xf16>
    %7 = coreai.cast %x : tensor<1x4xf16> to tensor<1x4xf32> loc("_to_copy_2"("rope.py":1:0))
    %8 = coreai.exp %7 : tensor<1x4xf32> -> tensor<1x4xf32>
    %9 = coreai.cast %8 : tensor<1x4xf32> to tensor<1x4xf16>
    coreai.output %6, %9 : tensor<1x4xf16>, tensor<1x4xf16>
  }
}`,
		set:     []string{"strip-fp32-casts.keep-norms=true"},
		f32Left: 7,
		want:    []string{"_to_copy_1", "coreai.exp %arg0 : tensor<1x4xf16>"},
		notWant: []string{"_to_copy_2"},
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if len(ch.Notes) < 2 || !strings.Contains(strings.Join(ch.Notes, "\n"), "_to_copy_1 at norm.py:1) left in f32: it computes a normalization") {
				t.Errorf("notes = %q", ch.Notes)
			}
		},
	},
	{
		name: "island selection by source glob",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy_1"("models/a.py":1:0))
    %1 = coreai.cast %0 : tensor<4xf32> to tensor<4xf16>
    %2 = coreai.sigmoid %1 : tensor<4xf16> -> tensor<4xf16> loc("sigmoid_1"("models/b.py":2:0))
    coreai.output %2 : tensor<4xf16>
  }
}`,
		set:     []string{"strip-fp32-casts.islands=*/b.py:*"},
		f32Left: 1,
	},
	{
		name: "f32 graph I/O converted by default",
		text: `module {
  coreai.graph @main(%x: tensor<4xf32> {coreai.name = "x"}, %h: tensor<4xf16> {coreai.name = "h"}) -> (tensor<4xf32> {coreai.name = "y"}) {
    %0 = coreai.cast %h : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.decomposable.broadcasting_add %0, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    coreai.output %1 : tensor<4xf32>
  }
}`,
		want: []string{"tensor<4xf16> {coreai.name = \"x\"}", "-> (tensor<4xf16> {coreai.name = \"y\"})"},
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if len(ch.IOChanges) != 2 || ch.IOChanges[0].Port != "x" || !ch.IOChanges[1].IsOutput || ch.IOChanges[1].Before != "tensor<4xf32>" {
				t.Errorf("IOChanges = %+v", ch.IOChanges)
			}
		},
	},
	{
		name: "f32 graph I/O kept with io=false",
		text: `module {
  coreai.graph @main(%x: tensor<4xf32> {coreai.name = "x"}, %h: tensor<4xf16> {coreai.name = "h"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.cast %h : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.decomposable.broadcasting_add %0, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}`,
		set:     []string{"strip-fp32-casts.io=false"},
		f32Left: 3,
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if len(ch.Notes) != 1 || !strings.Contains(ch.Notes[0], "@main input x") {
				t.Errorf("notes = %q", ch.Notes)
			}
		},
	},
	{
		name: "invoke callee retyped consistently",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %c = coreai.constant dense<1.0e-06> : tensor<f32>
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.invoke @norm(%0, %c) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
  coreai.graph private @norm(%a: tensor<4xf32>, %e: tensor<f32>) -> tensor<4xf32> {
    %0 = coreai.decomposable.broadcasting_add %a, %e : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = coreai.rsqrt %0 : tensor<4xf32> -> tensor<4xf32>
    coreai.output %1 : tensor<4xf32>
  }
}`,
		want: []string{"private @norm(%arg0: tensor<4xf16>", "broadcasting_add %arg0, %arg1 : (tensor<4xf16>, tensor<f16>) -> tensor<4xf16>",
			"dense<1.013280e-06> : tensor<f16>" /* 17·2^-24, the f16 nearest 1e-6, as MLIR spells it */},
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if len(ch.IOChanges) != 0 {
				t.Errorf("a callee's signature is not model I/O: %+v", ch.IOChanges)
			}
		},
	},
	{
		name: "call to a declaration leaves its island in f32",
		text: `module {
  func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
  func.func @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = func.call @ext(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    return %2 : tensor<4xf16>
  }
}`,
		f32Left:  2,
		wantNote: "it holds func.call (at t.mlir:5), which strip-fp32-casts cannot retype: it calls a graph whose body is not in this module",
	},
	{
		name: "call to a declaration selected by pattern stops the pass",
		text: `module {
  func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
  func.func @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = func.call @ext(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    return %2 : tensor<4xf16>
  }
}`,
		set:     []string{"strip-fp32-casts.islands=t.mlir:5"},
		wantErr: "func.call (at t.mlir:5) in an fp32 island that islands= selects by pattern cannot be retyped to f16: it calls a graph whose body is not in this module",
	},
	{
		name: "casts to other types stay, retyped",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>, %i: tensor<4xsi32>) -> (tensor<4xf16>, tensor<4xsi32>) {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.cast %i : tensor<4xsi32> to tensor<4xf32>
    %2 = coreai.decomposable.broadcasting_add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %3 = coreai.cast %2 : tensor<4xf32> to tensor<4xsi32>
    %4 = coreai.cast %2 : tensor<4xf32> to tensor<4xf16>
    coreai.output %4, %3 : tensor<4xf16>, tensor<4xsi32>
  }
}`,
		want: []string{"coreai.cast %arg1 : tensor<4xsi32> to tensor<4xf16>", "coreai.cast %1 : tensor<4xf16> to tensor<4xsi32>"},
	},
	{
		name: "resource still used elsewhere is kept",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf32>) {
    %w = coreai.constant dense_resource<w0> : tensor<4xf32>
    %v = coreai.constant dense_resource<w0> : tensor<4xf32>
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.decomposable.broadcasting_mul %0, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2, %v : tensor<4xf16>, tensor<4xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w0: "` + f32hex(1, 2, 3, 4) + `"
    }
  }
#-}`,
		set:     []string{"strip-fp32-casts.io=false"},
		f32Left: 1,
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if m.Resource("w0") == nil || m.Resource("w0_f16") == nil {
				t.Errorf("want both w0 and w0_f16, have %d resources", len(m.Resources))
			}
		},
	},
	{
		name: "state pair retyped together",
		text: `module {
  coreai.graph @main(%s: tensor<4xf32> {MutableBuffers.buffer_mutation = "s_out", coreai.name = "s"}, %x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf32> {coreai.name = "s_out"}) {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.decomposable.broadcasting_add %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    coreai.output %1 : tensor<4xf32>
  }
}`,
		want: []string{"%arg0: tensor<4xf16> {MutableBuffers.buffer_mutation", "-> (tensor<4xf16> {coreai.name = \"s_out\"})"},
	},
	{
		// coreai-torch's make_stateful form (testdata/states/handle-f32.mlir): the f32
		// handle, its read and its write are retyped together; the
		// tokens stay.
		name: "handle state retyped with its reads and writes",
		text: `module {
  coreai.graph @main(%h: !coreai.handle<tensor<4xf32>> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}, %x: tensor<4xf16> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "s"}, tensor<4xf16> {coreai.name = "y"}) {
    %t0 = "coreai.create_token"() : () -> !coreai.token
    %v, %t1 = "coreai.read_handle"(%h, %t0) : (!coreai.handle<tensor<4xf32>>, !coreai.token) -> (tensor<4xf32>, !coreai.token) loc("read_1"("m.py":3:0))
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy_1"("m.py":4:0))
    %1 = coreai.decomposable.broadcasting_add %v, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t2 = "coreai.write_handle"(%h, %1, %t1) : (!coreai.handle<tensor<4xf32>>, tensor<4xf32>, !coreai.token) -> !coreai.token
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16> loc("_to_copy_2"("m.py":5:0))
    coreai.output %t2, %2 : !coreai.token, tensor<4xf16>
  }
}`,
		want: []string{
			`%arg0: !coreai.handle<tensor<4xf16>> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}`,
			"coreai.read_handle %arg0, %0 : (<tensor<4xf16>>, !coreai.token) -> (tensor<4xf16>, !coreai.token)",
			"coreai.write_handle %arg0, %3, %2 : (<tensor<4xf16>>, tensor<4xf16>, !coreai.token) -> !coreai.token",
			"-> (!coreai.token {coreai.name = \"s\"}, tensor<4xf16> {coreai.name = \"y\"})",
		},
		notWant: []string{"f32", "coreai.cast"},
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if len(ch.IOChanges) != 1 || ch.IOChanges[0].Port != "s" || ch.IOChanges[0].After != "!coreai.handle<tensor<4xf16>>" {
				t.Errorf("I/O changes = %+v, want the handle state s retyped", ch.IOChanges)
			}
			if ch.OpsRemoved != 2 {
				t.Errorf("OpsRemoved = %d, want the 2 casts", ch.OpsRemoved)
			}
		},
	},
	{
		// With io=false an island holding a handle state reaches graph
		// I/O and stays f32, with a note.
		name: "handle state kept with io=false",
		text: `module {
  coreai.graph @main(%h: !coreai.handle<tensor<4xf32>> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}, %x: tensor<4xf16> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "s"}) {
    %t0 = "coreai.create_token"() : () -> !coreai.token
    %v, %t1 = "coreai.read_handle"(%h, %t0) : (!coreai.handle<tensor<4xf32>>, !coreai.token) -> (tensor<4xf32>, !coreai.token)
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.decomposable.broadcasting_add %v, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t2 = "coreai.write_handle"(%h, %1, %t1) : (!coreai.handle<tensor<4xf32>>, tensor<4xf32>, !coreai.token) -> !coreai.token
    coreai.output %t2 : !coreai.token
  }
}`,
		set:     []string{"strip-fp32-casts.io=false"},
		want:    []string{"!coreai.handle<tensor<4xf32>>", "coreai.cast"},
		f32Left: 4, // the read, the cast, the add and the handle (census by element type)
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if len(ch.Notes) != 1 || !strings.Contains(ch.Notes[0], "@main input s") {
				t.Errorf("notes = %q", ch.Notes)
			}
		},
	},
	{
		// A private composite's interior is retyped for every caller;
		// the summary says which composite.
		name: "composite interior named in the summary",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.invoke @gdu(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
  coreai.graph private @gdu(%a: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.cast %a : tensor<4xf16> to tensor<4xf32> loc("_to_copy"("gdu.py":41:0))
    %1 = coreai.exp %0 : tensor<4xf32> -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}`,
		notWant: []string{"f32"},
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			if len(ch.Notes) != 2 || ch.Notes[0] != "1 fp32 island(s) retyped to f16, 1 of them reaching into composite graph(s) @gdu" ||
				!strings.Contains(ch.Notes[1], "reaching into composite @gdu (every call of it computes in f16 now)") {
				t.Errorf("notes = %q", ch.Notes)
			}
		},
	},
	{
		// Ops without locations have no op id: the summary names the
		// op and source and no empty list of ids.
		name: "summary without op ids",
		text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.exp %0 : tensor<4xf32> -> tensor<4xf32>
    %2 = coreai.cast %1 : tensor<4xf32> to tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}`,
		check: func(t *testing.T, m *graph.Module, ch *Change) {
			for _, n := range ch.Notes {
				if strings.Contains(n, "first ops") || strings.HasSuffix(strings.TrimSpace(n), ";") {
					t.Errorf("note %q lists op ids there are none of", n)
				}
			}
			if len(ch.Notes) != 2 || !strings.HasSuffix(ch.Notes[1], "2 f16↔f32 cast(s) each") {
				t.Errorf("notes = %q", ch.Notes)
			}
		},
	},
}

func TestStripFP32Casts(t *testing.T) {
	cases := stripFP32CastsCases
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := ptParse(t, tc.text)
			// These cases test how an island is retyped; which islands
			// are chosen is TestStripIslandSelectors' job, so a case
			// that does not choose takes every island.
			set := tc.set
			if !strings.Contains(strings.Join(set, " "), "strip-fp32-casts.islands=") {
				set = append([]string{"strip-fp32-casts.islands=all"}, set...)
			}
			res, err := ptRun(t, m, Spec{Passes: []string{"strip-fp32-casts"}, Set: set})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "strip-fp32-casts") {
					t.Fatalf("err = %v, want one naming the pass and %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := ptPrint(t, m)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
			if got := res.CensusAfter["f32"]; got != tc.f32Left {
				t.Errorf("f32 values left = %d, want %d:\n%s", got, tc.f32Left, out)
			}
			if tc.check != nil {
				tc.check(t, m, res.Steps[0].Change)
			}
			if tc.wantNote != "" && !slices.ContainsFunc(res.Steps[0].Change.Notes, func(n string) bool { return strings.Contains(n, tc.wantNote) }) {
				t.Errorf("no note has %q: %q", tc.wantNote, res.Steps[0].Change.Notes)
			}
			// Idempotent: a second run finds nothing more to do.
			if tc.f32Left == 0 {
				res2, err := ptRun(t, m, Spec{Passes: []string{"strip-fp32-casts"}, Set: tc.set})
				if err != nil {
					t.Fatal(err)
				}
				if c := res2.Steps[0].Change; c.OpsRemoved+c.OpsRetyped+len(c.Constants) != 0 {
					t.Errorf("second run changed %+v", c)
				}
			}
		})
	}
}

// TestHalfBlobReadAt checks the streaming conversion at every offset and
// length against a whole-buffer conversion.
func TestHalfBlobReadAt(t *testing.T) {
	vals := []float32{1, -2, 3.14159, 65504, 70000, -1e-10, 0.1, 7}
	src := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(v))
	}
	for _, clamp := range []bool{false, true} {
		want := make([]byte, len(src)/2)
		if _, err := f16.F32ToF16LE(want, src); err != nil {
			t.Fatal(err)
		}
		if clamp {
			clampHalves(want, src)
		}
		hb := &halfBlob{src: graph.MemBlob(src), clamp: clamp}
		if hb.Size() != int64(len(want)) {
			t.Fatalf("size %d", hb.Size())
		}
		for off := 0; off < len(want); off++ {
			for n := 1; off+n <= len(want)+2; n++ {
				p := make([]byte, n)
				k, err := hb.ReadAt(p, int64(off))
				exp := min(n, len(want)-off)
				if k != exp || !bytes.Equal(p[:k], want[off:off+k]) {
					t.Fatalf("clamp=%v ReadAt(off %d, n %d) = %d %x, want %x", clamp, off, n, k, p[:k], want[off:off+exp])
				}
				if (k < n) != (err == io.EOF) {
					t.Fatalf("ReadAt(off %d, n %d) err = %v", off, n, err)
				}
			}
		}
	}
	if binary.LittleEndian.Uint16(mustRead(t, &halfBlob{src: graph.MemBlob(src), clamp: true})[8:]) != 0x7bff {
		t.Error("clamp did not saturate 70000 to 65504")
	}
}

func mustRead(t *testing.T, b graph.BlobSource) []byte {
	p := make([]byte, b.Size())
	if _, err := b.ReadAt(p, 0); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return p
}

// BenchmarkHalfBlob measures converting an f32 weight blob to f16 the way a
// writer pulls it: 1 MiB reads of the converting view.
func BenchmarkHalfBlob(b *testing.B) {
	src := make([]byte, 64<<20)
	for i := 0; i < len(src); i += 4 {
		binary.LittleEndian.PutUint32(src[i:], math.Float32bits(float32(i%1000)*0.37))
	}
	hb := &halfBlob{src: graph.MemBlob(src)}
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		for off := int64(0); off < hb.Size(); off += int64(len(buf)) {
			if _, err := hb.ReadAt(buf, off); err != nil && err != io.EOF {
				b.Fatal(err)
			}
		}
	}
}

// TestStripOpaqueSignature: a graph whose properties the codec kept in an
// opaque encoding cannot have its signature edited; the pass says so
// instead of writing the new types somewhere the file would not read them.
func TestStripOpaqueSignature(t *testing.T) {
	parse := func() *graph.Module {
		m := ptParse(t, `module {
  coreai.graph @main(%x: tensor<4xf32>) -> tensor<4xf16> {
    %0 = coreai.exp %x : tensor<4xf32> -> tensor<4xf32> loc("exp_1"("m.py":3:0))
    %1 = coreai.cast %0 : tensor<4xf32> to tensor<4xf16>
    coreai.output %1 : tensor<4xf16>
  }
}`)
		g := m.Graphs()[0]
		// Move the inherent attributes out of the properties dictionary, as a
		// reader that keeps properties opaque would leave them readable.
		for _, e := range sfDict(g.Op.Props).Entries {
			g.Op.SetAttr(e.Name, e.Value)
		}
		g.Op.Props = &graph.RawAttr{Text: "<opaque properties>"}
		return m
	}
	// Picked by islands=all: the island stays in f32, with a note.
	m := parse()
	res, err := ptRun(t, m, Spec{Passes: []string{"strip-fp32-casts"}, Set: []string{"strip-fp32-casts.islands=all"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(res.Steps[0].Change.Notes, "\n"); !strings.Contains(n, "@main's signature would change, but its properties are in an encoding anefix carries opaquely") {
		t.Errorf("notes = %s", n)
	}
	if !strings.Contains(ptPrint(t, m), "tensor<4xf32>") {
		t.Error("the island was retyped")
	}
	// Asked for by pattern: the pass stops, the module untouched.
	m = parse()
	_, err = ptRun(t, m, Spec{Passes: []string{"strip-fp32-casts"}, Set: []string{"strip-fp32-casts.islands=exp_1"}})
	if err == nil || !strings.Contains(err.Error(), "@main's signature would change") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(ptPrint(t, m), "tensor<4xf32>") {
		t.Error("the module was changed before the error")
	}
}

// An islands/exclude pattern that matches no op of the module can only be
// a typo (issue 20: islands=alll was accepted and retyped nothing): a usage
// error naming the keywords. One that matches ops but no island is
// reported in the change's notes.
func TestStripPatternMatchesNothing(t *testing.T) {
	src, err := os.ReadFile("../testdata/passes/strip-fp32-casts.mlir")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		set      []string
		wantNote string // "" = no pattern note
		wantErr  string // a usage error
	}{
		{[]string{"strip-fp32-casts.islands=alll"}, "", `"alll" is not a keyword and, as a pattern, matches no op id or source of any op in the module`},
		{[]string{"strip-fp32-casts.islands=blockers,qwen3_5.py:19"}, "", `"qwen3_5.py:19" is not a keyword`},
		{[]string{"strip-fp32-casts.exclude=nosuch*"}, "", `exclude pattern "nosuch*" matches no op id or source of any op in the module`},
		{[]string{"strip-fp32-casts.islands=*qwen3_5_ios.py:290*"}, `islands pattern "*qwen3_5_ios.py:290*" matches no fp32 island`, ""},
		{[]string{"strip-fp32-casts.exclude=output"}, `exclude pattern "output" matches no fp32 island`, ""},
		{[]string{"strip-fp32-casts.islands=qwen3_5.py:199"}, "", ""},
		{[]string{"strip-fp32-casts.islands=*"}, "", ""},
		{nil, "", ""},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.set, " "), func(t *testing.T) {
			m := ptParse(t, string(src))
			res, err := ptRun(t, m, Spec{Passes: []string{"strip-fp32-casts"}, Set: c.set})
			if c.wantErr != "" {
				if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want a usage error with %q", err, c.wantErr)
				}
				if strings.HasPrefix(c.set[0], "strip-fp32-casts.islands") && !strings.Contains(err.Error(), "(valid: blockers, norms, all)") {
					t.Errorf("the error does not name the keywords: %v", err)
				}
				if !strings.Contains(ptPrint(t, m), "tensor<1x4xf32>") {
					t.Error("the module was changed before the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(res.Steps[0].Change.Notes, "\n")
			if c.wantNote == "" && strings.Contains(notes, "matches no fp32 island") || !strings.Contains(notes, c.wantNote) {
				t.Errorf("notes:\n%s\nwant %q", notes, c.wantNote)
			}
		})
	}
}
