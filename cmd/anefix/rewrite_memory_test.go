package main

import (
	"io"
	"runtime"
	"testing"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes/ane"
	"github.com/anefix/anefix/passes/rewrite"
)

// TestRewriteVerdictBytesPerOp bounds what rewrite's verdict on its output
// keeps per op of issue 28's chain (funcChain) once check's report is
// handed to it, beyond the parsed module, and the bytes allocated per op
// from the hand-over to the end of the printed summary, counted (not
// timed). Before, the summary's blockers were every group at once as a
// message: with 20,000 ops, kept 250 bytes an op, allocated 1,028. Now
// they are made one at a time as the summary prints them (rwCheckText):
// 173 and 825 (the report's findings stay instead, 12 bytes a finding
// orders them).
func TestRewriteVerdictBytesPerOp(t *testing.T) {
	const n = 20_000
	m, _, err := mlirtext.Parse("chain.mlir", funcChain(n))
	if err != nil {
		t.Fatal(err)
	}
	ld := &modelio.Loaded{Module: m, Input: &bundle.Input{Kind: bundle.KindText}}
	var parsed, before, held, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&parsed)
	res := &rewrite.Result{}
	if res.Check, err = ane.CheckWith(m, ane.Options{NoHazards: true}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&before)
	rep, blockers := rewriteReportOf(&rewriteFlags{}, "chain.mlir", ld, res, 0, false)
	runtime.GC()
	runtime.ReadMemStats(&held)
	writeRewriteSummary(io.Discard, rep, blockers, false)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(rep)
	runtime.KeepAlive(m)
	kept := float64(held.HeapAlloc-parsed.HeapAlloc) / n
	alloc := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("check's report %.0f bytes an op; the verdict keeps %.0f, allocated %.0f", float64(before.HeapAlloc-parsed.HeapAlloc)/n, kept, alloc)
	if kept > 200 {
		t.Errorf("the verdict keeps %.0f bytes an op; the bound is 200", kept)
	}
	if alloc > 920 {
		t.Errorf("the verdict and the summary allocated %.0f bytes an op; the bound is 920", alloc)
	}
}
