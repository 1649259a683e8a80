package probe

import (
	"fmt"
	"testing"
)

// The cache file parser never panics, and what it accepts it would write
// back the same way.
func FuzzParseEntry(f *testing.F) {
	for _, s := range []string{"good 0 0.125\n", "bad 1 2.000\n", "skip 125 0.5\n", "no-compiler 4 1\n", "good 1 1", "bad 0 1", "", "good 0 NaN", "good 0 -1", "bad 99999999999999999999 1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		res, ok := parseEntry(b)
		if !ok {
			return
		}
		if res.Outcome != Classify(res.ExitCode) || res.Outcome == NoCompiler || res.Duration < 0 {
			t.Fatalf("accepted %q as %+v", b, res)
		}
		again, ok := parseEntry([]byte(fmt.Sprintf("%s %d %.3f\n", res.Outcome, res.ExitCode, res.Duration.Seconds())))
		if !ok || again.Outcome != res.Outcome || again.ExitCode != res.ExitCode {
			t.Fatalf("%q: %+v does not read back", b, res)
		}
	})
}
