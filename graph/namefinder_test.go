package graph

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestNameFinder: the names Find reports are those strings.Contains finds,
// each once, on hand-picked overlapping names and on random short names
// and texts over a small alphabet (many overlaps).
func TestNameFinder(t *testing.T) {
	check := func(names []string, text string) {
		t.Helper()
		var got []string
		NewNameFinder(names).Find(text, func(n string) { got = append(got, n) })
		var want []string
		for _, n := range names {
			if strings.Contains(text, n) && !slices.Contains(want, n) {
				want = append(want, n)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("names %q in %q: found %q, want %q", names, text, got, want)
		}
	}
	check([]string{"g1", "g10", "g2", "main"}, `#t.a<callee = @g10, other = "g1">`)
	check([]string{"he", "she", "his", "hers"}, "ushers")
	check([]string{"a", "aa", "aaa", "b"}, "aaaa")
	check([]string{"", "x"}, "y")
	check([]string{"x", "x"}, "xx")
	check(nil, "anything")
	r := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ab@."[r.IntN(4)]
		}
		return string(b)
	}
	for range 500 {
		var names []string
		for range 1 + r.IntN(8) {
			names = append(names, word(1+r.IntN(4)))
		}
		check(names, word(r.IntN(30)))
	}
}

// TestNameFinderWork: a finder scans each text once, whatever the number
// of names: twice the names, the same text, the same scan.
func TestNameFinderWork(t *testing.T) {
	text := strings.Repeat("#t.a<@g17 @g400>", 100)
	var scans [2]int64
	for i, n := range []int{300, 600} {
		var names []string
		for k := range n {
			names = append(names, "g"+string(rune('a'+k%26))+strings.Repeat("x", k/26))
		}
		f := NewNameFinder(names)
		scans[i] = CountWork(func() { f.Find(text, func(string) {}) }).Lookups
	}
	if scans[0] != int64(len(text)) || scans[1] != scans[0] {
		t.Errorf("scanned %d and %d bytes of a %d-byte text", scans[0], scans[1], len(text))
	}
}
