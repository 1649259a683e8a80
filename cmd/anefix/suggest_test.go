package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every unknown name a user types gets the nearest valid one suggested
// (graph/nearest), and stays a usage error (exit 2).
func TestTypoSuggestions(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "mlir", "pretty", "printed_small.mlir")
	out := filepath.Join(t.TempDir(), "out.mlir")
	cases := []struct {
		what string
		args []string
		want string
	}{
		{"command", []string{"chekc", in}, `unknown command "chekc" (did you mean check?)`},
		{"help command", []string{"help", "rewirte"}, `(did you mean rewrite?)`},
		{"flag", []string{"check", "--jsn", in}, `unknown flag: --jsn (did you mean --json?)`},
		{"pass", []string{"rewrite", "--enable", "plaettize", "-o", out, in}, `unknown pass "plaettize" (did you mean palettize?)`},
		{"pass in --set", []string{"rewrite", "--enable", "palettize", "--set", "palettise.bits=4", "-o", out, in}, `(did you mean palettize?)`},
		{"pass for passes", []string{"passes", "quantise-weights"}, `(did you mean quantize-weights?)`},
		{"option", []string{"rewrite", "--enable", "palettize", "--set", "palettize.bitz=4", "-o", out, in}, `has no option "bitz" (did you mean bits?)`},
		{"option value", []string{"rewrite", "--set", "promote-states.form=atribute", "-o", out, in}, `(did you mean attribute?)`},
		{"architecture", []string{"check", "--architecture", "h18", in}, `(did you mean h18p?)`},
		{"arm", []string{"synth", "--arm", "AA", "-o", out}, `unknown arm "AA": want one of A, B, C, D, E (did you mean A?)`},
		{"closed option value", []string{"rewrite", "--enable", "palettize", "--set", "palettize.method=kmean", "-o", out, in}, `(did you mean kmeans?)`},
		{"--only", []string{"check", "--only", "blokced", in}, `(did you mean blocked?)`},
		{"--numerics", []string{"verify", in, in, "--numerics", "an"}, `(did you mean ane?)`},
		{"--ane-family", []string{"verify", in, in, "--ane-family", "a17"}, `(did you mean a16?)`},
		{"--mode", []string{"verify", in, in, "--mode", "greed"}, `(did you mean greedy?)`},
		{"--accumulate", []string{"verify", in, in, "--accumulate", "f61"}, `(did you mean f16?)`},
		{"--emit", []string{"convert", in, "-o", out, "--emit", "prety"}, `(did you mean pretty?)`},
		{"synth choice", []string{"synth", "--arm", "A", "--scale", "tinny", "-o", out}, `(did you mean tiny?)`},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: %v: code %d, stderr %q, want %q", c.what, c.args, code, errs, c.want)
		}
	}
}

// An unknown command gets the suggestion and a pointer to the list, not
// the whole help after it (which pushed the suggestion off the screen):
// exactly two lines on stderr, nothing on stdout, exit 2.
func TestUnknownCommandShort(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"chek", "x"}, "anefix: unknown command \"chek\" (did you mean check?)\nRun 'anefix --help' for the list of commands.\n"},
		{[]string{"help", "rewirte"}, "anefix: unknown command \"rewirte\" (did you mean rewrite?)\nRun 'anefix --help' for the list of commands.\n"},
		{[]string{"frobnicate"}, "anefix: unknown command \"frobnicate\"\nRun 'anefix --help' for the list of commands.\n"},
	} {
		code, out, errs := runCLI(t, "", c.args...)
		if code != exitUsage || out != "" || errs != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}
