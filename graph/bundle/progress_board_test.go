package bundle

import (
	"strings"
	"testing"
	"time"
)

// Two bars live at once (verify hashes both inputs while decoding them)
// each keep their own line instead of overwriting one: the board goes up
// to its first line and redraws both. Each bar's last frame shows its
// final count (here its total), and the board ends cleared.
func TestProgressBarsOneLineEach(t *testing.T) {
	buf := &syncBuffer{}
	a := newProgress(buf, "verifying a", 4<<20, 0, time.Millisecond)
	b := newProgress(buf, "verifying b", 2<<20, 0, time.Millisecond)
	a.Add(1 << 20)
	b.Add(1 << 20)
	// Wait (not a fixed sleep: the machine may be loaded) until both show.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(buf.String(), "\n") && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	a.Add(3 << 20)
	b.Add(1 << 20)
	a.Done()
	b.Done()
	s := buf.String()
	frames := strings.Split(s, "\r")
	both := false
	for _, f := range frames {
		// A frame with both bars: up one line, clear, a, newline, b.
		if strings.HasPrefix(f, "\033[1A\033[J") && strings.Contains(f, "verifying a [") && strings.Contains(f, "\nverifying b [") {
			both = true
		}
	}
	if !both {
		t.Errorf("no frame drew both bars on their own lines: %q", s)
	}
	if !strings.Contains(s, "verifying a [==============================] 100% 4.0 MiB/4.0 MiB") ||
		!strings.Contains(s, "verifying b [==============================] 100% 2.0 MiB/2.0 MiB") {
		t.Errorf("a bar's last frame does not reach its total: %q", s)
	}
	if !strings.HasSuffix(s, "\r\033[J") {
		t.Errorf("the board is not cleared at the end: %q", s)
	}
}

// A note (Bar.SetNote) follows the count, with a total and without one.
func TestProgressNote(t *testing.T) {
	for _, c := range []struct {
		total int64
		want  string
	}{
		{0, "reduce 7 probes (5 run, 2 cached)"},
		{10, "reduce [=====================         ]  70% 7/10 probes (5 run, 2 cached)"},
	} {
		p := &progress{label: "reduce", unit: "probes"}
		p.total.Store(c.total)
		b := Bar{p}
		b.Set(7)
		if got := p.text(); strings.Contains(got, "(") {
			t.Errorf("total %d: %q before any note", c.total, got)
		}
		b.SetNote("(5 run, 2 cached)")
		if got := p.text(); got != c.want {
			t.Errorf("total %d: %q, want %q", c.total, got, c.want)
		}
	}
}
