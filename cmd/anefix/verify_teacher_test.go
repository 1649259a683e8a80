package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/modelio"
)

// The teacher-forced mode on the command line: a token file (errors name
// line and column), the gates (exit 3 when missed), the JSON aggregates
// named meanKld and sameTop1, and flags of the other mode refused.
func TestVerifyTeacherCLI(t *testing.T) {
	const a = "../../testdata/synth/armA.aimodel"
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.txt", "1 2 3 4 5\n\n7,8,9,10,11,12\n")
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"verify", a, a, "--tokens", good}, 0, []string{"2 streams × 5 positions", "mean KLD: 0 nats", "same top-1: 100.00 % of 10 positions", "1 stream(s) of " + good + " cut to 5 tokens"}},
		{[]string{"verify", a, a, "--tokens", write("bad.txt", "1 2 3\n4 x5 6\n")}, 1, []string{"bad.txt:2:3: \"x5\" is not a token id"}},
		{[]string{"verify", a, a, "--tokens", write("big.txt", "1 2\n3 256\n")}, 1, []string{"big.txt:2:3: token id 256 is past the vocabulary of 256"}},
		{[]string{"verify", a, a, "--tokens", write("empty.txt", "\n\n")}, 1, []string{"no token ids"}},
		{[]string{"verify", a, a, "--tokens", good, "--length", "6"}, 2, []string{"--length 6", "a stream of 5 tokens"}},
		{[]string{"verify", a, a, "--streams", "2", "--length", "300"}, 2, []string{"past the context", "256 positions"}},
		{[]string{"verify", a, a, "--mode", "teacher-forced", "--steps", "3"}, 2, []string{"--steps belongs to --mode greedy"}},
		{[]string{"verify", a, a, "--mode", "greedy", "--streams", "3"}, 2, []string{"--streams belongs to the teacher-forced mode"}},
		{[]string{"verify", a, a, "--mode", "nope"}, 2, []string{"--mode"}},
		// --localize alone selects greedy decoding; the header says so.
		{[]string{"verify", a, a, "--localize", "--steps", "2"}, 0, []string{"@main, greedy decoding (--mode greedy): prompt [1], 2 steps"}},
		{[]string{"verify", a, a, "--streams", "2", "--length", "3", "--json"}, 0, []string{`"meanKld": 0`, `"sameTop1": 1`, `"mode": "teacher-forced"`, `"stateDrift"`}},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, "", c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", strings.Join(c.args[3:], " "), code, c.code, out, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out+errs, w) {
				t.Errorf("%s: output lacks %q:\n%s%s", strings.Join(c.args[3:], " "), w, out, errs)
			}
		}
	}
}

// The gates: a palettized 4-bit arm A misses the default same-top-1 gate
// (exit 3) and passes once the gates are lifted.
func TestVerifyTeacherGates(t *testing.T) {
	const a = "../../testdata/synth/armA.aimodel"
	pal := filepath.Join(t.TempDir(), "p4.aimodel")
	if code, _, errs := runCLI(t, "", "rewrite", a, "-o", pal, "--enable", "palettize", "--set", "palettize.bits=4"); code != 0 {
		t.Fatalf("rewrite: %d %s", code, errs)
	}
	code, out, errs := runCLI(t, "", "verify", a, pal, "--streams", "2", "--length", "32")
	if code != exitGate || !strings.Contains(out, "gate: FAILED") || !strings.Contains(errs, "gate not met") {
		t.Errorf("4-bit with the default gates: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "", "verify", a, pal, "--streams", "2", "--length", "32", "--max-kld", "-1", "--min-same-top1", "-1"); code != exitOK {
		t.Errorf("without gates: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "", "verify", a, pal, "--streams", "2", "--length", "32", "--max-kld", "1e-9", "--min-same-top1", "-1"); code != exitGate || !strings.Contains(out, "need ≤ 1e-09") {
		t.Errorf("--max-kld 1e-9: exit %d\n%s%s", code, out, errs)
	}
}

// parseTokenStreams on adversarial text: never a panic; an accepted file
// has streams of ids within the vocabulary, and an error names the file
// and a line.
func FuzzParseTokenStreams(f *testing.F) {
	for _, s := range []string{"1 2 3\n4 5 6\n", "", "\n\n", "1,,2", "-1", "255 256", "9999999999", "1\t2\r\n3", "x", strings.Repeat("7 ", 1000), "1 2\n\n\n3 4 5", "\xff\xfe", "0x10", "+3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseTokenStreams(strings.NewReader(s), "f.txt", 256)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		for _, st := range got {
			if len(st) == 0 {
				t.Errorf("an empty stream accepted from %q", s)
			}
			for _, id := range st {
				if id < 0 || id >= 256 {
					t.Errorf("id %d accepted from %q", id, s)
				}
			}
		}
	})
}

// Without --streams, verify runs as many of the default 8 streams as
// --max-memory admits by the estimate, and says so; with --streams it
// refuses instead (exit 1).
func TestVerifyTeacherFitsStreams(t *testing.T) {
	const a = "../../testdata/synth/armA.aimodel"
	ld, err := modelio.Load(a, modelio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	per := func(n int) int64 { return 2 * interp.EstimateLanesMemory(ld.Module, "main", n) }
	limit := (per(3) + per(4)) / 2 // three streams fit, four do not
	code, out, errs := runCLI(t, "", "verify", a, a, "--length", "2", "--max-memory", fmt.Sprint(limit))
	if code != exitOK || !strings.Contains(out, "3 streams × 2 positions") || !strings.Contains(out, "3 streams instead of the default 8") {
		t.Errorf("default streams under --max-memory %d: exit %d\n%s%s", limit, code, out, errs)
	}
	if code, out, errs := runCLI(t, "", "verify", a, a, "--length", "2", "--streams", "8", "--max-memory", fmt.Sprint(limit)); code != exitFailure || !strings.Contains(errs, "for 8 streams together") {
		t.Errorf("--streams 8 under --max-memory %d: exit %d\n%s%s", limit, code, out, errs)
	}
}

// verify's speed and weight-sharing lines are printed only with --timings
// (both modes): without it, a passing run prints nothing on stderr, so CI
// logs carry only what differs between inputs.
func TestVerifyTimingsOnlyWhenAsked(t *testing.T) {
	a := "../../testdata/synth/armA.aimodel"
	for _, mode := range [][]string{{"--streams", "2", "--length", "3"}, {"--mode", "greedy", "--steps", "2"}} {
		args := append([]string{"verify", a, a}, mode...)
		code, _, errs := runCLI(t, "", args...)
		if code != exitOK || errs != "" {
			t.Errorf("%v: exit %d, stderr %q, want 0 and nothing", mode, code, errs)
		}
		code, _, errs = runCLI(t, "", append(args, "--timings")...)
		if code != exitOK || !strings.Contains(errs, "positions/s") {
			t.Errorf("%v --timings: exit %d, stderr %q, want the speed", mode, code, errs)
		}
	}
}
