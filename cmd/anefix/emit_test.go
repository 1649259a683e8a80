package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An --emit the output cannot hold is a usage error (exit 2) in every
// command that writes models, found before anything is written; bytecode
// into a .mlir file used to be written silently as text.
func TestEmitMismatchIsUsageError(t *testing.T) {
	cases := []struct {
		args []string // OUT is replaced by the output path
		out  string   // output file name
		want string
	}{
		{[]string{"convert", rwArmA, "-o", "OUT", "--emit", "bytecode"}, "x.mlir", "--emit bytecode"},
		{[]string{"convert", rwArmA, "-o", "OUT", "--emit", "generic"}, "x.aimodel", "holds MLIR bytecode"},
		{[]string{"convert", rwArmA, "-o", "OUT", "--emit", "pretty"}, "x.mlirb", "holds MLIR bytecode"},
		{[]string{"rewrite", rwArmA, "-o", "OUT", "--emit", "bytecode"}, "x.mlir", "--emit bytecode"},
		{[]string{"rewrite", rwArmA, "-o", "OUT", "--emit", "generic"}, "x.aimodel", "holds MLIR bytecode"},
		{[]string{"synth", "--arm", "A", "-o", "OUT", "--emit", "bytecode"}, "x.mlir", "--emit bytecode"},
		{[]string{"synth", "--arm", "A", "-o", "OUT", "--emit", "generic"}, "x.mlirb", "holds MLIR bytecode"},
		{[]string{"synth", "--arm", "A", "-o", "OUT", "--emit", "bogus"}, "x.aimodel", "want generic, pretty or bytecode"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args[:1], "")+" "+c.out+" "+c.args[len(c.args)-1], func(t *testing.T) {
			out := filepath.Join(t.TempDir(), c.out)
			args := append([]string(nil), c.args...)
			for i, a := range args {
				if a == "OUT" {
					args[i] = out
				}
			}
			code, stdout, stderr := runCLI(t, "", args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 and %q; stderr %q", code, c.want, stderr)
			}
			if _, err := os.Lstat(out); !os.IsNotExist(err) || stdout != "" {
				t.Errorf("something was written (stat: %v, stdout %d bytes)", err, len(stdout))
			}
		})
	}
}
