package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeBlock is one ```sh or ```bash block of README.md (run by that
// shell) and what the comment line right above it says: <!-- no-run: WHY -->
// (not run here, e.g. it needs coreai-build on a Mac), <!-- exit N --> (the
// block's last line exits N, every line before it 0; without the comment
// the whole block exits 0) or <!-- in-checkout --> (the block runs in a
// fresh copy of the checkout, as installing from one does).
type readmeBlock struct {
	line       int // of the opening fence, 1-based
	shell      string
	lines      []string
	noRun      string
	exit       int
	inCheckout bool
}

const readmeMaxLines = 700

var (
	noRunMark    = regexp.MustCompile(`^<!-- no-run: (.+) -->$`)
	exitMark     = regexp.MustCompile(`^<!-- exit ([0-9]+) -->$`)
	checkoutMark = "<!-- in-checkout -->"
)

func readmeBlocks(text string) ([]readmeBlock, error) {
	var blocks []readmeBlock
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```sh" && lines[i] != "```bash" {
			continue
		}
		b := readmeBlock{line: i + 1, shell: strings.TrimPrefix(lines[i], "```")}
		if i > 0 {
			prev := strings.TrimSpace(lines[i-1])
			if m := noRunMark.FindStringSubmatch(prev); m != nil {
				b.noRun = m[1]
			} else if m := exitMark.FindStringSubmatch(prev); m != nil {
				b.exit, _ = strconv.Atoi(m[1])
			} else if prev == checkoutMark {
				b.inCheckout = true
			} else if strings.HasPrefix(prev, "<!--") && !strings.Contains(prev, "lead: insert") {
				return nil, errors.New("README.md:" + strconv.Itoa(i) + ": a comment above a sh block that is neither <!-- no-run: WHY -->, <!-- exit N --> nor " + checkoutMark + ": " + prev)
			}
		}
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.lines = append(b.lines, lines[i])
		}
		if i == len(lines) {
			return nil, errors.New("README.md:" + strconv.Itoa(b.line) + ": a sh block that never closes")
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// TestReadmeBlocks runs every sh block of README.md in order, in one
// temporary directory (a checkout's testdata linked in, as the README's
// commands run in a checkout), with the anefix built from this tree first
// on PATH, and checks each block's exit status against its marking. The
// blocks start from files they make themselves (the quick start's anefix
// synth). Blocks marked no-run are listed, not run.
func TestReadmeBlocks(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The README is a manual, not a log (issue 32): measurements go to
	// testdata/measurements.md.
	if n := strings.Count(string(text), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move measurements to %s and detail to the package docs", n, readmeMaxLines, measurementsPath)
	}
	blocks, err := readmeBlocks(string(text))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildAnefix(t)
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(repo, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	// A home of its own (completion setup writes under ~), keeping Go's
	// caches where they are.
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CACHE_HOME="+t.TempDir(), "HOME="+t.TempDir())
	env = append(env, goCacheEnv(t)...)
	ran := 0
	for _, b := range blocks {
		where := "README.md:" + strconv.Itoa(b.line)
		if b.noRun != "" {
			t.Logf("%s: not run (%s): %s", where, b.noRun, strings.Join(b.lines, " / "))
			continue
		}
		ran++
		if b.inCheckout {
			if code, out := runBlock(t, b.shell, copyCheckout(t, repo), env, b.lines); code != 0 {
				t.Fatalf("%s: in a copy of the checkout the block exits %d, want 0:\n%s\n--- output:\n%s", where, code, strings.Join(b.lines, "\n"), out)
			}
			continue
		}
		head, last := b.lines, []string(nil)
		if b.exit != 0 {
			n := len(b.lines) - 1
			for n >= 0 && strings.TrimSpace(b.lines[n]) == "" {
				n--
			}
			if n < 0 {
				t.Fatalf("%s: an empty block marked exit %d", where, b.exit)
			}
			head, last = b.lines[:n], b.lines[n:n+1]
		}
		if code, out := runBlock(t, b.shell, dir, env, head); code != 0 {
			t.Fatalf("%s: the block exits %d, want 0:\n%s\n--- output:\n%s", where, code, strings.Join(head, "\n"), out)
		}
		if last != nil {
			if code, out := runBlock(t, b.shell, dir, env, last); code != b.exit {
				t.Fatalf("%s: its last line exits %d, want %d (the README says so):\n%s\n--- output:\n%s", where, code, b.exit, last[0], out)
			}
		}
	}
	if ran < 10 {
		t.Fatalf("ran %d README blocks; the extraction is broken", ran)
	}
}

// runBlock runs lines as one `shell -e` script in dir and returns its exit
// status and output.
func runBlock(t *testing.T, shell, dir string, env, lines []string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-e", "-c", strings.Join(lines, "\n"))
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode(), string(out)
	default:
		t.Fatalf("running %q: %v\n%s", strings.Join(lines, "; "), err, out)
		return -1, ""
	}
}

// goCacheEnv is Go's cache and module settings as this test's go sees
// them, for blocks run with another HOME (where Go would otherwise look).
func goCacheEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 3 {
		t.Fatalf("go env printed %q", out)
	}
	return []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1], "GOPATH=" + v[2]}
}

// copyCheckout copies the files git tracks in repo into a new directory:
// what a fresh clone holds, without the history.
func copyCheckout(t *testing.T, repo string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("listing the checkout's files with git ls-files (a block marked %s needs git and a checkout): %v", checkoutMark, err)
	}
	dst := t.TempDir()
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(repo, rel)
		fi, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			link, err := os.Readlink(src)
			if err == nil {
				err = os.Symlink(link, to)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(to, data, fi.Mode().Perm())
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
