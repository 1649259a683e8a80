package bundle

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A Bar draws on a terminal only; on one its last frame is its final
// count. The terminal is a file standing in for one (isTerminalFile).
func TestBarOnlyOnTerminal(t *testing.T) {
	defer func(d time.Duration, f func(*os.File) bool) { progressDelay, isTerminalFile = d, f }(progressDelay, isTerminalFile)
	progressDelay = 0
	for _, tty := range []bool{false, true} {
		isTerminalFile = func(*os.File) bool { return tty }
		f, err := os.CreateTemp(t.TempDir(), "term")
		if err != nil {
			t.Fatal(err)
		}
		bar := NewBar(f, "parsing m.mlir", 1000)
		bar.Set(400)
		if tty {
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if b, _ := os.ReadFile(f.Name()); strings.Contains(string(b), "parsing m.mlir") {
					break
				}
			}
		}
		bar.Set(1000)
		bar.Done()
		f.Close()
		b, _ := os.ReadFile(f.Name())
		switch s := string(b); {
		case !tty && s != "":
			t.Errorf("not a terminal, drew %q", s)
		case tty && !strings.Contains(s, "parsing m.mlir [==============================] 100% 1000 B/1000 B"):
			t.Errorf("last frame does not reach the total: %q", s)
		}
	}
}

// A count bar shows its unit, a byte bar binary sizes, and a bar without a
// total (a pipe) only the count so far; the last frame is the final count.
func TestBarUnits(t *testing.T) {
	defer func(d time.Duration, f func(*os.File) bool) { progressDelay, isTerminalFile = d, f }(progressDelay, isTerminalFile)
	progressDelay = 0
	isTerminalFile = func(*os.File) bool { return true }
	for _, c := range []struct {
		bar       func(f *os.File) Bar
		n         int64
		want, not string
	}{
		{func(f *os.File) Bar { return NewCountBar(f, "verify", 16, "positions") }, 16, "verify [==============================] 100% 16/16 positions", "B/"},
		{func(f *os.File) Bar { return NewCountBar(f, "verify", 16, "positions") }, 4, "verify [=======                       ]  25% 4/16 positions", "B/"},
		{func(f *os.File) Bar { return NewBar(f, "reading <stdin>", 0) }, 3 << 20, "reading <stdin> 3.0 MiB", "%"},
		{func(f *os.File) Bar { return NewCountBar(f, "legalize-weights", -1, "weights") }, 7, "legalize-weights 7 weights", "%"},
	} {
		f, err := os.CreateTemp(t.TempDir(), "term")
		if err != nil {
			t.Fatal(err)
		}
		b := c.bar(f)
		b.Set(c.n)
		label := strings.Fields(c.want)[0]
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if out, _ := os.ReadFile(f.Name()); strings.Contains(string(out), label) {
				break
			}
		}
		b.Done()
		f.Close()
		out, _ := os.ReadFile(f.Name())
		// The last frame: from the last label drawn to the next carriage return.
		last := string(out)
		if i := strings.LastIndex(last, label); i >= 0 {
			last = last[i:]
		}
		last, _, _ = strings.Cut(last, "\r")
		if !strings.Contains(last, c.want) || strings.Contains(last, c.not) {
			t.Errorf("last frame %q, want %q without %q", last, c.want, c.not)
		}
	}
}

// waitDrawn is a reader that, once it has given its first read, waits for
// a bar to be drawn on f before it gives the rest: the spooling of stdin is
// then seen on the terminal however fast it is.
type waitDrawn struct {
	r     io.Reader
	f     *os.File
	first bool
}

func (w *waitDrawn) Read(b []byte) (int, error) {
	if w.first {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if out, _ := os.ReadFile(w.f.Name()); strings.Contains(string(out), "reading <stdin>") {
				break
			}
		}
	}
	w.first = true
	return w.r.Read(b)
}

// Spooling stdin from a pipe draws a bar of the bytes so far, ending at
// the whole input.
func TestStdinProgress(t *testing.T) {
	defer func(d time.Duration, f func(*os.File) bool) { progressDelay, isTerminalFile = d, f }(progressDelay, isTerminalFile)
	progressDelay = 0
	isTerminalFile = func(*os.File) bool { return true }
	text := "module {\n" + strings.Repeat("// padding to make the input larger than one read\n", 4000) + "}\n"
	term, err := os.CreateTemp(t.TempDir(), "term")
	if err != nil {
		t.Fatal(err)
	}
	in, err := Open("-", OpenOptions{Stdin: &waitDrawn{r: strings.NewReader(text), f: term}, Progress: term})
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	term.Close()
	out, _ := os.ReadFile(term.Name())
	if want := "reading <stdin> " + humanBytes(int64(len(text))); !strings.Contains(string(out), want) {
		t.Errorf("the bar's frames %q lack %q", out, want)
	}
}

// The bar's total is stdin's size when it is a file, unknown (0) for a pipe.
func TestStdinSize(t *testing.T) {
	src := filepath.Join(t.TempDir(), "m.mlir")
	if err := os.WriteFile(src, make([]byte, 12345), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, c := range []struct {
		name string
		r    io.Reader
		want int64
	}{{"file", f, 12345}, {"pipe", pr, 0}, {"reader", strings.NewReader("abc"), 0}} {
		if got := stdinSize(c.r); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
