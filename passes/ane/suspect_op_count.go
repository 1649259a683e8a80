package ane

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// maxOpsMeasured is the largest function a published compile placed on the
// Neural Engine where a larger one failed: 18,101 MIL ops passed and 21,656
// failed (suspectOpCount's Evidence). Where between the two the limit lies
// is not measured; the rule reports above the pass.
const maxOpsMeasured = 18101

// suspectOpCount: an entry function with more compute ops than the largest
// function a published compile placed on the Neural Engine.
var suspectOpCount = &Rule{
	ID:    "suspect.function-op-count",
	Title: "more ops in one function than any measured Neural Engine compile that passed",
	Message: fmt.Sprintf("UNCONFIRMED: the function holds more than %d,%03d compute ops (constants and weight decompression "+
		"not counted, each composite counted at every call, as the compiler inlines it); under Core ML a 21,656-op "+
		"function failed to load on an A16's Neural Engine (error -14) where an 18,101-op one loaded",
		maxOpsMeasured/1000, maxOpsMeasured%1000),
	Evidence: "slimwangyue/Anemll tests/dev/ane_limit_matrix.md (Qwen3.5-4B prefill chunks, coremltools 9.0, Core ML on an " +
		"iPhone 14 Pro Max, A16, iOS 26.5 beta): 18,101 MIL ops load on the Neural Engine, 21,656 fail with error -14 and no " +
		"CPU fallback, 21,920 fail too; on an M1 Ultra a 21,922-op function failed the Neural Engine compile and fell back to " +
		"the CPU. The source counts MIL ops, weight constants included, and notes that 6-bit LUT weights replace a constant " +
		"one for one (no added ops). Not coreai-build: no coreai-build compile of so large a function is on record, and which " +
		"coreai-build --architecture an A16 is is not on record either, so this is a suspect under every architecture. " +
		"Counted here: ops other than constants, weight decompression (ops whose first operand is compressed storage, " +
		"coreaiop.Storage) and settings, through calls; guess: the threshold is the measured pass, the limit lies somewhere " +
		"up to the measured failure, and counting without constants reports later than the source's count would",
	Severity: suspect,
	Experiment: "compile the function alone on a Mac (anefix compile --require-ane) and count its regions; if it gets none, " +
		"split it into functions below the count (the source's fix was more, smaller chunks)",
	Requires: []*fact{factModule},
	Run:      runOpCount,
}

func runOpCount(p *Pass) {
	if !p.Entry {
		return
	}
	mod := p.module()
	if n := mod.computeOpCount(p.G.Name()); n > maxOpsMeasured {
		p.ReportPort("function @"+p.G.Name(), fmt.Sprintf("%d compute ops, above %d", n, maxOpsMeasured))
	}
}

// computeOpCount counts the ops of graph name the compiler turns into
// work: not constants, not weight decompression, not ops that only build
// settings or compressed storage, not the terminator; a call counts as its
// callee's ops (memoized per module, so a composite called from many
// places is counted once; a call cycle counts nothing the second time).
func (m *moduleRun) computeOpCount(name string) int {
	if n, ok := m.computeOps[name]; ok {
		return max(n, 0)
	}
	f := m.byName[name]
	if f == nil || !f.HasBody() {
		return 0
	}
	if m.computeOps == nil {
		m.computeOps = map[string]int{}
	}
	m.computeOps[name] = -1
	n := 0
	for _, op := range f.Ops {
		if callee, ok := graph.Callee(op); ok {
			n += m.computeOpCount(callee)
			continue
		}
		if isComputeOp(f, op) {
			n++
		}
	}
	m.computeOps[name] = n
	return n
}

func isComputeOp(f *anefacts.Graph, op *graph.Operation) bool {
	if op == f.Term || op.Name == "coreai.constant" || (op.NumOperands() > 0 && anefacts.IsStorageSlot(op, 0)) {
		return false
	}
	if op.NumResults() == 0 {
		return true
	}
	for _, r := range op.Results() {
		if !f.ParamOnly[r] && !f.Storage[r] {
			return true
		}
	}
	return false
}
