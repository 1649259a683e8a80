// Package aimodelc reads compiled packages (<name>.<arch>.aimodelc
// directories written by `coreai-build compile`) and says where each entry
// function runs and where it was asked to run.
//
// What the layout is, and where each fact comes from:
//
//   - main-<arch>.mlirb, main.hash, metadata.json, stats.json: seen in the
//     three real packages under ../shared/corpus/apple-compiled (written by
//     coreai-build-3600.67.5.8.1).
//   - main-<arch>-delegates/MPSGraph/mpsExecutable.mpsgraphpackage/ with
//     manifest.plist (an XML property list whose "Optimized Modules" keys
//     are JSON strings), original_model_0.mpsgraph and
//     specialized_model_<N>.mpsgraph (MLIR bytecode; regions are symbols
//     <fn>_<k>_<TYPE>_region_<i> called with #placement.region_type<TYPE>):
//     seen in the same packages. Every real package there is GPU-placed.
//   - ANE region directories <fn>_ANE_region_<i>_<j>.bc/ holding
//     <arch>/<…>.mlir.bc and <…>.bc.weights, one region however many files:
//     taken from public build scripts only (no public package shows a real
//     ANE region tree), so this reader looks for them anywhere in the
//     package and every test built on that layout says it is a stand-in.
//
// A count is reported only with the evidence it came from; when two sources
// disagree the package says so and the count is marked unknown rather than
// picked. The manifest is decoded by graph/plist within its limits and may
// hold any value anywhere: stateful packages list dictionaries among the
// entry function attributes (coreai-facts §0), read as the function's
// states; a value of another shape is a Problem, never a guess.
package aimodelc
