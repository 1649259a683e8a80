package bundle

import (
	"os"
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
