package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// `-o -` writing MLIR bytecode to a terminal is refused (exit 2, naming the
// ways out) before any work; text may go to a terminal, and bytecode to a
// pipe or file as before. The terminal is Env.StdoutIsTTY, which main sets
// from os.Stdout.
func TestBinaryOutputRefusedOnTerminal(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "mlir", "pretty", "printed_small.mlir")
	cases := []struct {
		args   []string
		binary bool // the output would be bytecode
	}{
		{[]string{"synth", "--arm", "A", "-o", "-"}, true},
		{[]string{"synth", "--arm", "A", "--emit", "pretty", "-o", "-"}, false},
		{[]string{"convert", in, "--emit", "bytecode", "-o", "-"}, true},
		{[]string{"convert", in, "-o", "-"}, false}, // text in, text out
		{[]string{"rewrite", in, "--emit", "bytecode", "-o", "-"}, true},
		{[]string{"rewrite", in, "-o", "-"}, false},
	}
	for _, c := range cases {
		for _, tty := range []bool{true, false} {
			var out, errb bytes.Buffer
			code := run(c.args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, StdoutIsTTY: tty})
			refused := c.binary && tty
			switch {
			case refused && (code != exitUsage || out.Len() != 0 || !strings.Contains(errb.String(), "would write MLIR bytecode (binary) to the terminal; redirect stdout")):
				t.Errorf("%v on a terminal: code %d, %d bytes on stdout, stderr %q; want exit 2 and nothing written", c.args, code, out.Len(), errb.String())
			case !refused && (code != exitOK || out.Len() == 0):
				t.Errorf("%v (terminal %v): code %d, %d bytes, stderr %q; want the model on stdout", c.args, tty, code, out.Len(), errb.String())
			}
		}
	}
}
