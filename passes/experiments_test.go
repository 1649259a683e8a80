package passes

import (
	"bytes"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bytecode"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/record"
)

// A tied table: %w feeds an embedding gather_nd (as its table) and, through
// a transpose, the head's matmul. %s is a small constant of the same op id.
const ecTied = `module {
  coreai.graph @main(%ids: tensor<1x1xsi32> {coreai.name = "input_ids"}) -> (tensor<1x8xf16> {coreai.name = "logits"}) {
    %w = "coreai.constant"() {value = dense<1.000000e+00> : tensor<8x4xf16>} : () -> tensor<8x4xf16> loc("embedding")
    %s = "coreai.constant"() {value = dense<2> : tensor<1xsi32>} : () -> tensor<1xsi32> loc("embedding")
    %e = "coreai.gather_nd"(%w, %ids) : (tensor<8x4xf16>, tensor<1x1xsi32>) -> tensor<1x4xf16>
    %p = "coreai.constant"() {value = dense<[1, 0]> : tensor<2xsi32>} : () -> tensor<2xsi32>
    %wt = "coreai.transpose"(%w, %p) : (tensor<8x4xf16>, tensor<2xsi32>) -> tensor<4x8xf16>
    %l = "coreai.broadcasting_batch_matmul"(%e, %wt) : (tensor<1x4xf16>, tensor<4x8xf16>) -> tensor<1x8xf16>
    coreai.output %l : tensor<1x8xf16>
  }
}`

func TestIsTiedHeadTable(t *testing.T) {
	m := ptParse(t, ecTied)
	var tied []string
	m.Walk(func(op *graph.Operation) bool {
		if IsTiedHeadTable(op) {
			tied = append(tied, op.Result(0).Type().String())
		}
		return true
	})
	if len(tied) != 1 || tied[0] != "tensor<8x4xf16>" {
		t.Errorf("tied tables: %v, want the 8x4 table only", tied)
	}
}

// ecBytecodeRoundTrip writes m as bytecode, reads it back and checks the
// text is unchanged and the module verifies.
func ecBytecodeRoundTrip(t *testing.T, m *graph.Module) {
	t.Helper()
	var buf bytes.Buffer
	if err := bytecode.Write(&buf, m, bytecode.WriteOptions{}); err != nil {
		t.Fatalf("bytecode write: %v", err)
	}
	back, _, err := bytecode.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "t.mlirb")
	if err != nil {
		t.Fatalf("bytecode read: %v", err)
	}
	if err := graph.Verify(back); err != nil {
		t.Fatalf("read back, does not verify: %v", err)
	}
	a, err1 := mlirtext.Format(m, mlirtext.FormGeneric)
	b, err2 := mlirtext.Format(back, mlirtext.FormGeneric)
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("bytecode round trip changed the module (%v, %v):\n%s\n---\n%s", err1, err2, a, b)
	}
}

func TestExternalizeConstant(t *testing.T) {
	cases := []struct {
		name    string
		set     []string
		wantIn  string // the new input's name; "" = an error
		wantErr string
	}{
		{"tied-head", []string{"externalize-constant.min-bytes=0"}, "const_embedding", ""},
		{"by op id (the small constant of the same id is under min-bytes)", []string{"externalize-constant.constant=embedding", "externalize-constant.min-bytes=16"}, "const_embedding", ""},
		{"named input", []string{"externalize-constant.name=embed_table", "externalize-constant.min-bytes=0"}, "embed_table", ""},
		{"name taken is made unique", []string{"externalize-constant.name=input_ids", "externalize-constant.min-bytes=0"}, "input_ids_1", ""},
		{"the default min-bytes (4096) skips a 64-byte table", nil, "", "smaller than min-bytes=4096"},
		{"too small", []string{"externalize-constant.min-bytes=65"}, "", "smaller than min-bytes=65"},
		{"no such constant", []string{"externalize-constant.constant=nosuch"}, "", "no constant of an entry graph matches constant=nosuch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ptParse(t, ecTied)
			before := ptPrint(t, m)
			res, err := ptRun(t, m, Spec{Passes: []string{"externalize-constant"}, Set: c.set})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "what to do") {
					t.Fatalf("err = %v, want %q and what to do", err, c.wantErr)
				}
				if ptPrint(t, m) != before {
					t.Error("a failed run changed the module")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ext := res.Steps[0].Change.ConstantInputs
			if len(ext) != 1 || ext[0].Input != c.wantIn || ext[0].Index != 1 || ext[0].Type != "tensor<8x4xf16>" || ext[0].Bytes != 64 || ext[0].OpID != "embedding" || ext[0].Resource != "" ||
				ext[0].DType != "f16" || len(ext[0].Shape) != 2 || ext[0].Shape[0] != 8 || ext[0].Shape[1] != 4 {
				t.Fatalf("externalized %+v, want input %s at 1", ext, c.wantIn)
			}
			g := m.Graph("main")
			ins := g.Inputs()
			if len(ins) != 2 || ins[1].Name != c.wantIn || ins[1].Type.String() != "tensor<8x4xf16>" {
				t.Fatalf("inputs %+v", ins)
			}
			// The gather and the transpose now read the input.
			for _, u := range g.Body().Arg(1).Uses() {
				if u.Op.Name != "coreai.gather_nd" && u.Op.Name != "coreai.transpose" {
					t.Errorf("new input used by %s", u.Op.Name)
				}
			}
			if n := len(g.Body().Arg(1).Uses()); n != 2 {
				t.Errorf("new input has %d uses, want 2", n)
			}
			// Same numbers when fed the constant's values (all ones).
			ref := ptParse(t, ecTied)
			ids := interp.NewInt(interp.SI32, []int{1, 1}, []int64{3})
			want, err := interp.New(ref, interp.Options{}).Run("main", []*interp.Tensor{ids})
			if err != nil {
				t.Fatal(err)
			}
			table := interp.FromF32(interp.F16, []int{8, 4}, []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
			got, err := interp.New(m, interp.Options{}).Run("main", []*interp.Tensor{ids, table})
			if err != nil {
				t.Fatal(err)
			}
			if w, g := want[0].Floats(), got[0].Floats(); len(w) != len(g) || w[0] != g[0] || w[0] != 4 {
				t.Errorf("logits %v, want %v", g, w)
			}
			ecBytecodeRoundTrip(t, m)
		})
	}
}

