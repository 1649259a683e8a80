package probe

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The words a command names, as sh splits them before expansion (read off
// sh's grammar by hand): quotes and backslashes removed, operators split
// words, an output redirection's target and words sh would expand ($, a
// command substitution inside double quotes) left out.
func TestCommandWords(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"sh no-f32.sh {}", []string{"sh", "no-f32.sh", "{}"}},
		{`./t.sh "{}" > out.log 2>>err.log`, []string{"./t.sh", "{}"}},
		{`sh 'my test.sh' {} && cmp a\ b c`, []string{"sh", "my test.sh", "{}", "cmp", "a b", "c"}},
		{`python3 -c "import x" $HOME/f "$X/y" <in.txt`, []string{"python3", "-c", "import x", "in.txt"}},
		{`grep -q x "$(cat list)"`, []string{"grep", "-q", "x"}},
		{`a|b;c&d`, []string{"a", "b", "c", "d"}},
		{`x >| out`, []string{"x"}},
		{`y >&2 z`, []string{"y", "z"}},
		{`echo "a\"b" '' "c\d"`, []string{"echo", `a"b`, "", `c\d`}},
	} {
		if got := commandWords(c.cmd); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.cmd, got, c.want)
		}
	}
}

// Editing the script a test command names changes the key: the next run
// of the README's recipe (`sh no-f32.sh {}`, the script replaced by `exit
// 1`) runs the test again instead of answering from the cache. A file the
// test writes (> log.txt) is not in the key, or no answer would ever be
// reused; nor is a word naming a directory.
func TestKeyCoversNamedFiles(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	t.Chdir(dir)
	cand := write(t, dir, "cand", "x")
	write(t, dir, "no-f32.sh", "exit 0\n")
	write(t, dir, "log.txt", "")
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	const cmd = "sh no-f32.sh {} sub > log.txt"
	run := func() Result {
		t.Helper()
		r := newRunner(t, Config{Command: cmd, CacheDir: cache})
		if got := r.KeyFiles(); !slices.Equal(got, []string{"no-f32.sh"}) {
			t.Errorf("key files %q, want [no-f32.sh]", got)
		}
		res, err := r.Run(context.Background(), []string{cand})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	for i, want := range []struct {
		outcome Outcome
		cached  bool
		edit    string
	}{
		{Good, false, ""},
		{Good, true, "exit 1\n"}, // then the script is edited
		{Bad, false, ""},
		{Bad, true, "exit 0\n"}, // back to the first script: its answer is still cached
		{Good, true, ""},
	} {
		got := run()
		if got.Outcome != want.outcome || got.Cached != want.cached {
			t.Errorf("run %d: %s cached=%v, want %s cached=%v", i+1, got.Outcome, got.Cached, want.outcome, want.cached)
		}
		if want.edit != "" {
			write(t, dir, "no-f32.sh", want.edit)
		}
	}
}

// A named file that cannot be read (gone between the look and the read,
// or unreadable) is left out of the key without a cache and is an error
// naming it with one.
func TestKeyFileUnreadable(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone.sh")
	if prefix, used, err := keyPrefix("sh gone.sh {}", []string{gone}, false); err != nil || len(used) != 0 || prefix != "sh gone.sh {}" {
		t.Errorf("no cache: %q %q %v, want the command alone", prefix, used, err)
	}
	if _, _, err := keyPrefix("sh gone.sh {}", []string{gone}, true); err == nil || !strings.Contains(err.Error(), gone) || !strings.Contains(err.Error(), "--no-cache") {
		t.Errorf("with a cache: %v, want an error naming %s and --no-cache", err, gone)
	}
}
