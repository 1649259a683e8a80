package bisect

import (
	"fmt"
	"slices"
	"testing"

	"github.com/anefix/anefix/passes/probe"
)

// oracle is good when a set holds every change of one of the needs, skip
// when it holds a change of skip.
type oracle struct {
	needs [][]int
	skip  []int
	asked int
}

func (o *oracle) test(sets [][]int) ([]probe.Outcome, error) {
	out := make([]probe.Outcome, len(sets))
	for i, s := range sets {
		o.asked++
		out[i] = probe.Bad
		for _, x := range o.skip {
			if slices.Contains(s, x) {
				out[i] = probe.Skip
			}
		}
		if out[i] == probe.Skip {
			continue
		}
		for _, need := range o.needs {
			all := true
			for _, x := range need {
				all = all && slices.Contains(s, x)
			}
			if all {
				out[i] = probe.Good
			}
		}
	}
	return out, nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// ddMin finds the needed changes; the probe count is logged against the
// search space (2^n subsets).
func TestDDMin(t *testing.T) {
	cases := []struct {
		n     int
		needs [][]int
		skip  []int
		fixed []int
		want  []int
	}{
		{n: 8, needs: [][]int{{2, 5}}, want: []int{2, 5}},
		{n: 8, needs: [][]int{{7}}, want: []int{7}},
		{n: 1, needs: [][]int{{0}}, want: []int{0}},
		{n: 16, needs: [][]int{{0, 15}}, want: []int{0, 15}},
		{n: 16, needs: [][]int{{3, 4, 9}}, want: []int{3, 4, 9}},
		// Two ways to pass: the one ddmin meets first in batch order.
		{n: 6, needs: [][]int{{1, 3}, {4}}, want: []int{4}},
		// Sets holding 6 are answered skip (125, cannot tell): they count
		// as not good, and the sets without 6 still lead to 1.
		{n: 8, needs: [][]int{{1}}, skip: []int{6}, want: []int{1}},
		// fixed changes are applied to every set and not returned.
		{n: 6, needs: [][]int{{2, 9}}, fixed: []int{9}, want: []int{2}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.n, c.needs, c.skip), func(t *testing.T) {
			o := &oracle{needs: c.needs, skip: c.skip}
			got, found, err := ddMin(seq(c.n), c.fixed, true, o.test)
			if err != nil || !found {
				t.Fatal(found, err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			t.Logf("%d changes (2^%d subsets): %d probes", c.n, c.n, o.asked)
		})
	}
}

// Started from a set the test cannot tell on (here: any set holding both
// 0 and 7 is skipped, as a candidate with two values of one option is
// never built), ddmin splits further instead of giving up, and finds the
// needed changes; when no subset passes it says so (found false, no set).
func TestDDMinUnresolvedStart(t *testing.T) {
	skipBoth := func(o *oracle) tester {
		return func(sets [][]int) ([]probe.Outcome, error) {
			out, err := o.test(sets)
			for i, s := range sets {
				if slices.Contains(s, 0) && slices.Contains(s, 7) {
					out[i] = probe.Skip
				}
			}
			return out, err
		}
	}
	for _, c := range []struct {
		needs [][]int
		want  []int
	}{
		{[][]int{{2, 5}}, []int{2, 5}},
		{[][]int{{7, 3}}, []int{3, 7}},
		{[][]int{{0, 1, 6}}, []int{0, 1, 6}},
		{nil, nil}, // nothing passes
	} {
		o := &oracle{needs: c.needs}
		got, found, err := ddMin(seq(8), nil, false, skipBoth(o))
		if err != nil {
			t.Fatal(err)
		}
		if found != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("needs %v: got %v (found %v), want %v", c.needs, got, found, c.want)
		}
		t.Logf("needs %v from an unresolved start: %d questions", c.needs, o.asked)
	}
	// Everything skipped: not found, and every single change was asked.
	o := &oracle{skip: seq(8)}
	if got, found, _ := ddMin(seq(8), nil, false, o.test); found || got != nil {
		t.Errorf("all skipped: %v %v", got, found)
	}
}

// The same questions in the same order every time.
func TestDDMinDeterministic(t *testing.T) {
	var first [][]int
	for range 3 {
		var asked [][]int
		o := &oracle{needs: [][]int{{3, 11}}}
		_, _, err := ddMin(seq(13), nil, true, func(sets [][]int) ([]probe.Outcome, error) {
			asked = append(asked, sets...)
			return o.test(sets)
		})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = asked
		} else if fmt.Sprint(first) != fmt.Sprint(asked) {
			t.Fatal("questions differ between runs")
		}
	}
}

func TestSplit(t *testing.T) {
	for n := 1; n <= 7; n++ {
		parts := Split(seq(7), n)
		var all []int
		for _, p := range parts {
			if len(p) == 0 {
				t.Errorf("n=%d: empty part", n)
			}
			all = append(all, p...)
		}
		if len(parts) != n || !slices.Equal(all, seq(7)) {
			t.Errorf("n=%d: %v", n, parts)
		}
	}
}
