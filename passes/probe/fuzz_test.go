package probe

import (
	"testing"
)

// The cache file parser never panics, and what it accepts it would write
// back the same way.
func FuzzParseEntry(f *testing.F) {
	const k = "00ab"
	for _, s := range []string{"good 0 0.125\n", "bad 1 2.000\n", "skip 125 0.5\n", "no-compiler 4 1\n", "good 1 1", "bad 0 1", "", "good 0 NaN", "good 0 -1", "bad 99999999999999999999 1",
		"bad 143 1.000\n", "bad 127 0.010\n", "bad 139 0.500\n", "other 1 1\n"} {
		f.Add([]byte(keyVersion + " " + k + " " + s))
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		res, ok := parseEntry(b, k)
		if !ok {
			return
		}
		if res.Outcome != classify(res.ExitCode) || uncacheable(res.ExitCode, false) != "" || res.Duration < 0 || res.Key != k {
			t.Fatalf("accepted %q as %+v", b, res)
		}
		again, ok := parseEntry([]byte(formatEntry(res)), k)
		if !ok || again.Outcome != res.Outcome || again.ExitCode != res.ExitCode {
			t.Fatalf("%q: %+v does not read back", b, res)
		}
	})
}
