package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A missing required flag is named as required, with what it takes, before
// anything else is checked (exit 2): synth without --arm once said
// `unknown arm ""`.
func TestRequiredFlagsNamed(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "mlir", "pretty", "printed_small.mlir")
	out := filepath.Join(t.TempDir(), "out.mlir")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"synth", "-o", out}, "anefix synth: --arm is required (A, B, C, D or E)\n"},
		{[]string{"synth"}, "anefix synth: --arm is required (A, B, C, D or E)\n"},
		{[]string{"synth", "--arm", "A"}, "anefix synth: -o OUT is required (an .aimodel directory, .mlirb, .mlir, or - for stdout)\n"},
		{[]string{"convert", in}, "anefix convert: -o OUT is required ("},
		{[]string{"reduce", in, "--test", "true"}, "anefix reduce: -o OUT is required ("},
		{[]string{"reduce", in, "-o", out}, "anefix reduce: --test CMD is required ("},
		{[]string{"bisect", in}, "anefix bisect: --test CMD is required ("},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
}
