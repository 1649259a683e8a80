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

// readmeBlock is one ```sh block of README.md and what the comment line
// right above it says: <!-- no-run: WHY --> (not run here, e.g. it needs
// coreai-build on a Mac) or <!-- exit N --> (the block's last line exits N,
// every line before it 0; without the comment the whole block exits 0).
type readmeBlock struct {
	line  int // of the opening fence, 1-based
	lines []string
	noRun string
	exit  int
}

const readmeMaxLines = 700

var (
	noRunMark = regexp.MustCompile(`^<!-- no-run: (.+) -->$`)
	exitMark  = regexp.MustCompile(`^<!-- exit ([0-9]+) -->$`)
)

func readmeBlocks(text string) ([]readmeBlock, error) {
	var blocks []readmeBlock
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```sh" {
			continue
		}
		b := readmeBlock{line: i + 1}
		if i > 0 {
			prev := strings.TrimSpace(lines[i-1])
			if m := noRunMark.FindStringSubmatch(prev); m != nil {
				b.noRun = m[1]
			} else if m := exitMark.FindStringSubmatch(prev); m != nil {
				b.exit, _ = strconv.Atoi(m[1])
			} else if strings.HasPrefix(prev, "<!--") && !strings.Contains(prev, "lead: insert") {
				return nil, errors.New("README.md:" + strconv.Itoa(i) + ": a comment above a sh block that is neither <!-- no-run: WHY --> nor <!-- exit N -->: " + prev)
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
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CACHE_HOME="+t.TempDir())
	ran := 0
	for _, b := range blocks {
		where := "README.md:" + strconv.Itoa(b.line)
		if b.noRun != "" {
			t.Logf("%s: not run (%s): %s", where, b.noRun, strings.Join(b.lines, " / "))
			continue
		}
		ran++
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
		if code, out := runBlock(t, dir, env, head); code != 0 {
			t.Fatalf("%s: the block exits %d, want 0:\n%s\n--- output:\n%s", where, code, strings.Join(head, "\n"), out)
		}
		if last != nil {
			if code, out := runBlock(t, dir, env, last); code != b.exit {
				t.Fatalf("%s: its last line exits %d, want %d (the README says so):\n%s\n--- output:\n%s", where, code, b.exit, last[0], out)
			}
		}
	}
	if ran < 10 {
		t.Fatalf("ran %d README blocks; the extraction is broken", ran)
	}
}

// runBlock runs lines as one sh -e script in dir and returns its exit status
// and output.
func runBlock(t *testing.T, dir string, env, lines []string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", strings.Join(lines, "\n"))
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
