// Package graph is anefix's in-memory model of an MLIR module: operations of
// any dialect, values with use-def chains, blocks, regions, types, attributes,
// locations and resources, plus typed views (coreai.graph / func.func) and a
// verifier. It knows nothing about files, passes or the command line.
package graph
