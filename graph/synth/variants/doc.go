// Package variants generates structural variants of a small Qwen3.5-style
// hybrid (gated-delta linear attention plus full attention), to test anefix
// on graphs shaped unlike the ones it was built on (testdata/synth).
//
// It is independent of graph/synth's builder on purpose: it writes MLIR text
// itself, in the printed form coreai-torch's tests pin
// (tests/ops/test_ops_ir.py, tests/test_stateful.py, tests/composite_ops/),
// so none of synth's choices (stacked states, one naming convention, casts
// at one place, one graph name) carry over. Every case is one point of a
// product of axes (Axes): the state form, the naming convention of the state
// ports, the recurrence inline or in a private composite graph, where the
// fp32 casts sit, the encoding (printed or generic text, bytecode, .aimodel),
// the entry graphs' names, the location style and how the conv window is
// shifted. All lists every case, Sample a deterministic subset that covers
// every axis value.
//
// What follows the public sources and what is a guess:
//   - Op spellings, operand orders and printed forms follow coreai-torch's
//     tests and coreai_torch/_aten_to_core.py's lowerings: a sum without
//     keepdim is reduce_sum then shrink_dims, SiLU is sigmoid then multiply,
//     negation is a multiply by -1, a slice's unsliced dimensions end at
//     INT32_MAX, an embedding is expand_dims then gather_nd, an invoke prints
//     two spaces before its colon.
//   - The recurrence follows coreai_torch/composite_ops/_gated_delta_update.py
//     (l2 norm, fp32 casts of q, k, v, β, g and the state, exp(g) decay,
//     state reads as multiply then sum over dim -2) for one decode step. The
//     real composite loops over the sequence with coreai.while; a decode step
//     has one position, and anefix's interpreter does not run while, so the
//     loop body is written once (a guess at what the traced step holds).
//   - States in the attribute form name their output like the buffer
//     (MutableBuffers.buffer_mutation), in the handle form the output is a
//     token of that name (tests/test_stateful.py). Plain pairs carry names
//     of the chosen convention; KV caches are always states.
//   - The #debuginfo.location body is anefix's guess
//     (testdata/mlir/coreai/debuginfo_locs.mlir); file and line numbers of
//     the other location style are made up.
//   - Weights are small deterministic fp16 values in dense_resource blobs,
//     so verify can run every case.
//
// Text and generic text, bytecode and .aimodel encodings are made from the
// printed text with anefix's own readers and writers (graph/mlirtext,
// graph/modelio): a case checks the pipeline on a form, not the codecs.
//
// Each case's Expect says what anefix's default rewrite must make of it,
// from its axes (expected.go): the property tests compare with it.
package variants
