package anefacts

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

// TestIslandsBytesPerOp counts the heap Islands allocates per op on issue
// 28's chain (every op an i32 "t.o" reading the previous one: one non-ANE
// island of n ops), graph.FloatIslands' union-find included. Before (commit
// 2d00e98): 232 bytes an op at 20,000 ops, of which a set of every value
// met (about 59) and All and Vals grown by append (37 each); now 114: a
// value defined by an earlier op of the graph is known to be met without a
// set, and All and Vals are made at their counted size (8 bytes each).
// What is left is FloatIslands' union-find map and value list (about 97).
func TestIslandsBytesPerOp(t *testing.T) {
	const n = 20_000
	var b strings.Builder
	b.WriteString("module {\n  func.func @main(%arg0: i32) -> i32 {\n    %0 = \"t.o\"(%arg0) : (i32) -> i32\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "    %%%d = \"t.o\"(%%%d) : (i32) -> i32\n", i, i-1)
	}
	fmt.Fprintf(&b, "    return %%%d : i32\n  }\n}\n", n-1)
	m, _, err := mlirtext.Parse("chain.mlir", b.String())
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Module(m, graph.StateOptions{})
	if err != nil || len(fs) != 1 {
		t.Fatalf("Module: %d graphs, %v", len(fs), err)
	}
	f := fs[0]
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	is := f.Islands()
	runtime.ReadMemStats(&after)
	if len(is) != 1 || len(is[0].All) != n || len(is[0].Vals) != n+1 {
		t.Fatalf("got %d islands, want one of %d ops and %d values", len(is), n, n+1)
	}
	perOp := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("Islands allocated %.0f bytes an op", perOp)
	if perOp > 130 {
		t.Errorf("Islands allocated %.0f bytes an op, want at most %d", perOp, 130)
	}
}
