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

// checkOutputFlags vets --emit and --bytecode-version before any input is
// read (0 = the input's version).
func checkOutputFlags(emit string, version int) error {
	if err := checkEmit("", nil, emit); err != nil {
		return err
	}
	if version < 0 || version > 6 {
		return usagef("--bytecode-version %d: want 1 to 6", version)
	}
	return nil
}

// checkOutput vets an output against its input (src is nil for synth)
// before any work: --emit the output cannot hold, --bytecode-version on a
// text output, and with --force an existing output of another shape.
func checkOutput(out string, src *modelio.Loaded, emit string, version int, force bool) error {
	if err := checkEmit(out, src, emit); err != nil {
		return err
	}
	kind := modelio.OutputKind(out, src, emit)
	if version != 0 && kind == bundle.KindText {
		return usagef("--bytecode-version %d: the output %s is MLIR text, not bytecode", version, out)
	}
	if force {
		var in *bundle.Input
		if src != nil {
			in = src.Input
		}
		return bundle.CheckReplace(out, kind, in)
	}
	return nil
}
