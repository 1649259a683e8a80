package compiler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/aimodelc"
)

// A run whose .aimodelc does not settle its regions is a failure, not a
// number; one that exited 0 without writing a package too.
func TestSettled(t *testing.T) {
	unsettled := &Result{Command: []string{"cc"}, Package: &aimodelc.Package{
		Problems:  []string{"manifest.plist is not a property list"},
		Functions: []*aimodelc.Function{{Name: "f", Disagreements: []string{"2 entries but 1 directory"}}},
	}}
	for _, c := range []struct {
		res  *Result
		want string
	}{
		{unsettled, "cannot be counted (manifest.plist is not a property list; 2 entries but 1 directory)"},
		{&Result{Command: []string{"cc"}}, "exited 0 but wrote no .aimodelc"},
		{&Result{Command: []string{"cc"}, Package: &aimodelc.Package{}, RegionsKnown: true}, ""},
	} {
		err := c.res.Settled()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
}

func TestRegionsByGraphLongestPrefix(t *testing.T) {
	pkg := &aimodelc.Package{Functions: []*aimodelc.Function{
		{Name: "f_2_abc", ANE: aimodelc.Count{N: 1, Known: true}},
		{Name: "f_xyz", ANE: aimodelc.Count{N: 2, Known: true}},
		{Name: "f", ANE: aimodelc.Count{N: 1, Known: true}},
		{Name: "other_q", ANE: aimodelc.Count{N: 5, Known: true}},
		{Name: "g_u", ANE: aimodelc.Count{N: 7}}, // unknown: adds nothing
	}}
	for _, c := range []struct {
		pkg  *aimodelc.Package
		want string
	}{
		{pkg, "f:3 f_2:1 g:0"},
		{nil, "f:0 f_2:0 g:0"},
	} {
		got := RegionsByGraph(c.pkg, []string{"f", "f_2", "g"})
		var parts []string
		for _, n := range []string{"f", "f_2", "g"} {
			parts = append(parts, fmt.Sprintf("%s:%d", n, got[n]))
		}
		if strings.Join(parts, " ") != c.want || len(got) != 3 {
			t.Errorf("got %v, want %s", got, c.want)
		}
	}
}
