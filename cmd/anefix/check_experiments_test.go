package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/passes/ane/compiler"
)

// shellWords splits a command line the way a POSIX shell splits words
// made by quoteShellWord: plain characters, '…' quoted runs and \x
// escapes outside quotes.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	quoted, any := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted:
			if c == '\'' {
				quoted = false
			} else {
				cur.WriteByte(c)
			}
		case c == '\'':
			quoted, any = true, true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			any = true
		case c == ' ':
			if any {
				words = append(words, cur.String())
				cur.Reset()
				any = false
			}
		default:
			cur.WriteByte(c)
			any = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", line)
	}
	if any {
		words = append(words, cur.String())
	}
	return words
}

func TestQuoteShellWord(t *testing.T) {
	for _, s := range []string{"a.aimodel", "dir/my model's.aimodel", "", "$HOME", "a\"b", "x;rm -rf y", "tab\there"} {
		q := quoteShellWord(s)
		if got := shellWords(t, "cmd "+q); len(got) != 2 || got[1] != s {
			t.Errorf("quoteShellWord(%q) = %s, reads back as %q", s, q, got)
		}
	}
	if q := quoteShellWord("testdata/synth/armA.aimodel"); q != "testdata/synth/armA.aimodel" {
		t.Errorf("a plain path got quoted: %s", q)
	}
}

// TestCheckSettleCommandsRun runs every "to settle" command check prints,
// exactly as printed (split into words as a shell would), with the
// STAND-IN compiler testdata/compiler/fake-coreai-build.sh behind
// --compile (nothing it reports is a measurement), then verifies each
// output against the checked input rewritten by the default pipeline (the
// input itself when it is rewritten already): the externalized head is fed
// its table and the plain states their previous outputs, so those two
// experiments are bit-identical to the default pipeline's output. (Against
// the raw export the default pipeline's own f16 recurrence flips a near
// tie of synth arm A's logits at step 12, which says nothing about the
// experiment.)
func TestCheckSettleCommandsRun(t *testing.T) {
	t.Setenv(compiler.EnvCompiler, standIn(t))
	t.Setenv("FAKE_COREAI_BUILD_SCENARIO", "fallback")
	t.Setenv("FAKE_COREAI_BUILD_ANE_IF", "")
	synthDir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "synth"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	t.Chdir(work) // the commands write OUT in the working directory
	// A path a shell must quote: a space and a single quote.
	odd := filepath.Join(work, "my model's dir", "armA.aimodel")
	if err := os.MkdirAll(filepath.Dir(odd), 0o755); err != nil {
		t.Fatal(err)
	}
	copyDir(t, filepath.Join(synthDir, "armA.aimodel"), odd)
	fixedA, fixedH := filepath.Join(work, "fixedA.aimodel"), filepath.Join(work, "fixedH.aimodel")
	for _, p := range [][2]string{{odd, fixedA}, {filepath.Join(synthDir, "armB-handle.aimodel"), fixedH}} {
		if code, _, errs := runCLI(t, "", "rewrite", p[0], "-o", p[1]); code != exitOK {
			t.Fatalf("rewrite %s: exit %d\n%s", p[0], code, errs)
		}
	}
	// ref is the default pipeline's output for in: the experiments that
	// change no number must verify bit-identical against it.
	cases := []struct{ in, ref string }{
		{odd, fixedA},
		{fixedA, fixedA},
		{fixedH, fixedH},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.in), func(t *testing.T) {
			_, out, errs := runCLI(t, "", "check", tc.in)
			var cmds []string
			for _, line := range strings.Split(out, "\n") {
				if c, ok := strings.CutPrefix(line, settlePrefix); ok {
					cmds = append(cmds, c)
				}
			}
			want := map[string]bool{"--enable externalize-constant": false, "--enable states-as-outputs": false, "--set strip-fp32-casts.islands=all": false}
			for _, c := range cmds {
				for k := range want {
					if strings.Contains(c, " "+k+" --compile") {
						want[k] = true
					}
				}
			}
			for k, seen := range want {
				if !seen {
					t.Errorf("no suspect line names %q; commands: %q\n%s%s", k, cmds, out, errs)
				}
			}
			for _, c := range cmds {
				words := shellWords(t, c)
				if len(words) < 5 || words[0] != "anefix" || words[1] != "rewrite" || words[2] != tc.in || words[3] != "-o" {
					t.Fatalf("not anefix rewrite %s -o …: %q", tc.in, words)
				}
				code, rout, errs := runCLI(t, "", words[1:]...)
				if code != exitOK {
					t.Fatalf("%s: exit %d\n%s", c, code, errs)
				}
				if !strings.Contains(rout, "ANE regions before -> after") { // a report: stdout
					t.Errorf("%s: --compile printed no region line (stand-in compiler)\n%s", c, rout+errs)
				}
				if strings.Contains(c, "externalize-constant") {
					// The table is an input now: the suspect is gone.
					if _, cout, _ := runCLI(t, "", "check", words[4]); strings.Contains(cout, "suspect.tied-head-constant") {
						t.Errorf("check %s still lists the tied head:\n%s", words[4], cout)
					}
				}
				if strings.Contains(c, "islands=all") {
					continue // fp16 norms move the numbers of the random-weight stand-in
				}
				code, vout, verrs := runCLI(t, "", "verify", tc.ref, words[4], "--streams", "2", "--length", "32")
				if code != exitOK {
					t.Errorf("verify %s %s: exit %d\n%s%s", tc.ref, words[4], code, vout, verrs)
				}
				if !strings.Contains(vout, "outputs and states: bit-identical") {
					t.Errorf("verify %s %s: not bit-identical\n%s", tc.ref, words[4], vout)
				}
			}
		})
	}
}
