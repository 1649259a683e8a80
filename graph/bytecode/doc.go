// Package bytecode reads and writes MLIR bytecode (the format of an
// .aimodel's main.mlirb), versions 0 to 6, losslessly and without loading
// resource blobs.
//
//	m, src, err := bytecode.Read(f, size, "main.mlirb")   // f: io.ReaderAt
//	… passes change m …
//	err = bytecode.Write(w, m, bytecode.WriteOptions{Source: src})
//
// Reading decodes the builtin dialect's attributes, types and locations into
// the graph IR's typed forms. What anefix cannot model stays encoded:
// textual attributes and types of other dialects become graph.OpaqueAttr /
// graph.OpaqueType, custom-encoded ones (and builtin kinds without a graph
// form) become encodedAttr / encodedType, and op properties in a registered
// op's own layout become NativeProps — except func.func, func.call and
// builtin.module, whose MLIR 19 and MLIR 22 layouts are decoded into a
// properties dictionary (the layout named by the producer's MLIR release,
// else the one the blob fits; see props.go; RegisterNativeLayout adds others
// once confirmed). Properties a pass gives a registered op of unknown layout
// are written as attributes, which MLIR moves into the properties when it
// reads them. Dialect attributes used as locations become graph.DialectLoc.
// The top-level op is the module whatever its name (Apple's files have
// mps.module, aicode.serialization.asset); dialect version entries are
// carried unchanged.
//
// Writing with the Source keeps the input's string, dialect, op-name,
// attribute, type, property and resource tables in their order and only
// appends to them, so every index inside an encoding anefix carries opaquely
// stays valid, and an unchanged module is written back byte for byte.
// Attributes and types are immutable: one that is the very value Read
// produced keeps its table entry; a new one is encoded and deduplicated
// against the existing entries. Use-list orders are kept for values whose
// uses did not change. An op with opaque native properties that a pass
// changed (operands, results, regions, successors), or that would have to
// be written at a version with other properties rules, is refused with an
// error wrapping errNeedsGeneric that names the op.
//
// Resources are never read into memory: each blob becomes a
// graph.SectionBlob over the input, and Write streams it to the output (with
// CopyRange(*os.File, off, n) when the output offers it, as graph/bundle's
// writer does, so the kernel copies the bytes). Malformed input gives a
// *formatError with the byte offset; lengths and counts are checked against
// the bytes that remain before anything is allocated.
package bytecode
