package bundle

import (
	"fmt"
	"strings"
)

// OutputKind chooses what Write produces from the input, the output path
// and the --emit value ("" to mirror the input, "bytecode", "generic",
// "pretty"; generic and pretty differ only in the caller's encoder):
//
//   - "-" is always a single file: text for generic/pretty, bytecode for
//     bytecode, otherwise the input's single-file kind (bytecode for a
//     directory input).
//   - generic/pretty give a text file.
//   - a path ending in ".aimodel" gives an .aimodel (text cannot go there).
//   - otherwise the input's kind, with bytecode turning a text input into
//     a bytecode file.
func OutputKind(src *Input, dst, emit string) (Kind, error) {
	switch emit {
	case "", "bytecode", "generic", "pretty":
	default:
		return KindUnknown, fmt.Errorf("unknown --emit %q: use bytecode, generic or pretty", emit)
	}
	text := emit == "generic" || emit == "pretty"
	srcKind := KindUnknown
	if src != nil {
		srcKind = src.Kind
	}
	switch {
	case dst == "-":
		switch {
		case text:
			return KindText, nil
		case emit == "bytecode" || srcKind.IsDir() || srcKind == KindUnknown:
			return KindBytecode, nil
		}
		return srcKind, nil
	case strings.HasSuffix(strings.TrimRight(dst, "/"), ".aimodel"):
		if text {
			return KindUnknown, fmt.Errorf("output %s: an .aimodel holds MLIR bytecode; use --emit bytecode or an output path not ending in .aimodel", dst)
		}
		return KindAIModel, nil
	case text:
		return KindText, nil
	case srcKind == KindUnknown:
		return KindBytecode, nil
	case emit == "bytecode" && srcKind == KindText:
		return KindBytecode, nil
	}
	return srcKind, nil
}
