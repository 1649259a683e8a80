package passes_test

import (
	"strings"
	"testing"
)

func frModule(op, in, axes, out string) string {
	return `module {
  coreai.graph @main(%x: tensor<` + in + `> {coreai.name = "x"}) -> (tensor<` + out + `> {coreai.name = "y"}) {
    %a = coreai.constant dense<` + axes + `> : tensor<1xsi32>
    %0 = coreai.` + op + ` %x, %a : (tensor<` + in + `>, tensor<1xsi32>) -> tensor<` + out + `>
    coreai.output %0 : tensor<` + out + `>
  }
}`
}

func TestFP16SafeReductions(t *testing.T) {
	cases := []struct {
		name      string
		text      string
		set       []string
		removed   int
		want      []string
		notWant   []string
		transpose bool
	}{
		{name: "sum last axis", text: frModule("reduce_sum", "2x8xf16", "-1", "2x1xf16"), removed: 1,
			want: []string{"broadcasting_batch_matmul", "dense<1.000000e+00> : tensor<8x1xf16>"}},
		{name: "sum dim -2 moves the axis last", text: frModule("reduce_sum", "1x2x3x8xf16", "-2", "1x2x1x8xf16"), removed: 1, transpose: true,
			want: []string{"coreai.transpose", "tensor<16x3xf16>", "tensor<3x1xf16>"}},
		{name: "mean over a power of two folds 1/R", text: frModule("reduce_mean", "2x8xf16", "1", "2x1xf16"), removed: 1,
			want: []string{"dense<1.250000e-01> : tensor<8x1xf16>"}, notWant: []string{"broadcasting_divide"}},
		{name: "mean over 3 divides after", text: frModule("reduce_mean", "2x3xf16", "-1", "2x1xf16"), removed: 1,
			want: []string{"broadcasting_divide", "dense<3.000000e+00> : tensor<f16>"}},
		{name: "sum without kept dims", text: frModule("reduce_sum", "2x8xf16", "-1", "2xf16"), removed: 1,
			want: []string{"broadcasting_batch_matmul", "-> tensor<2xf16>"}},
		{name: "f32 untouched", text: frModule("reduce_sum", "2x8xf32", "-1", "2x1xf32"), removed: 0,
			want: []string{"coreai.reduce_sum"}, notWant: []string{"batch_matmul"}},
		{name: "max untouched", text: frModule("reduce_max", "2x8xf16", "-1", "2x1xf16"), removed: 0,
			want: []string{"coreai.reduce_max"}},
		{name: "min-elements", text: frModule("reduce_sum", "2x8xf16", "-1", "2x1xf16"), set: []string{"fp16-safe-reductions.min-elements=9"}, removed: 0,
			want: []string{"coreai.reduce_sum"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := npParse(t, tc.text)
			ch, err := npRun(t, m, "fp16-safe-reductions", tc.set...)
			if err != nil {
				t.Fatal(err)
			}
			out := npPrint(t, m)
			if ch.OpsRemoved != tc.removed {
				t.Errorf("OpsRemoved = %d, want %d", ch.OpsRemoved, tc.removed)
			}
			if got := strings.Contains(out, "coreai.transpose"); got != tc.transpose {
				t.Errorf("transpose present = %v, want %v", got, tc.transpose)
			}
			if tc.removed > 0 && strings.Contains(out, "coreai.reduce_") {
				t.Errorf("a reduction is left:\n%s", out)
			}
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
		})
	}
}

func TestFP16SafeReductionsBadAxis(t *testing.T) {
	m := npParse(t, frModule("reduce_sum", "2x8xf16", "5", "2x1xf16"))
	if _, err := npRun(t, m, "fp16-safe-reductions"); err == nil || !strings.Contains(err.Error(), "axis 5 is out of range") {
		t.Fatalf("err = %v, want the out-of-range axis named", err)
	}
}
