package passes

import (
	"regexp"
	"slices"
	"testing"
)

// An option whose parser (its codec and check) takes only a closed set of
// values must declare them as Values, the one place completion, anefix
// passes and PASSES.md read them from. The parser itself tells a closed
// set from an open one: an int option is closed when it refuses a huge
// value of either sign (a bounded range); a string or list option is
// closed when it refuses every probe of the shapes open values have (a
// made-up word, a name with '_' or '.', a glob, an op id, negative,
// fractional and huge numbers) and yet takes a word its doc names. A bool
// is always true or false, and completion offers both. Every declared
// value must be taken and a made-up word refused.
func TestClosedSetsDeclareValues(t *testing.T) {
	openProbes := []string{"zq", "x_1", "conv_state", "q.k", "a*b", "id:sdpa_*", "-3", "-100", "0.5", "1000000"}
	docWord := regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9_.-]*`)
	closedFound := 0
	for _, p := range append(slices.Clone(table), settingGroups...) {
		for _, x := range p.Func.bind(p.Func.fresh()).list {
			in := x.info()
			takes := func(s string) bool { return x.set(s) == nil }
			if len(in.Values) > 0 {
				closedFound++
				for _, v := range in.Values {
					if !takes(v) {
						t.Errorf("%s.%s: declared value %q is refused", p.Name, in.Name, v)
					}
				}
				if takes("zq-not-a-value") {
					t.Errorf("%s.%s: declares values %q but takes a made-up word", p.Name, in.Name, in.Values)
				}
				continue
			}
			closed := false
			switch {
			case in.Kind == "bool":
			case in.Kind == "int":
				closed = !takes("1073741824") && !takes("-1073741824")
			default:
				closed = !slices.ContainsFunc(openProbes, takes) && slices.ContainsFunc(docWord.FindAllString(in.Doc, -1), takes)
			}
			if closed {
				t.Errorf("%s.%s: its parser takes a closed set of values, but the option declares no Values (doc: %q)", p.Name, in.Name, in.Doc)
			}
		}
	}
	if closedFound == 0 {
		t.Error("no option declares values: the check above never ran")
	}
}
