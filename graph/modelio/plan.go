package modelio

import (
	"fmt"
	"github.com/anefix/anefix/graph/nearest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/bytecode"
)

// UsageError is a refusal that the flags alone cause (--emit,
// --bytecode-version): the command line is wrong, not a file.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// CheckFlags vets --emit and --bytecode-version before any input is read
// (version 0 = the input's).
func CheckFlags(emit string, version int) error {
	if err := checkEmitValue(emit); err != nil {
		return err
	}
	if version < 0 || version > bytecode.MaxVersion {
		return usagef("--bytecode-version %d: want 1 to %d", version, bytecode.MaxVersion)
	}
	return nil
}

// BytecodeVersions are --bytecode-version's values (0, the default, keeps
// the input's).
func BytecodeVersions() []string {
	var out []string
	for v := 1; v <= bytecode.MaxVersion; v++ {
		out = append(out, strconv.Itoa(v))
	}
	return out
}

// Forms are --emit's values.
func Forms() []string { return []string{FormGeneric, FormPretty, FormBytecode} }

func checkEmitValue(emit string) error {
	if emit == "" || slices.Contains(Forms(), emit) {
		return nil
	}
	return usagef("--emit %q: want generic, pretty or bytecode%s", emit, nearest.Hint(emit, Forms(), ""))
}

// CheckAbsent applies bundle.CheckExisting to an output before its input
// is read: found before the work rather than after minutes of it on a
// large model (PlanOutput checks the output's full shape once the input
// is read, bundle.Write again when it commits). The kind is known from
// the extension, or not yet.
func CheckAbsent(dst string, force bool) error {
	var kind bundle.Kind // not known yet
	switch strings.ToLower(filepath.Ext(strings.TrimRight(dst, "/"))) {
	case ".aimodel":
		kind = bundle.KindAIModel // or an LLM bundle: a directory either way
	case ".mlirb":
		kind = bundle.KindBytecode
	case ".mlir":
		kind = bundle.KindText
	}
	// A file where the extension says a directory goes, or the other way
	// round, is refused now: its shape does not depend on the input.
	if fi, err := os.Lstat(dst); err == nil && kind != 0 && kind.IsDir() != fi.IsDir() {
		if err := bundle.CheckReplace(dst, kind, nil); err != nil {
			return err
		}
	}
	return bundle.CheckExisting(dst, 0, nil, force)
}

// Plan is what Save writes, decided once before the work: the output's
// kind and encoding, with the flags that chose them.
type Plan struct {
	Dst             string
	Kind            bundle.Kind
	Form            string // FormGeneric, FormPretty or FormBytecode
	Emit            string
	BytecodeVersion int
	Force           bool
}

// PlanOutput vets dst against its input src (nil for a model made from
// nothing, such as synth's) and the flags, and decides what Save writes.
// It refuses, as a UsageError, an --emit the output cannot hold (text into
// an .aimodel or .mlirb, bytecode into a .mlir file, which would otherwise
// silently get text) and --bytecode-version on a text output; with force,
// an existing output of another shape (bundle.CheckReplace).
func PlanOutput(dst string, src *Loaded, emit string, version int, force bool) (*Plan, error) {
	if err := checkEmitValue(emit); err != nil {
		return nil, err
	}
	kind := outputKind(dst, src, emit)
	if dst != "" && emit != "" {
		switch {
		case emit != FormBytecode && kind != bundle.KindText:
			return nil, usagef("--emit %s: the output %s (%s) holds MLIR bytecode; write text to a .mlir path or - instead", emit, dst, kind)
		case emit == FormBytecode && kind == bundle.KindText:
			return nil, usagef("--emit bytecode: the output %s is a .mlir text file; write bytecode to a .mlirb or .aimodel path or - instead", dst)
		}
	}
	if version != 0 && kind == bundle.KindText {
		return nil, usagef("--bytecode-version %d: the output %s is MLIR text, not bytecode", version, dst)
	}
	var in *bundle.Input
	if src != nil {
		in = src.Input
	}
	if err := bundle.CheckExisting(dst, kind, in, force); err != nil {
		return nil, err
	}
	p, err := plan(dst, src, emit)
	if err != nil {
		return nil, err
	}
	p.BytecodeVersion, p.Force = version, force
	return p, nil
}

// plan decides the kind and the encoding of dst (the rules of outputKind,
// then the form: text keeps the input's text form, every other kind holds
// bytecode).
func plan(dst string, src *Loaded, emit string) (*Plan, error) {
	if emit != "" && emit != FormGeneric && emit != FormPretty && emit != FormBytecode {
		return nil, fmt.Errorf("unknown output form %q (want generic, pretty or bytecode)", emit)
	}
	kind := outputKind(dst, src, emit)
	form := emit
	if kind == bundle.KindText {
		if form == "" || form == FormBytecode {
			form = FormGeneric
			if src != nil && src.Form == FormPretty {
				form = FormPretty
			}
		}
	} else {
		if form == FormGeneric || form == FormPretty {
			return nil, fmt.Errorf("output %s is a %s, which holds MLIR bytecode; write text to a .mlir path or '-' instead of --emit %s", dst, kind, form)
		}
		form = FormBytecode
	}
	return &Plan{Dst: dst, Kind: kind, Form: form, Emit: emit}, nil
}

// RefuseTerminal refuses, as a UsageError, MLIR bytecode for stdout ("-o
// -") when stdout is a terminal: the bytes would garble it and help no one.
// Text (--emit generic or pretty) may go to a terminal.
func (p *Plan) RefuseTerminal(stdoutIsTerminal bool) error {
	if p.Dst != "-" || p.Form != FormBytecode || !stdoutIsTerminal {
		return nil
	}
	return usagef("-o - would write MLIR bytecode (binary) to the terminal; redirect stdout (> model.mlirb, or | another command), use -o FILE, or --emit pretty for text")
}

// Save writes m as the plan says; src is the input the plan was made for.
// The plan's Emit, Force and BytecodeVersion replace opts'.
func (p *Plan) Save(m *graph.Module, src *Loaded, opts SaveOptions) (*bundle.Result, error) {
	opts.Emit, opts.Force, opts.BytecodeVersion = p.Emit, p.Force, p.BytecodeVersion
	return save(p, m, src, opts)
}
