package passes

import (
	"strings"
	"testing"
)

// promote-states writes a new state in the form the graph's states have
// (form=auto) or the one asked for.
func TestPromoteStatesForm(t *testing.T) {
	const plain = `module {
  coreai.graph @main(%c: tensor<4xf16> {coreai.name = "conv_state"}, %x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<4xf16> {coreai.name = "new_conv_state"}, tensor<4xf16> {coreai.name = "y"}) {
    %0 = coreai.decomposable.broadcasting_add %c, %x : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0, %0 : tensor<4xf16>, tensor<4xf16>
  }
}`
	// A graph whose KV cache is already a handle state (Apple's iOS form).
	const withHandle = `module {
  coreai.graph @main(%k: !coreai.handle<tensor<4xf16>> {MutableBuffers.buffer_mutation = "key_cache", coreai.name = "key_cache"}, %c: tensor<4xf16> {coreai.name = "conv_state"}) -> (!coreai.token {coreai.name = "key_cache"}, tensor<4xf16> {coreai.name = "new_conv_state"}, tensor<4xf16> {coreai.name = "y"}) {
    %t0 = "coreai.create_token"() : () -> !coreai.token
    %v, %t1 = "coreai.read_handle"(%k, %t0) : (!coreai.handle<tensor<4xf16>>, !coreai.token) -> (tensor<4xf16>, !coreai.token)
    %0 = coreai.decomposable.broadcasting_add %v, %c : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %t2 = "coreai.write_handle"(%k, %0, %t1) : (!coreai.handle<tensor<4xf16>>, tensor<4xf16>, !coreai.token) -> !coreai.token
    coreai.output %t2, %0, %v : !coreai.token, tensor<4xf16>, tensor<4xf16>
  }
}`
	cases := []struct {
		name, text string
		set        []string
		want       []string
		notWant    []string
	}{
		{"auto without states: attribute", plain, nil,
			[]string{`%arg0: tensor<4xf16> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}`, `-> (tensor<4xf16> {coreai.name = "conv_state"}, tensor<4xf16> {coreai.name = "y"})`},
			[]string{"handle", "token"}},
		{"handle on a graph without tokens starts a chain", plain, []string{"promote-states.form=handle"},
			[]string{
				`%arg0: !coreai.handle<tensor<4xf16>> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}`,
				"%0 = coreai.create_token : !coreai.token",
				"%1, %2 = coreai.read_handle %arg0, %0 : (<tensor<4xf16>>, !coreai.token) -> (tensor<4xf16>, !coreai.token)",
				"%3 = coreai.decomposable.broadcasting_add %1, %arg1",
				"%4 = coreai.write_handle %arg0, %3, %2 : (<tensor<4xf16>>, tensor<4xf16>, !coreai.token) -> !coreai.token",
				"coreai.output %4, %3 : !coreai.token, tensor<4xf16>",
				`-> (!coreai.token {coreai.name = "conv_state"}, tensor<4xf16> {coreai.name = "y"})`,
			}, nil},
		{"auto on a graph with a handle state joins its chain", withHandle, nil,
			[]string{
				`%arg1: !coreai.handle<tensor<4xf16>> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}`,
				"%0 = coreai.create_token",
				"%1, %2 = coreai.read_handle %arg1, %0 :",  // the new read takes the chain's first token
				"%3, %4 = coreai.read_handle %arg0, %2 :",  // the old first read now follows it
				"%6 = coreai.write_handle %arg0, %5, %4",   // unchanged
				"%7 = coreai.write_handle %arg1, %5, %6 :", // after the chain's last token
				"coreai.output %6, %7, %3 : !coreai.token, !coreai.token, tensor<4xf16>",
			}, nil},
		{"attribute on a graph with a handle state", withHandle, []string{"promote-states.form=attribute"},
			[]string{`%arg1: tensor<4xf16> {MutableBuffers.buffer_mutation = "conv_state", coreai.name = "conv_state"}`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ptParse(t, c.text)
			res, err := ptRun(t, m, Spec{Passes: []string{"promote-states"}, Set: c.set})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Steps[0].Change.States); n != 1 {
				t.Errorf("%d states promoted, want 1", n)
			}
			out := ptPrint(t, m)
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
			if n := strings.Count(out, "coreai.create_token"); n > 1 {
				t.Errorf("%d token chains, want at most one:\n%s", n, out)
			}
			// Idempotent: the promoted state is skipped the second time.
			res, err = ptRun(t, m, Spec{Passes: []string{"promote-states"}, Set: c.set})
			if err != nil || len(res.Steps[0].Change.States) != 0 {
				t.Errorf("second run: %v, %+v", err, res)
			}
		})
	}
	m := ptParse(t, plain)
	p, err := Build(Spec{Passes: []string{"promote-states"}, Set: []string{"promote-states.form=tensor"}})
	if err == nil {
		_, err = p.Run(m, RunOptions{})
	}
	if err == nil || !strings.Contains(err.Error(), `"tensor" is not auto, attribute or handle`) {
		t.Errorf("form=tensor: err = %v", err)
	}
}
