//go:generate go test -run TestShippedTestdata -update .

// Package synth generates faithful stand-ins for the Core AI exports the
// seed note measured (README "Calibration"), because nobody can run
// coreai-torch here: the community iOS builder's Qwen3.5 hybrid `main`
// (arms A, B, C; D is A after the rewrite's own arm-d pass, which passes/synthd
// supplies: this package sits below passes)
// and Apple's dense Qwen3 iOS control with 19 static functions (arm E).
//
// The graphs use the ops, operand conventions, state contract and
// location shape coreai-torch emits (testdata/mlir/coreai/README.md):
// each op's location names its torch FX node (`_to_copy_12`, `add_40`) and
// its Python stack, so the recurrence's fp32 casts sit at
// models/macos/qwen3_5.py:199 under qwen3_5_ios.py:290 and the residual
// adds at qwen3_5_ios.py:330–333 as in the seed's compiler log. Variants:
// states as !coreai.handle/!coreai.token (StateHandle) and the recurrence
// as a gated_delta_update composite (RecurrenceComposite). The recurrence
// reads its state as coreai-torch's gated_delta_update composite does,
// with an elementwise multiply and a sum over dim -2 (stateReadSum, the
// default), or with batch matmuls (StateReadMatmul, synth's structure
// before issue 13).
//
// Weights are deterministic pseudo-random fp16 with realistic scales,
// stored as dense_resource blobs backed by generators (Blob), so a
// full-scale module (about 1.5 GB of weights) is written by streaming and
// never held in memory. Same Options, same module, same bytes.
//
// testdata/synth ships the tiny arms as .aimodel directories, exactly what
// `anefix synth --arm X -o testdata/synth/armX.aimodel` writes; regenerate
// them with `go generate ./graph/synth` (a test fails when they are stale).
//
// Expected says what anefix's default rewrite must make of an arm, from
// the builder's own parameters (graph/synth/expect): the property tests in
// cmd/anefix compare the rewrite's output with it.
package synth
