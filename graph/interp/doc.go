// Package interp executes coreai.graph and func.func functions on the CPU:
// the reference numerics behind `anefix verify`.
//
// Numerics follow the IR's types. f32 values are computed and stored in
// float32; f16 (and bf16) values are stored as the exact half value in a
// float32 and rounded to nearest-even after every op. Elementwise arithmetic
// is computed in float32 (for two halves that is correctly rounded), the
// transcendental functions in float64 and rounded once to the result type.
// Reductions, matmul and conv form each product in float32 and accumulate in
// float32 sequentially in index order (Options.AccumulateF16 rounds the
// running sum to half after each addition instead, to emulate a narrow
// datapath; the Neural Engine's real accumulator width is not public).
// testdata/numpy/gen.py defines the same conventions for the numpy
// reference vectors the tests compare against.
//
// Weights (dense_resource constants) are read from their blobs on demand and
// used in place by matmul, conv and gather; only small constants are widened
// to float32. Pair runs a reference and a candidate together, so a conv or
// matmul applying the same weight bytes in both runs once over both graphs'
// streams.
//
// A new op, both numerics profiles: (1) graph/coreaiop/table.go, if it is a
// new coreai op: its row (TestOpRowsMatchCoreaiop then fails until this
// package has it too); (2) ops.go: one row in opRows (name, aliases, group,
// how it runs; an elementwise op carries its function, an op a Neural
// Engine rule changes lists the rules and its ane kernel); (3) only for a
// new kernel, fooOp(c opCall) in its family's file. TestZooAgainstNumpy
// fails until testdata/numpy/gen.py has a case for it in zoo() (or it is
// listed as having no numpy equivalent).
package interp