// A tied table in an invoked graph is refused by name (no argument is
// threaded through calls).
func TestExternalizeConstantInCallee(t *testing.T) {
	const text = `module {
  coreai.graph @main(%ids: tensor<1x1xsi32> {coreai.name = "input_ids"}) -> (tensor<1x8xf16> {coreai.name = "logits"}) {
    %l = "coreai.invoke"(%ids) {callee = @head} : (tensor<1x1xsi32>) -> tensor<1x8xf16>
    coreai.output %l : tensor<1x8xf16>
  }
  coreai.graph private @head(%ids: tensor<1x1xsi32>) -> (tensor<1x8xf16>) {
    %w = "coreai.constant"() {value = dense<1.000000e+00> : tensor<8x4xf16>} : () -> tensor<8x4xf16> loc("embedding")
    %e = "coreai.gather_nd"(%w, %ids) : (tensor<8x4xf16>, tensor<1x1xsi32>) -> tensor<1x4xf16>
    %p = "coreai.constant"() {value = dense<[1, 0]> : tensor<2xsi32>} : () -> tensor<2xsi32>
    %wt = "coreai.transpose"(%w, %p) : (tensor<8x4xf16>, tensor<2xsi32>) -> tensor<4x8xf16>
    %l = "coreai.broadcasting_batch_matmul"(%e, %wt) : (tensor<1x4xf16>, tensor<4x8xf16>) -> tensor<1x8xf16>
    coreai.output %l : tensor<1x8xf16>
  }
}`
	m := ptParse(t, text)
	_, err := ptRun(t, m, Spec{Passes: []string{"externalize-constant"}, Set: []string{"externalize-constant.min-bytes=0"}})
	if err == nil || !strings.Contains(err.Error(), "sits in @head, which is not an entry graph") {
		t.Fatalf("err = %v", err)
	}
}

// A handle state read, written, read again and written again: the
// second read must see the first write. Run before and after
// states-as-outputs, the outputs agree (the handle's output is its last
// write, as the interpreter returns it for the token).
const saoHandleText = `module {
  coreai.graph @main(%h: !coreai.handle<tensor<4xf16>> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}, %x: tensor<4xf16> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "conv_state"}, tensor<4xf16> {coreai.name = "y"}) {
    %t0 = "coreai.create_token"() : () -> !coreai.token
    %v1, %t1 = "coreai.read_handle"(%h, %t0) : (!coreai.handle<tensor<4xf16>>, !coreai.token) -> (tensor<4xf16>, !coreai.token)
    %a = coreai.decomposable.broadcasting_add %v1, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %t2 = "coreai.write_handle"(%h, %a, %t1) : (!coreai.handle<tensor<4xf16>>, tensor<4xf16>, !coreai.token) -> !coreai.token
    %v2, %t3 = "coreai.read_handle"(%h, %t2) : (!coreai.handle<tensor<4xf16>>, !coreai.token) -> (tensor<4xf16>, !coreai.token)
    %b = coreai.decomposable.broadcasting_mul %v2, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %t4 = "coreai.write_handle"(%h, %b, %t3) : (!coreai.handle<tensor<4xf16>>, tensor<4xf16>, !coreai.token) -> !coreai.token
    coreai.output %t4, %v2 : !coreai.token, tensor<4xf16>
  }
}`

