// Package passes holds anefix's rewrite passes and the table that lists
// them. A pass receives a module and its options and returns what it
// changed; it never opens a file and never prints (cmd/anefix does).
//
// Each pass is one file (strip_fp32_casts.go, fold_io_unsqueeze.go, …) that
// describes it (an About) and holds its function; table.go lists every pass
// in pipeline order with its ordering constraints, in one place.
//
// A new pass with two typed options (say foo, options limit and mode):
//
//  1. passes/foo.go: var fooAbout = About{Summary, Doc, Addresses}; type
//     fooOptions struct{ Limit int; Mode string } with a declare(d *Decls)
//     method calling Declare(d, &o.Limit, Option[int]{Name: "limit",
//     Default: 8, Doc: …, Check: …}) and Declare(d, &o.Mode,
//     Option[string]{Name: "mode", Default: "fast", Doc: …, Values:
//     []string{"fast", "exact"}}) (a name=k list takes Codec: ListCodec(…));
//     and func foo(m *graph.Module, o *fooOptions) (*Change, error), with
//     ctx *Context first if it reads the states.* settings or the shared
//     analyses (ctx.States, ctx.IslandBlockers). The body never re-checks
//     its options: Pass.Run checks even a hand-built struct. What it did to
//     the interface goes in the Change's record.Entries (graph/record),
//     which anefix.json and verify carry.
//  2. table.go: one row, {Name: "foo", Func: bind[fooOptions](foo), About:
//     fooAbout}, with Requires for the analyses it reads and Preserves for
//     those it leaves valid (TestPreservedAnalyses checks them against a
//     fresh analysis), and Constraints if it must run before or after
//     another pass (not for dce, which declares that it runs last).
//  3. Tests: passes/foo_test.go and a golden case (testdata/passes/foo.mlir,
//     regenerated with -update); then go test ./cmd/anefix -run
//     TestPassesDoc -update writes PASSES.md.
//
// Nothing in cmd, proto or bisect changes: --set foo.limit=…,
// --print-pipeline/--pipeline, the round-trip property test and bisect's
// change plan pick the options up, and TestEveryPassListed fails if the row
// is forgotten. A palette's group is read with LUTGroup, the one definition
// palettize and check's lut4-small-group rule share.
package passes
