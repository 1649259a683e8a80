package bisect

import (
	"slices"

	"github.com/anefix/anefix/passes/probe"
)

// tester answers a batch of change sets (each sorted) with one outcome per
// set, in order. A batch is the unit that may run in parallel: the sets
// asked for never depend on how many run at once, so neither does the
// search.
type tester func(sets [][]int) ([]probe.Outcome, error)

// ddMin returns a 1-minimal subset of items (sorted) for which test is
// good (Zeller and Hildebrandt's ddmin): split the current set into n
// parts; if a part is good, continue with it; else if a complement is good
// (n > 2), continue with it at n-1; else split finer, until the parts are
// single changes. Parts are asked for as one batch, complements as a
// second, and the first good answer in batch order wins, so the result is
// deterministic. Skip and timeout count as not good. fixed is added to
// every set asked for (and not returned).
//
// good says whether items as a whole is known to be good. When it is not
// (the test could not tell on it, or it holds two alternatives and cannot
// be built), ddmin starts from items all the same, as it treats any
// unresolved test: it splits further rather than giving up, and found is
// false when no subset it asked about was good. The set returned is the
// last one known good (nil when none), also when err is not nil.
func ddMin(items, fixed []int, good bool, test tester) (set []int, found bool, err error) {
	c := append([]int(nil), items...)
	n := 2
	ask := func(sets [][]int) (int, error) {
		full := make([][]int, len(sets))
		for i, s := range sets {
			full[i] = union(s, fixed)
		}
		res, err := test(full)
		if err != nil {
			return -1, err
		}
		for i, r := range res {
			if r == probe.Good {
				return i, nil
			}
		}
		return -1, nil
	}
	best := func() []int {
		if good {
			return c
		}
		return nil
	}
	for len(c) >= 2 {
		n = min(n, len(c))
		parts := Split(c, n)
		i, err := ask(parts)
		if err != nil {
			return best(), good, err
		}
		if i >= 0 {
			c, n, good = parts[i], 2, true
			continue
		}
		if n > 2 {
			comps := make([][]int, len(parts))
			for j := range parts {
				comps[j] = minus(c, parts[j])
			}
			i, err := ask(comps)
			if err != nil {
				return best(), good, err
			}
			if i >= 0 {
				c, n, good = comps[i], max(n-1, 2), true
				continue
			}
		}
		if n >= len(c) {
			break
		}
		n = min(2*n, len(c))
	}
	return best(), good, nil
}

// Split cuts c into n contiguous parts whose sizes differ by at most one
// (ddmin's partition; reduce partitions its targets the same way).
func Split(c []int, n int) [][]int {
	out := make([][]int, 0, n)
	start := 0
	for i := range n {
		end := start + (len(c)-start)/(n-i)
		out = append(out, c[start:end:end])
		start = end
	}
	return out
}

func minus(c, part []int) []int {
	drop := map[int]bool{}
	for _, x := range part {
		drop[x] = true
	}
	var out []int
	for _, x := range c {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

// union returns the sorted union of a and b.
func union(a, b []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, s := range [][]int{a, b} {
		for _, x := range s {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	slices.Sort(out)
	return out
}
