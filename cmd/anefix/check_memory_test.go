package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes/ane"
)

// funcChain is issue 28's chain (a stand-in written here): a public
// func.func of n unregistered ops, each reading the one before, so that
// every op is a finding of its own (no lowering, on its own line).
func funcChain(n int) string {
	var b strings.Builder
	b.WriteString("module {\n  func.func @main(%arg0: i32) -> i32 {\n    %0 = \"t.o\"(%arg0) : (i32) -> i32\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "    %%%d = \"t.o\"(%%%d) : (i32) -> i32\n", i, i-1)
	}
	fmt.Fprintf(&b, "    return %%%d : i32\n  }\n}\n", n-1)
	return b.String()
}

// TestCheckBytesPerOp bounds what check's rule model and its text report
// hold per op of issue 28's chain beyond the parsed module, counted (not
// timed) as the heap kept by the report and its schema message together
// (what lives at once while the text is printed), and the bytes allocated
// per op by the rules, the conversion and the printing. Before (commit
// 1ebcd44), with 20,000 ops: kept 886 bytes an op, allocated 5,255; now
// 600 and 3,566 (no message per finding for the text report, no copy of a
// single graph's findings, no map per illegal op, groups made by sorting
// instead of a map and a list grown by append). Then (commit 02f94a8)
// 600 and 3,495; now 493 and 2,747 (Via, Fix and Log out of each
// finding, ops breaking the same rules share one list, islands built
// without a map from op to values, the text handed on in chunks). Then
// (commit f43ab4a) 464 and 2,689, with the groups held once as the rule
// model's and once as messages; now 244 and 2,525: the text report is the
// message without its groups (checkSummary) and the groups are made and
// printed one at a time from the findings (textGroups), so what is kept is
// the report's findings and verdicts and 12 bytes a finding to order them.
// Then 222 and 1,996: no-lowering reserves its findings before reporting
// them (no append growth) and makes its detail once per dialect.
func TestCheckBytesPerOp(t *testing.T) {
	const n = 20_000
	m, _, err := mlirtext.Parse("chain.mlir", funcChain(n))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rep, _, err := ane.CheckInput(m, "chain.mlir", ane.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msg := checkSummary(rep, false)
	gs := textGroups(rep)
	runtime.GC()
	var held runtime.MemStats
	runtime.ReadMemStats(&held)
	if err := writeCheckText(io.Discard, msg, gs, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(rep)
	runtime.KeepAlive(msg)
	runtime.KeepAlive(m)
	kept := float64(held.HeapAlloc-before.HeapAlloc) / n
	alloc := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("kept %.0f bytes an op, allocated %.0f", kept, alloc)
	if kept > 260 {
		t.Errorf("the report and its message keep %.0f bytes an op; the bound is 260", kept)
	}
	if alloc > 2200 {
		t.Errorf("check allocated %.0f bytes an op; the bound is 2200", alloc)
	}
}
