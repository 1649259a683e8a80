// Package bundle opens and writes the files anefix works on: MLIR text,
// bare MLIR bytecode, .aimodel directories, LLM bundle directories and
// stdin/stdout. It detects the input kind by content, refuses paths that
// escape a bundle, verifies main.hash, and writes outputs atomically (a
// temporary sibling renamed into place only when complete).
//
// It never parses IR: the caller reads Input.Text or Input.File with a codec
// and hands Write an Encoder that produces the main file, so the codecs and
// this package stay independent.
package bundle
