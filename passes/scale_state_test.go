package passes_test

import (
	"os"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/record"
)

// A graph with a recurrent state rec_state (attribute form, or a plain
// pair when attr is false) and a KV cache, both f16.
func ssModule(attr bool) string {
	mark := ""
	if attr {
		mark = `MutableBuffers.buffer_mutation = "rec_state", `
	}
	out := "new_rec_state"
	if attr {
		out = "rec_state"
	}
	return `module {
  coreai.graph @main(%s: tensor<1x4xf16> {` + mark + `coreai.name = "rec_state"}, %kc: tensor<1x4xf16> {MutableBuffers.buffer_mutation = "key_cache", coreai.name = "key_cache"}, %x: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "logits"}, tensor<1x4xf16> {coreai.name = "` + out + `"}, tensor<1x4xf16> {coreai.name = "key_cache"}) {
    %0 = coreai.decomposable.broadcasting_add %s, %x : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
    %1 = coreai.decomposable.broadcasting_add %kc, %x : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
    coreai.output %0, %0, %1 : tensor<1x4xf16>, tensor<1x4xf16>, tensor<1x4xf16>
  }
}`
}

func TestScaleState(t *testing.T) {
	handle, err := os.ReadFile("../testdata/states/handle-f32.mlir")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		text    string
		set     []string
		scales  []record.StateScale
		want    []string
		errWant string
	}{
		{name: "attribute form, default exponent", text: ssModule(true),
			scales: []record.StateScale{{Graph: "main", State: "rec_state", Log2: 1, Form: "attribute"}},
			want:   []string{"dense<2.000000e+00> : tensor<f16>", "dense<5.000000e-01> : tensor<f16>"}},
		{name: "plain pair", text: ssModule(false),
			scales: []record.StateScale{{Graph: "main", State: "rec_state", Log2: 1, Form: "pair"}}},
		{name: "named exponent, kv cache by name", text: ssModule(true), set: []string{"scale-state.exponents=rec_state=4,key_cache=-2"},
			scales: []record.StateScale{{Graph: "main", State: "rec_state", Log2: 4, Form: "attribute"}, {Graph: "main", State: "key_cache", Log2: -2, Form: "attribute"}},
			want:   []string{"dense<1.600000e+01> : tensor<f16>", "dense<6.250000e-02> : tensor<f16>", "dense<4.000000e+00> : tensor<f16>"}},
		{name: "default 0 leaves states alone", text: ssModule(true), set: []string{"scale-state.default=0"}},
		{name: "handle form by name", text: string(handle), set: []string{"scale-state.exponents=acc=3"},
			scales: []record.StateScale{{Graph: "main", State: "acc", Log2: 3, Form: "handle"}},
			want:   []string{"dense<8.000000e+00> : tensor<f32>", "dense<1.250000e-01> : tensor<f32>"}},
		{name: "unknown state", text: ssModule(true), set: []string{"scale-state.exponents=nope=1"}, errWant: `no entry graph has a state named "nope"`},
		{name: "bad pair", text: ssModule(true), set: []string{"scale-state.exponents=rec_state"}, errWant: "not name=exponent"},
		{name: "exponent out of range", text: ssModule(true), set: []string{"scale-state.default=40"}, errWant: `option default: "40" is not -15..15`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := npParse(t, tc.text)
			ch, err := npRun(t, m, "scale-state", tc.set...)
			if tc.errWant != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWant) {
					t.Fatalf("err = %v, want one containing %q", err, tc.errWant)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.StateScales) != len(tc.scales) {
				t.Fatalf("StateScales = %+v, want %+v", ch.StateScales, tc.scales)
			}
			for i := range tc.scales {
				if ch.StateScales[i] != tc.scales[i] {
					t.Errorf("StateScales[%d] = %+v, want %+v", i, ch.StateScales[i], tc.scales[i])
				}
			}
			if ch.OpsAdded != 4*len(tc.scales) {
				t.Errorf("OpsAdded = %d, want %d (a constant and a multiply on each side)", ch.OpsAdded, 4*len(tc.scales))
			}
			out := npPrint(t, m)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
