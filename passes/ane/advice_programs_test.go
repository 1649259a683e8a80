package ane

import (
	"fmt"
	"testing"

	"github.com/anefix/anefix/graph"
)

// entryFunctions is a module of n entry graphs of one exp each and a
// private composite that is no entry.
func entryFunctions(n int) *graph.Module {
	m := expChain(nil, "helper", "private", 1, false).m
	for i := 0; i < n; i++ {
		g := newGraph(m, fmt.Sprintf("extend_%d", i), "", port{"x", tensor(graph.F16, 1, 8), ""})
		g.out(g.invoke("helper", []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 8)), "y")
	}
	return m
}

func TestAdvicePrograms(t *testing.T) {
	testRule(t, advicePrograms, []ruleCase{
		{name: "129 entry functions", build: func() *graph.Module { return entryFunctions(129) },
			want: []string{"module: 129 entry functions, above 128"}},
		{name: "128 entry functions", build: func() *graph.Module { return entryFunctions(128) }, want: nil},
	})
}
