package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model with palettized and si8 weights is predicted legal and runs under
// verify; the same model with linear si4 weights is the linear-INT4 case.
func TestCompressedWeights(t *testing.T) {
	const in = "../../testdata/rules/compressed.mlir"
	src, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	int4 := filepath.Join(t.TempDir(), "int4.mlir")
	if err := os.WriteFile(int4, []byte(strings.ReplaceAll(string(src), "si8>", "si4>")), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want []string
		not  []string
	}{
		{[]string{"check", in}, 0, []string{"Prediction: LEGAL"}, []string{"linear-int4", "element-type"}},
		{[]string{"verify", in, in, "--steps", "3"}, 0, []string{"top-1 agreement: 3/3", "bit-identical"}, nil},
		{[]string{"check", int4}, 3, []string{"linear-int4", "linear si4 weights tensor<4x8xsi4>"}, []string{"element-type"}},
		{[]string{"verify", in, int4, "--steps", "3"}, -1, []string{"top-1 agreement"}, nil},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, "", c.args...)
		if c.code >= 0 && code != c.code {
			t.Fatalf("%s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), code, c.code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out+errs, w) {
				t.Errorf("%s: output lacks %q:\n%s%s", c.args[0], w, out, errs)
			}
		}
		for _, w := range c.not {
			if strings.Contains(out+errs, w) {
				t.Errorf("%s: output has %q:\n%s%s", c.args[0], w, out, errs)
			}
		}
	}
}
