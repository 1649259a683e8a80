package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmallFaults: each case is a fault of issue 12 (items 10 and 11) that
// anefix got wrong; the command must now fail with the code and message
// given, and must not say what it used to.
func TestSmallFaults(t *testing.T) {
	armA := "../../testdata/synth/armA.aimodel"
	armD := "../../testdata/synth/armD.aimodel"
	head, err := os.ReadFile(filepath.Join(armA, "main.mlirb"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, path string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type tc struct {
		name    string
		args    func(t *testing.T, dir string) []string
		code    int
		want    string // in stderr
		notWant string // what the old message said
		absent  string // a path (relative to dir) that must not exist afterwards
	}
	cases := []tc{
		{name: "empty main.mlirb with matching hash", code: exitFailure, want: "is empty (0 bytes)", absent: "o.aimodel",
			args: func(t *testing.T, dir string) []string {
				sum := sha256.Sum256(nil)
				write(t, filepath.Join(dir, "e.aimodel", "main.mlirb"), nil)
				write(t, filepath.Join(dir, "e.aimodel", "main.hash"), []byte(hex.EncodeToString(sum[:])+"\n"))
				write(t, filepath.Join(dir, "e.aimodel", "metadata.json"), []byte("{}\n"))
				return []string{"rewrite", filepath.Join(dir, "e.aimodel"), "-o", filepath.Join(dir, "o.aimodel")}
			}},
		{name: "missing main.mlirb", code: exitFailure, want: "has no main.mlirb, so it is not an .aimodel", notWant: `metadata.json: no "assets"`,
			args: func(t *testing.T, dir string) []string {
				write(t, filepath.Join(dir, "m.aimodel", "metadata.json"), []byte("{}\n"))
				return []string{"inspect", filepath.Join(dir, "m.aimodel")}
			}},
		{name: "symlink to a directory as output", code: exitFailure, want: "is a symbolic link", notWant: "is a file",
			args: func(t *testing.T, dir string) []string {
				if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(dir, "d"), filepath.Join(dir, "l.aimodel")); err != nil {
					t.Fatal(err)
				}
				return []string{"convert", armD, "-o", filepath.Join(dir, "l.aimodel"), "--force"}
			}},
		{name: "verify --function nope", code: exitUsage, want: "no graph @nope; --function takes one of: @main",
			args: func(*testing.T, string) []string { return []string{"verify", armD, armD, "--function", "nope"} }},
		{name: "verify --prompt-ids 1,,2", code: exitUsage, want: `entry 2 of "1,,2" is empty`,
			args: func(*testing.T, string) []string { return []string{"verify", armD, armD, "--prompt-ids", "1,,2"} }},
		{name: "verify --steps past the context", code: exitUsage, want: `past the context of ../../testdata/synth/armD.aimodel, 256 positions (input "causal_mask"); use --steps 255 or less`,
			notWant: "position 256",
			args: func(*testing.T, string) []string {
				return []string{"verify", armD, armD, "--steps", "257", "--prompt-ids", "1,2"}
			}},
		// q = 8 positions per step (position_ids is 1x8): 256/8 = 32 steps.
		{name: "verify --steps past the context, 8 positions per step", code: exitUsage, want: `256 positions (input "causal_mask"), 8 per step; use --steps 32 or less`,
			args: func(*testing.T, string) []string {
				return []string{"verify", "../../testdata/synth/armE.aimodel", "../../testdata/synth/armE.aimodel", "--function", "extend_256_8", "--steps", "33"}
			}},
	}
	for n := 1; n <= 3; n++ {
		cases = append(cases, tc{name: "bytecode magic prefix " + string(rune('0'+n)), code: exitFailure, want: "the start of the MLIR bytecode magic", notWant: "custom syntax",
			args: func(t *testing.T, dir string) []string {
				write(t, filepath.Join(dir, "p.mlirb"), head[:n])
				return []string{"inspect", filepath.Join(dir, "p.mlirb")}
			}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.args(t, dir)
			code, stdout, stderr := runCLI(t, "", args...)
			if code != c.code || !strings.Contains(stderr, c.want) || (c.notWant != "" && strings.Contains(stderr, c.notWant)) {
				t.Errorf("anefix %s: exit %d (want %d), want %q in stderr:\n%s%s", strings.Join(args, " "), code, c.code, c.want, stdout, stderr)
			}
			if c.absent != "" {
				if _, err := os.Lstat(filepath.Join(dir, c.absent)); err == nil {
					t.Errorf("%s was written", c.absent)
				}
			}
		})
	}
}

// TestStopMessageSynth: a stop by signal says the input was kept only for
// commands that have one; synth has none.
func TestStopMessageSynth(t *testing.T) {
	for name, c := range commands {
		msg := stopMessage(os.Interrupt, []string{"/x/.o.tmp"}, !c.NoInput)
		if got, want := strings.Contains(msg, "input"), name != "synth"; got != want {
			t.Errorf("%s: stop message %q mentions the input: %v, want %v", name, msg, got, want)
		}
	}
}

// TestControlCharactersEscaped: a path with a newline or a terminal escape
// is printed quoted, in reports on stdout and messages on stderr, and no raw
// control character reaches either.
func TestControlCharactersEscaped(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../testdata/passes/fold-casts.mlir")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "a\x1b[31mb\nc\r.mlir")
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "x\ny\x07.mlir")
	quoted := func(p string) string {
		return `"` + strings.NewReplacer("\x1b", `\x1b`, "\n", `\n`, "\r", `\r`, "\x07", `\a`).Replace(p) + `"`
	}
	cases := []struct {
		args   []string
		stream string
		want   string
	}{
		{[]string{"inspect", name}, "stdout", quoted(name)},
		{[]string{"check", name}, "stdout", quoted(name)},
		{[]string{"inspect", missing}, "stderr", quoted(missing)},
		{[]string{"convert", name, "-o", filepath.Join(dir, "o\n.mlir")}, "stderr", quoted(filepath.Join(dir, "o\n.mlir"))},
	}
	for _, c := range cases {
		_, stdout, stderr := runCLI(t, "", c.args...)
		got := map[string]string{"stdout": stdout, "stderr": stderr}[c.stream]
		if !strings.Contains(got, c.want) {
			t.Errorf("anefix %q: %s lacks %s:\n%s", c.args, c.stream, c.want, got)
		}
		for _, s := range []string{stdout, stderr} {
			if strings.ContainsAny(s, "\x1b\r\x07") || strings.Contains(s, "b\nc") || strings.Contains(s, "x\ny") || strings.Contains(s, "o\n.mlir") {
				t.Errorf("anefix %q: raw control character in output:\n%q", c.args, s)
			}
		}
	}
}
