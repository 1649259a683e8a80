package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/anefix/anefix/passes/ane/compiler"
)

// Every anefix command line the README's sh blocks and the commands' --help
// examples show must run as written: placeholder models (model.aimodel,
// armA.mlir, …) are made from the shipped arm A, outputs go to a temporary
// directory, --scale full becomes tiny and the compiler is the stand-in.
// Exit 0 or 3 (a gate) is fine; 1 or 2 means the example is wrong.
func TestDocumentedExamplesRun(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	type example struct{ where, line string }
	var examples []example
	inSh := false
	for _, l := range strings.Split(string(readme), "\n") {
		switch {
		case strings.HasPrefix(l, "```sh"):
			inSh = true
		case strings.HasPrefix(l, "```"):
			inSh = false
		case inSh:
			examples = append(examples, example{"README.md", l})
		}
	}
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, l := range strings.Split(commands[n].Help, "\n") {
			examples = append(examples, example{"anefix " + n + " --help", l})
		}
	}

	t.Setenv(compiler.EnvCompiler, filepath.Join(repo, "testdata", "compiler", "fake-coreai-build.sh"))
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "fallback")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	// bisect and reduce examples cache their answers under the user cache
	// directory: keep it out of the user's.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	armA := filepath.Join(repo, "testdata", "synth", "armA.aimodel")
	ran := 0
	for _, ex := range examples {
		args, stdin := exampleArgs(ex.line)
		if args == nil {
			continue
		}
		ran++
		t.Run(ex.where+": "+strings.TrimSpace(ex.line), func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if err := os.Symlink(filepath.Join(repo, "testdata"), "testdata"); err != nil {
				t.Fatal(err)
			}
			// Placeholder inputs become the shipped arm A in the kind their
			// name says; outputs are made relative to the temporary dir.
			inputs := []string{}
			for i, a := range args {
				if strings.HasPrefix(a, "/tmp/") {
					a = strings.TrimPrefix(a, "/tmp/")
					args[i] = a
				}
				isOut := i > 0 && (args[i-1] == "-o" || args[i-1] == "--output" || args[i-1] == "--report" || args[i-1] == "--keep")
				if !isOut && modelExt(a) {
					inputs = append(inputs, a)
				}
			}
			if stdin != "" {
				inputs = append(inputs, stdin)
			}
			for _, in := range inputs {
				if _, err := os.Stat(in); err == nil {
					continue
				}
				if strings.HasSuffix(in, ".aimodelc") {
					// A compiled package: what the stand-in compiler writes.
					tmp := t.TempDir()
					cmd := exec.Command("sh", filepath.Join(repo, "testdata", "compiler", "fake-coreai-build.sh"), "compile", armA,
						"--platform", "iOS", "--preferred-compute", "neural-engine", "--architecture", "h18p", "--output", tmp)
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("making placeholder %s with the stand-in compiler: %v\n%s", in, err, b)
					}
					if err := os.Rename(filepath.Join(tmp, "armA.h18p.aimodelc"), in); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if code, _, errs := runCLI(t, "", "convert", armA, "-o", in); code != exitOK {
					t.Fatalf("making placeholder %s: exit %d %s", in, code, errs)
				}
			}
			var in string
			if stdin != "" {
				b, err := os.ReadFile(stdin)
				if err != nil {
					t.Fatal(err)
				}
				in = string(b)
			}
			code, _, errs := runCLI(t, in, args...)
			if code != exitOK && code != exitGate {
				t.Errorf("%s shows %q; run as %v it exits %d:\n%s", ex.where, strings.TrimSpace(ex.line), args, code, errs)
			}
		})
	}
	if ran < 10 {
		t.Fatalf("only %d example command lines found; the extraction is broken", ran)
	}
}

// exampleArgs turns a documented shell line into anefix arguments (nil when
// it is not an anefix command) and the file its stdin is redirected from.
// The line is cut at a comment or pipe, and a stdout redirect is dropped.
func exampleArgs(line string) (args []string, stdin string) {
	f := shellFields(line)
	switch {
	case len(f) > 3 && f[0] == "go" && f[1] == "run" && f[2] == "./cmd/anefix":
		f = f[3:]
	case len(f) > 1 && f[0] == "anefix":
		f = f[1:]
	default:
		return nil, ""
	}
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == ">" && i+1 < len(f):
			i++
		case f[i] == "<" && i+1 < len(f):
			stdin = f[i+1]
			i++
		case f[i] == "full" && i > 0 && f[i-1] == "--scale":
			args = append(args, "tiny")
		default:
			args = append(args, f[i])
		}
	}
	return args, stdin
}

// shellFields splits a shell line into words as sh would for the simple
// lines documentation shows: single quotes group (and are removed), an
// unquoted | or # word ends the command.
func shellFields(line string) []string {
	var out []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '|' || c == '#' && !inWord:
			if inWord {
				out = append(out, cur.String())
			}
			return out
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

func modelExt(p string) bool {
	switch filepath.Ext(strings.TrimRight(p, "/")) {
	case ".aimodel", ".mlir", ".mlirb", ".aimodelc":
		return true
	}
	return false
}
