package probe

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileNames are file names that are shell syntax.
var hostileNames = []string{"plain", "with space", "it's", `a"b`, "$(touch pwned)", "`touch pwned`", "semi;colon",
	"new\nline", "star*", `back\slash`, "$HOME", "-dash", "}{", "{}", "'$(touch pwned)'", `"$(touch pwned)"`}

// forms are test commands and what each prints for a candidate path p.
var forms = []struct {
	cmd  string
	want func(p string) string
}{
	{`printf %s {}`, id},
	{`printf %s "{}"`, id},
	{`printf %s "<{}>"`, func(p string) string { return "<" + p + ">" }},
	{`printf %s {}.log`, func(p string) string { return p + ".log" }},
	{`printf %s "$(printf %s {})"`, subst},
	{`printf %s "$(printf %s "{}")"`, subst},
	{"x=`printf %s {}`; printf %s \"$x\"", subst},
	{`printf %s {} # it's a comment with "quotes" and {}`, id},
	{`printf %s {}; printf %s "|{}"`, func(p string) string { return p + "|" + p }},
	{`sh -c 'printf %s "$ANEFIX_CANDIDATE"'`, id},
	{`printf %s "${ANEFIX_CANDIDATE}"`, id},
	{`printf %s \{} {}`, func(p string) string { return "{}" + p }},
}

func id(p string) string { return p }

// subst is what a command substitution gives: the text without its
// trailing newlines (sh's rule, not anefix's).
func subst(p string) string { return strings.TrimRight(p, "\n") }

// runForm runs Expand(form) on path p with sh, as the Runner does.
func runForm(t *testing.T, form, p string) string {
	t.Helper()
	exp, err := Expand(form)
	if err != nil {
		t.Fatalf("%s: %v", form, err)
	}
	cmd := exec.Command("/bin/sh", "-c", exp)
	cmd.Env = append(os.Environ(), candidateEnv+"="+p)
	cmd.Dir = filepath.Dir(p)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s (%s) on %q: %v", form, exp, p, err)
	}
	return string(out)
}

// The candidate's path reaches the test as exactly its bytes, in every
// quoting context {} may stand in, and no byte of it ever runs: before,
// `"{}"` put the single-quoted path inside double quotes, where the single
// quotes are literal, so `$(touch pwned)` in a name ran.
func TestCandidatePathNeverRuns(t *testing.T) {
	for _, name := range hostileNames {
		dir := t.TempDir()
		p := filepath.Join(dir, name)
		for _, f := range forms {
			if got, want := runForm(t, f.cmd, p), f.want(p); got != want {
				t.Errorf("%s on %q: got %q, want %q", f.cmd, name, got, want)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
			t.Errorf("%q: a name ran a command", name)
		}
	}
}

// The same over generated names: random strings of shell syntax.
func TestCandidatePathGenerated(t *testing.T) {
	const alphabet = "a $`'\"\\;|&(){}*?<>#~\n\t!-="
	rng := rand.New(rand.NewPCG(7, 9))
	dir := t.TempDir()
	for i := range 150 {
		b := make([]byte, 1+rng.IntN(12))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		name := strings.ReplaceAll(string(b), "/", "_")
		p := filepath.Join(dir, name)
		f := forms[i%len(forms)]
		if got, want := runForm(t, f.cmd, p), f.want(p); got != want {
			t.Errorf("%s on %q: got %q, want %q", f.cmd, name, got, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("a generated name wrote %s", ents[0].Name())
	}
}

// A {} whose context no reference fits is refused, saying what to write.
func TestExpandRefuses(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"", "empty"},
		{"true", "has no {}"},
		{`printf %s '{}'`, "inside single quotes"},
		{`sh -c 'anefix compile {}'`, `"$ANEFIX_CANDIDATE" inside them`},
		{`printf %s "${X:-{}}"`, "inside ${…}"},
		{"printf %s \"`printf %s {}`\"", "use $(…)"},
		{"cat <<EOF\n{}\nEOF", "here-document"},
	} {
		_, err := Expand(c.cmd)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.cmd, err, c.want)
		}
		if _, err := New(Config{Command: c.cmd}); err == nil {
			t.Errorf("New accepted %q", c.cmd)
		}
	}
}

// Expand never panics, and only ever replaces a {} by a reference: put
// back, the references give the command again.
func FuzzExpand(f *testing.F) {
	for _, c := range forms {
		f.Add(c.cmd)
	}
	for _, s := range []string{`'{}'`, `"${X:-{}}"`, "\"`{}`\"", "<<E\n{}\nE", `"\"{}`, `$((1+{}))`, `'`, `"`, "`", `$(`, `${`, `\`, "# {}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		out, err := Expand(cmd)
		if err != nil || strings.Contains(cmd, candidateEnv) {
			return
		}
		back := strings.ReplaceAll(strings.ReplaceAll(out, refUnquoted, "{}"), refInDouble, "{}")
		if back != cmd {
			t.Fatalf("%q expanded to %q, which is not the command with {} replaced", cmd, out)
		}
	})
}