func TestStatesAsOutputsHandle(t *testing.T) {
	m := ptParse(t, saoHandleText)
	ref := ptParse(t, saoHandleText)
	res, err := ptRun(t, m, Spec{Passes: []string{"states-as-outputs", "dce"}})
	if err != nil {
		t.Fatal(err)
	}
	ch := res.Steps[0].Change
	if len(ch.PlainStates) != 1 || ch.PlainStates[0] != (record.State{Graph: "main", Input: "conv_state", Output: "conv_state_out"}) || ch.OpsRemoved != 5 {
		t.Fatalf("change %+v", ch)
	}
	out := ptPrint(t, m)
	for _, w := range []string{`%arg0: tensor<4xf16> {coreai.name = "conv_state"}`, `-> (tensor<4xf16> {coreai.name = "conv_state_out"}, tensor<4xf16> {coreai.name = "y"})`} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	for _, w := range []string{"handle", "token", "buffer_mutation"} {
		if strings.Contains(out, w) {
			t.Errorf("output still has %q:\n%s", w, out)
		}
	}
	st := interp.FromF32(interp.F16, []int{4}, []float32{1, 2, 3, 4})
	x := interp.FromF32(interp.F16, []int{4}, []float32{0.5, -1, 2, 0.25})
	want, err := interp.New(ref, interp.Options{}).Run("main", []*interp.Tensor{st.Clone(), x})
	if err != nil {
		t.Fatal(err)
	}
	got, err := interp.New(m, interp.Options{}).Run("main", []*interp.Tensor{st.Clone(), x})
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		w, g := want[k].Floats(), got[k].Floats()
		for i := range w {
			if w[i] != g[i] {
				t.Errorf("output %d: %v, want %v", k, g, w)
				break
			}
		}
	}
	// (1+0.5)*0.5: the second read saw the first write.
	if g := got[0].Floats()[0]; g != 0.75 {
		t.Errorf("new state[0] = %v, want 0.75", g)
	}
	ecBytecodeRoundTrip(t, m)
	// A second run finds no state: nothing changes, no error.
	res, err = ptRun(t, m, Spec{Passes: []string{"states-as-outputs"}})
	if err != nil || len(res.Steps[0].Change.PlainStates) != 0 {
		t.Errorf("second run: %v %+v", err, res.Steps[0].Change)
	}
}

func TestStatesAsOutputsAttributeAndErrors(t *testing.T) {
	const attr = `module {
  coreai.graph @main(%c: tensor<4xf16> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}, %k: tensor<4xf16> {MutableBuffers.buffer_mutation = "key_cache", coreai.name = "key_cache"}, %x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "conv_state"}, tensor<4xf16> {coreai.name = "key_cache"}, tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.decomposable.broadcasting_add %c, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %1 = coreai.decomposable.broadcasting_add %k, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0, %1, %0 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>
  }
}`
	cases := []struct {
		name    string
		text    string
		set     []string
		plain   []string
		want    []string
		wantErr string
	}{
		{"conv state only by default", attr, nil, []string{"conv_state"},
			[]string{`%arg0: tensor<4xf16> {coreai.name = "conv_state"}`, `{MutableBuffers.buffer_mutation = "key_cache", coreai.name = "key_cache"}`, `tensor<4xf16> {coreai.name = "conv_state_out"}, tensor<4xf16> {coreai.name = "key_cache"}`}, ""},
		{"include-kv", attr, []string{"states.include-kv=true"}, []string{"conv_state", "key_cache"},
			[]string{`{coreai.name = "key_cache_out"}`}, ""},
		{"explicit names and suffix", attr, []string{"states-as-outputs.names=key_cache", "states-as-outputs.suffix=_next"}, []string{"key_cache"},
			[]string{`{coreai.name = "key_cache_next"}`, `{MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}`}, ""},
		{"unknown name", attr, []string{"states-as-outputs.names=nosuch"}, nil, nil, `no entry graph has a state input "nosuch"`},
		{"handle passed to a call", `module {
  coreai.graph @main(%h: !coreai.handle<tensor<4xf16>> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}) -> (!coreai.token {coreai.name = "conv_state"}) {
    %t = "coreai.invoke"(%h) {callee = @upd} : (!coreai.handle<tensor<4xf16>>) -> !coreai.token
    coreai.output %t : !coreai.token
  }
  coreai.graph private @upd(%h: !coreai.handle<tensor<4xf16>>) -> (!coreai.token) {
    %t0 = "coreai.create_token"() : () -> !coreai.token
    coreai.output %t0 : !coreai.token
  }
}`, nil, nil, nil, "not only by read_handle/write_handle"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ptParse(t, c.text)
			res, err := ptRun(t, m, Spec{Passes: []string{"states-as-outputs"}, Set: c.set})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range res.Steps[0].Change.PlainStates {
				got = append(got, s.Input)
			}
			if strings.Join(got, ",") != strings.Join(c.plain, ",") {
				t.Errorf("made plain %v, want %v", got, c.plain)
			}
			out := ptPrint(t, m)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			ecBytecodeRoundTrip(t, m)
		})
	}
}
