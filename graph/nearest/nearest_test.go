package nearest

import "testing"

// Distances derived by hand: each case names the edits.
func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},                // three deletions
		{"check", "check", 0},         // equal
		{"chek", "check", 1},          // one insertion
		{"plaettize", "palettize", 1}, // one swap (la -> al)
		{"kitten", "sitting", 3},      // k->s, e->i, insert g
		{"CHECK", "check", 0},         // case ignored
		{"rewrit", "inspect", 6},      // see below
		{"ca", "abc", 3},              // OSA: no swap then insert (true Damerau gives 2)
		{"h18", "h18p", 1},            // one insertion
	}
	// "rewrit" vs "inspect": no common aligned letters except t at the end
	// (rewri-t / inspec-t): 5 substitutions + 1 insertion = 6.
	for _, c := range cases {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestName(t *testing.T) {
	passes := []string{"arm-d", "finite-masks", "strip-fp32-casts", "palettize", "quantize-weights", "dce", "fold-casts"}
	cases := []struct {
		name  string
		valid []string
		want  string
	}{
		{"plaettize", passes, "palettize"},
		{"pal", passes, "palettize"},        // prefix
		{"dc", passes, "dce"},               // one insertion, limit 1
		{"fold-cast", passes, "fold-casts"}, // one insertion
		{"quantise-weights", passes, "quantize-weights"},
		{"zzzzzz", passes, ""},         // nothing near
		{"x", []string{"A", "B"}, ""},  // 1 edit from every one-letter name, but x is not a typo of A
		{"a", []string{"A", "B"}, "A"}, // case: callers compare exactly, so a is a typo of A
		{"chekc", []string{"check", "compile"}, "check"},
		{"jsn", []string{"json", "seed"}, "json"},
	}
	for _, c := range cases {
		if got := Name(c.name, c.valid); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Hint("jsn", []string{"json"}, "--"); got != " (did you mean --json?)" {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint("zzzz", []string{"json"}, "--"); got != "" {
		t.Errorf("Hint of nothing near = %q", got)
	}
}
