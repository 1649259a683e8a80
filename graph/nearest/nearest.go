// Package nearest finds the valid name closest to a mistyped one, for the
// "did you mean X?" of every unknown-name error (commands, flags, passes,
// options, architectures, arms): one distance, one threshold, everywhere.
package nearest

import (
	"fmt"
	"strings"
)

// Distance is the optimal-string-alignment edit distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbouring
// characters each cost 1 (a swap is the commonest typo, "plaettize").
// Case is ignored.
func Distance(a, b string) int {
	x, y := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	// d[i][j] is the distance between x[:i] and y[:j].
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// Name returns the valid name nearest to name, or "" when none is near
// enough to be a typo of it: within a third of its length (at least 1)
// and fewer edits than name has characters (x is no typo of A, but a is),
// or one that name is a prefix of (at least 3 characters: "pal" for
// "palettize"). Ties go to the earlier name in valid, so the answer does
// not depend on map order.
func Name(name string, valid []string) string {
	if name == "" {
		return ""
	}
	limit := max(1, len([]rune(name))/3)
	best, bestD := "", limit+1
	for _, v := range valid {
		if v == "" || v == name {
			continue
		}
		d := Distance(name, v)
		if len(name) >= 3 && strings.HasPrefix(strings.ToLower(v), strings.ToLower(name)) {
			d = min(d, limit)
		}
		if d >= len([]rune(name)) {
			continue
		}
		if d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// Hint is " (did you mean X?)" for the nearest valid name (quoted as the
// caller spells names: prefix, e.g. "--" for flags), or "".
func Hint(name string, valid []string, prefix string) string {
	if n := Name(name, valid); n != "" {
		return fmt.Sprintf(" (did you mean %s%s?)", prefix, n)
	}
	return ""
}
