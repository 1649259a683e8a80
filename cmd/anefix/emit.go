package main

import (
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
)

// checkEmit refuses an --emit value that the output cannot hold, as a
// usage error before any work: text into an .aimodel or .mlirb (bytecode
// kinds), or bytecode into a .mlir file (which would otherwise silently get
// text). src is the loaded input (nil for synth).
func checkEmit(out string, src *modelio.Loaded, emit string) error {
	switch emit {
	case "", modelio.FormGeneric, modelio.FormPretty, modelio.FormBytecode:
	default:
		return usagef("--emit %q: want generic, pretty or bytecode", emit)
	}
	if out == "" || emit == "" {
		return nil
	}
	k := modelio.OutputKind(out, src, emit)
	switch {
	case emit != modelio.FormBytecode && k != bundle.KindText:
		return usagef("--emit %s: the output %s (%s) holds MLIR bytecode; write text to a .mlir path or - instead", emit, out, k)
	case emit == modelio.FormBytecode && k == bundle.KindText:
		return usagef("--emit bytecode: the output %s is a .mlir text file; write bytecode to a .mlirb or .aimodel path or - instead", out)
	}
	return nil
}
