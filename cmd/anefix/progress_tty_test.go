package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/oracle"
)

// onTerminal runs the anefix binary bin with args under script(1), which
// gives it a pseudo-terminal, and returns what the terminal received.
// ANEFIX_PROGRESS_DELAY=0s has every bar drawn at once, so tiny models,
// done in milliseconds, show them too.
func onTerminal(t *testing.T, script, bin, dir string, args ...string) string {
	t.Helper()
	line := "'" + bin + "'"
	for _, a := range args {
		line += " '" + a + "'"
	}
	cmd := exec.Command(script, "-qec", line, "/dev/null")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ANEFIX_PROGRESS_DELAY=0s")
	// The exit status is the command's (script -e): verify's gate may fail
	// (3), which is not what is tested here.
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

// frames splits terminal output into the lines drawn: at carriage
// returns, newlines and the cursor-up the bars' board uses; clear-to-end
// codes are dropped.
func frames(out string) []string {
	out = strings.ReplaceAll(out, "\x1b[J", "")
	return regexp.MustCompile(`\r\n|\r|\n|\x1b\[[0-9]+A`).Split(out, -1)
}

// lastFrame is the last line drawn that starts with label, or "".
func lastFrame(out, label string) string {
	last := ""
	for _, f := range frames(out) {
		if strings.HasPrefix(f, label) {
			last = f
		}
	}
	return last
}

// Every phase that can take seconds on a large model draws a bar with its
// true total on a terminal, ending at it: verifying main.hash, the
// compression pass, writing, verify's positions, reading stdin. Off a
// terminal, nothing is drawn. (On full-scale arm A these phases take
// 1–13 s each; tiny arm A shows them only because the delay is 0.)
func TestProgressOnTerminal(t *testing.T) {
	script, bin, dir, in := ttySetup(t)
	out := filepath.Join(dir, "p.aimodel")
	rw := onTerminal(t, script, bin, dir, "rewrite", in, "-o", out, "--enable", "palettize")
	main, err := os.Stat(filepath.Join(in, "main.mlirb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ label, want string }{
		{"verifying main.hash [", "100% " + kib(main.Size()) + "/" + kib(main.Size())},
		{"palettize [", "100% "},
		{"writing [", "100% "},
	} {
		if f := lastFrame(rw, c.label); !strings.Contains(f, c.want) {
			t.Errorf("rewrite: last %q frame %q, want it to reach %q\n%q", c.label, f, c.want, rw)
		}
	}
	vf := onTerminal(t, script, bin, dir, "verify", in, out, "--streams", "2", "--length", "5")
	if f := lastFrame(vf, "verify ["); !strings.Contains(f, "100% 5/5 positions") {
		t.Errorf("verify: last bar frame %q, want 5/5 positions\n%q", f, vf)
	}
	st := onTerminal(t, script, "/bin/sh", dir, "-c", "cat '"+filepath.Join(in, "main.mlirb")+"' | '"+bin+"' inspect - >/dev/null")
	if f := lastFrame(st, "reading <stdin> "); !strings.HasSuffix(strings.TrimSpace(f), kib(main.Size())) {
		t.Errorf("stdin: last frame %q, want the input's %s\n%q", f, kib(main.Size()), st)
	}
	// Off a terminal (stderr a pipe): no bar, no escape code.
	cmd := exec.Command(bin, "rewrite", in, "-o", filepath.Join(dir, "q.aimodel"), "--enable", "palettize")
	cmd.Env = append(os.Environ(), "ANEFIX_PROGRESS_DELAY=0s")
	plain, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain), "\x1b[") || strings.Contains(string(plain), "[====") {
		t.Errorf("off a terminal, rewrite drew a bar:\n%q", plain)
	}
}

// kib prints a size of the tiny models (KiB range) as the bars do.
func kib(n int64) string { return fmt.Sprintf("%.1f KiB", float64(n)/1024) }

// bisect and reduce draw their probe count on a terminal as the other bars
// are drawn: raw (the search's old line went through the escaping stderr
// and reached the terminal as the text `\x0danefix reduce: …\x1b[K`), one
// line redrawn in place, cleared when the search ends. The test `test -e
// {}` always holds, so reduce shrinks armA to its last op and bisect finds
// the input already good.
func TestSearchProgressOnTerminal(t *testing.T) {
	script, bin, dir, in := ttySetup(t)
	bar := regexp.MustCompile(`^(bisect|reduce) ([0-9]+) probes \(([0-9]+) run, 0 cached\)$`)
	for _, c := range []struct{ cmd, extra string }{
		{"bisect", ""},
		{"reduce", " -o r.aimodel"},
	} {
		line := `"` + bin + `" ` + c.cmd + ` "` + in + `" --test "test -e {}" --no-cache` + c.extra + ` >/dev/null`
		out := onTerminal(t, script, "/bin/sh", dir, "-c", line)
		if strings.Contains(out, `\x0d`) || strings.Contains(out, `\x1b`) {
			t.Errorf("%s: control codes reached the terminal as text:\n%q", c.cmd, out)
		}
		drawn := 0
		for _, f := range frames(out) {
			if !strings.Contains(f, "probes (") {
				continue
			}
			drawn++
			m := bar.FindStringSubmatch(f)
			if m == nil || m[1] != c.cmd || m[2] != m[3] {
				t.Errorf("%s: frame %q is not one line of the bar (%s N probes (N run, 0 cached))", c.cmd, f, c.cmd)
			}
		}
		last := lastFrame(out, c.cmd+" ")
		if drawn == 0 || last == "" {
			t.Fatalf("%s: no bar drawn on the terminal:\n%q", c.cmd, out)
		}
		// The board draws the final count, then clears its line.
		rest := out[strings.LastIndex(out, last)+len(last):]
		if !strings.HasPrefix(rest, "\r\x1b[J") || strings.Contains(rest, "probes (") {
			t.Errorf("%s: the bar's line is not cleared at the end; after its last frame: %q", c.cmd, rest)
		}
	}
}

// ttySetup is what the terminal tests start from: script(1), the anefix
// binary, a work directory and arm A's absolute path.
func ttySetup(t *testing.T) (script, bin, dir, in string) {
	t.Helper()
	script = oracle.Tool(t, "script", "apt-get install bsdutils")
	bin = buildAnefix(t)
	in, err := filepath.Abs(armA)
	if err != nil {
		t.Fatal(err)
	}
	return script, bin, t.TempDir(), in
}
