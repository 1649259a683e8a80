package passes_test

import (
	"os"
	"strings"
	"testing"
)

// A module whose constant %0 (element type elem, values vals) is added to
// the input and softmaxed.
func fmModule(elem, vals string, cast bool) string {
	mask := "%0"
	pre := ""
	if cast {
		pre = "    %c = coreai.cast %0 : (tensor<2x2x" + elem + ">) -> tensor<2x2xf16>\n"
		mask = "%c"
	}
	return `module {
  coreai.graph @main(%arg0: tensor<2x2xf16> {coreai.name = "scores"}) -> (tensor<2x2xf16> {coreai.name = "p"}) {
    %0 = coreai.constant ` + vals + ` : tensor<2x2x` + elem + `>
` + pre + `    %1 = coreai.decomposable.broadcasting_add %arg0, ` + mask + ` : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
    %2 = coreai.constant dense<-1> : tensor<si32>
    %3 = coreai.softmax %1, %2 : (tensor<2x2xf16>, tensor<si32>) -> tensor<2x2xf16>
    coreai.output %3 : tensor<2x2xf16>
  }
}`
}

func TestFiniteMasks(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		set     []string
		want    []string // substrings of the printed result
		notWant []string
		notes   int // notes that name a replacement
		errWant string
	}{
		{name: "f16 -inf inline", text: fmModule("f16", `dense<"0x000000FC00000000">`, false),
			want: []string{"-4.000000e+04"}, notWant: []string{"0xFC00", "0xFC"}, notes: 1},
		{name: "f32 -1e9 cast to f16", text: fmModule("f32", `dense<[[0.0, -1.0e9], [0.0, 0.0]]>`, true),
			want: []string{"-4.000000e+04"}, notWant: []string{"-1.000000e+09"}, notes: 1},
		{name: "option value", text: fmModule("f16", `dense<"0x000000FC00000000">`, false), set: []string{"finite-masks.value=-30000"},
			want: []string{"-3.000000e+04"}, notes: 1},
		{name: "+inf is not a mask", text: fmModule("f16", `dense<"0x0000007C00000000">`, false),
			want: []string{"0x7C00"}, notes: 0},
		{name: "safe mask untouched", text: fmModule("f16", `dense<[[0.0, -1.0e4], [0.0, 0.0]]>`, false),
			want: []string{"-1.000000e+04"}, notes: 0},
		{name: "-65504 itself is in range", text: fmModule("f32", `dense<[[0.0, -65504.0], [0.0, 0.0]]>`, true),
			want: []string{"-6.550400e+04"}, notes: 0},
		{name: "resource blob", text: fmModule("f16", `dense_resource<mask>`, false) + `
{-#
  dialect_resources: {
    builtin: {
      mask: "0x02000000000000FC00000000"
    }
  }
#-}`,
			want: []string{"dense_resource<mask_finite>"}, notWant: []string{"dense_resource<mask>"}, notes: 1},
		{name: "value not negative", text: fmModule("f16", `dense<"0x000000FC00000000">`, false), set: []string{"finite-masks.value=5"}, errWant: "negative"},
		{name: "value below fp16", text: fmModule("f16", `dense<"0x000000FC00000000">`, false), set: []string{"finite-masks.value=-1e6"}, errWant: "-65504"},
		{name: "value not representable", text: fmModule("f16", `dense<"0x000000FC00000000">`, false), set: []string{"finite-masks.value=-40001"}, errWant: "representable"},
		{name: "value not a number", text: fmModule("f16", `dense<"0x000000FC00000000">`, false), set: []string{"finite-masks.value=-inf"}, errWant: "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := npParse(t, tc.text)
			ch, err := npRun(t, m, "finite-masks", tc.set...)
			if tc.errWant != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWant) {
					t.Fatalf("err = %v, want one containing %q", err, tc.errWant)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := npPrint(t, m)
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
			n := 0
			for _, s := range ch.Notes {
				if strings.Contains(s, "below -65504 set to") {
					n++
				}
			}
			if n != tc.notes {
				t.Errorf("%d replacement notes, want %d: %v", n, tc.notes, ch.Notes)
			}
		})
	}
}

// The done-when module: after finite-masks, check no longer names the mask.
func TestFiniteMasksClearsHazard(t *testing.T) {
	b, err := os.ReadFile("../testdata/hazards/finite_mask_softmax.mlir")
	if err != nil {
		t.Fatal(err)
	}
	m := npParse(t, string(b))
	before := fpRangeHazards(t, m)
	if len(before) != 1 || !strings.Contains(before[0], "op_id 1") {
		t.Fatalf("check before finite-masks: %v, want one finding naming op_id 1", before)
	}
	if _, err := npRun(t, m, "finite-masks"); err != nil {
		t.Fatal(err)
	}
	if after := fpRangeHazards(t, m); len(after) != 0 {
		t.Errorf("check after finite-masks still reports %v", after)
	}
}
