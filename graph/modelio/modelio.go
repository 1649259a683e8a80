// Package modelio opens any input anefix accepts (.aimodel directory, LLM
// bundle, bytecode file, MLIR text, stdin) as a *graph.Module and writes a
// module back in the input's kind or a chosen one. It is the only place that
// joins graph/bundle (files) with the codecs (graph/mlirtext,
// graph/bytecode), so commands never decide formats themselves.
package modelio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/bytecode"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/record"
)

// Forms a module can be written in.
const (
	FormGeneric  = "generic"
	FormPretty   = "pretty"
	FormBytecode = "bytecode"
)

// LoadOptions tune Load.
type LoadOptions struct {
	// IgnoreHash turns a main.hash mismatch into a warning.
	IgnoreHash bool
	// Stdin is read for the path "-" (nil: os.Stdin).
	Stdin io.Reader
	// Warn receives warnings as they happen.
	Warn func(string)
	// Progress is where long work may draw a bar (only when a terminal).
	Progress *os.File
}

// Loaded is an opened input and its module. The module's blob resources
// point into the input file, so keep Loaded open while the module is used
// or written, then Close it.
type Loaded struct {
	Module *graph.Module
	Input  *bundle.Input
	// Form is the form the input used: generic, pretty or bytecode.
	Form string
	// Bytecode is the bytecode reader's record of the input (nil for text);
	// writing with it keeps the input's tables and encodings.
	Bytecode *bytecode.Source
	// irBytes is about what the main file holds besides blobs, for the
	// progress total of a write (mainSizeEstimate).
	irBytes int64
}

// ReadOnly drops what only writing the module back would reuse (the
// bytecode reader's tables), for commands that never write it: the module
// and the description of the input stay.
func (l *Loaded) ReadOnly() {
	l.Bytecode = l.Bytecode.Described()
}

// TextName is the name the text reader gave the input: the file of the
// locations MLIR gives ops written without one (their position in the
// text). "<stdin>" for "-".
func (l *Loaded) TextName() string { return displayName(l.Input) }

// Close releases the input file.
func (l *Loaded) Close() error {
	if l == nil || l.Input == nil {
		return nil
	}
	return l.Input.Close()
}

// Load opens path and decodes its module.
func Load(path string, opts LoadOptions) (*Loaded, error) {
	in, err := bundle.Open(path, bundle.OpenOptions{
		IgnoreHash: opts.IgnoreHash, Stdin: opts.Stdin, Warn: opts.Warn, Progress: opts.Progress, DeferHash: true,
	})
	if err != nil {
		return nil, err
	}
	ld := &Loaded{Input: in}
	name := displayName(in)
	if in.Bytecode {
		m, src, err := bytecode.Read(in.File, in.Size, name)
		if err != nil {
			in.Close()
			return nil, err
		}
		ld.Module, ld.Bytecode, ld.Form = m, src, FormBytecode
		ld.irBytes = max(0, in.Size-blobBytes(m, FormBytecode))
		return ld, nil
	}
	// The parser reads a string; converting in.Text would copy the whole
	// file. bundle.Open does not write in.Text after reading it, and nothing
	// here does, so the string may share its bytes.
	text := unsafe.String(unsafe.SliceData(in.Text), len(in.Text))
	// Parsing a large text (hex blobs: twice the weights) takes seconds.
	bar := bundle.NewBar(opts.Progress, "parsing "+filepath.Base(name), int64(len(text)))
	m, form, err := mlirtext.ParseProgress(name, text, func(pos int) { bar.Set(int64(pos)) })
	bar.Done()
	if err != nil {
		in.Close()
		if msg, binary := notModel(name, in.Text); binary {
			return nil, errors.New(msg)
		} else if msg != "" {
			return nil, fmt.Errorf("%s\n(parsing it as MLIR text: %w)", msg, err)
		}
		return nil, err
	}
	ld.Module = m
	ld.Form = FormGeneric
	if form == mlirtext.FormPretty {
		ld.Form = FormPretty
	}
	ld.irBytes = max(0, in.Size-blobBytes(m, ld.Form))
	return ld, nil
}

func displayName(in *bundle.Input) string {
	switch {
	case in.Path == "-":
		return "<stdin>"
	case in.Kind.IsDir():
		return filepath.Join(in.Path, strings.TrimPrefix(in.MainPath, in.Root+string(filepath.Separator)))
	}
	return in.Path
}

// SaveOptions tune Save.
type SaveOptions struct {
	// Emit chooses the encoding: "" keeps the input's (bytecode for
	// directory outputs), or generic, pretty, bytecode.
	Emit string
	// Force replaces an existing output.
	Force bool
	// Stdout receives the output for dst "-".
	Stdout io.Writer
	// Files adds or replaces files in a directory output (see
	// bundle.WriteOptions.Files).
	Files map[string][]byte
	// Record, when set, is anefix's record of the rewrite that made m
	// (graph/record). A directory output stores it as bundle.RecordFile
	// (an .aimodel's own, an LLM bundle's in its main asset), after the
	// record the input already had (record.Record.Then), so a host learns
	// every change since the export; a single file has no place for it.
	// It is a file of its own so that Apple's metadata.json is carried
	// over byte for byte.
	Record *record.Record
	// BytecodeVersion chooses the bytecode version (0: the input's, or 6).
	BytecodeVersion int
	// Progress is where a long write may draw a bar (only when a terminal).
	Progress *os.File
	// Beside gives the files committed with the output, both or neither
	// (bundle.WriteOptions.Beside).
	Beside func(*bundle.Result) ([]bundle.SideFile, error)
}

// outputKind decides what dst will be: the input's kind for a directory
// input written to a path without a telling extension, else by extension
// (.aimodel, .mlirb, .mlir), else a single file like the input.
func outputKind(dst string, src *Loaded, emit string) bundle.Kind {
	ext := strings.ToLower(filepath.Ext(strings.TrimRight(dst, "/")))
	switch {
	case dst == "-":
		if emit == FormGeneric || emit == FormPretty {
			return bundle.KindText
		}
		if emit == FormBytecode || src == nil || src.Input.Kind.IsDir() || src.Form == FormBytecode {
			return bundle.KindBytecode
		}
		return bundle.KindText
	case ext == ".aimodel":
		if src != nil && src.Input.Kind == bundle.KindLLMBundle {
			return bundle.KindLLMBundle
		}
		return bundle.KindAIModel
	case ext == ".mlirb":
		return bundle.KindBytecode
	case ext == ".mlir":
		return bundle.KindText
	}
	if src != nil {
		if src.Input.Kind.IsDir() {
			return src.Input.Kind
		}
		if emit == FormBytecode || emit == "" && src.Form == FormBytecode {
			return bundle.KindBytecode
		}
		if emit == FormGeneric || emit == FormPretty {
			return bundle.KindText
		}
		return src.Input.Kind
	}
	if emit == FormGeneric || emit == FormPretty {
		return bundle.KindText
	}
	return bundle.KindBytecode
}

// Save writes m to dst. src (may be nil) is the input it came from: its
// other bundle files are carried over and, for bytecode, its tables kept.
func Save(dst string, m *graph.Module, src *Loaded, opts SaveOptions) (*bundle.Result, error) {
	p, err := plan(dst, src, opts.Emit)
	if err != nil {
		return nil, err
	}
	return save(p, m, src, opts)
}

func save(p *Plan, m *graph.Module, src *Loaded, opts SaveOptions) (*bundle.Result, error) {
	dst, kind, form := p.Dst, p.Kind, p.Form
	files := opts.Files
	if opts.Record != nil {
		var err error
		if files, err = withRecord(files, kind, src, *opts.Record); err != nil {
			return nil, err
		}
	}
	// Checked whole before a byte is written, so what anefix writes it can
	// read back; a module that fails leaves no output.
	if err := graph.VerifyWritable(m); err != nil {
		where := dst
		if dst == "-" {
			where = "stdout"
		}
		return nil, fmt.Errorf("the model to write is not complete, so nothing is written to %s: %w", where, err)
	}
	var enc bundle.Encoder
	if form == FormBytecode {
		wo := bytecode.WriteOptions{Version: opts.BytecodeVersion}
		if src != nil {
			wo.Source = src.Bytecode
		}
		enc = func(w io.Writer) error { return bytecode.Write(w, m, wo) }
	} else {
		tf := mlirtext.FormGeneric
		if form == FormPretty {
			tf = mlirtext.FormPretty
		}
		enc = func(w io.Writer) error { return mlirtext.Write(w, m, tf) }
		if src != nil && src.Input != nil && src.Form != FormBytecode && src.Input.Text != nil {
			// Text from text ends as its input did (no newline, one, or a
			// blank line), so an unchanged file in anefix's printed form
			// converted to that form comes back byte for byte.
			want := len(src.Input.Text) - len(bytes.TrimRight(src.Input.Text, "\n"))
			enc = func(w io.Writer) error {
				nl := &finalNewlines{w: w}
				if err := mlirtext.Write(nl, m, tf); err != nil {
					return err
				}
				return nl.end(want)
			}
		}
	}
	var in *bundle.Input
	if src != nil {
		in = src.Input
	}
	if kind == bundle.KindAIModel && (in == nil || in.Metadata == nil) {
		// An .aimodel made from a single file still needs metadata.json.
		if _, given := files["metadata.json"]; !given {
			files = withFile(files, "metadata.json", []byte(defaultMetadata))
		}
	}
	return bundle.Write(dst, kind, in, enc, bundle.WriteOptions{
		Force: opts.Force, Stdout: opts.Stdout, Progress: opts.Progress, Files: files, Beside: opts.Beside,
		MainSize: mainSizeEstimate(m, src, form),
	})
}

// mainSizeEstimate is about what the main file of m will take, for the
// write's progress bar: m's blobs as they will be written, plus what the
// input's main file held besides its blobs. The input's size alone is wrong
// by the compression a rewrite did (palettize to 4 bits: the bar stopped
// near 25 %).
func mainSizeEstimate(m *graph.Module, src *Loaded, form string) int64 {
	n := blobBytes(m, form)
	if src != nil {
		n += src.irBytes
	}
	return n
}

// blobBytes is what m's blobs take in a main file of form: their bytes,
// or two hex digits each in text.
func blobBytes(m *graph.Module, form string) int64 {
	var n int64
	for _, r := range m.Resources {
		if r.Blob != nil {
			n += r.Blob.Size()
		}
	}
	if form != FormBytecode {
		n *= 2
	}
	return n
}

// withRecord adds rec, after the input's own record, to files as the
// RecordFile of a directory output of kind.
func withRecord(files map[string][]byte, kind bundle.Kind, src *Loaded, rec record.Record) (map[string][]byte, error) {
	var rel string
	switch {
	case kind == bundle.KindAIModel:
		rel = bundle.RecordFile
	case kind == bundle.KindLLMBundle && src != nil && src.Input.AssetMain != "":
		rel = strings.TrimSuffix(src.Input.AssetMain, "/") + "/" + bundle.RecordFile
	default:
		return files, nil
	}
	var prevDir string
	if src != nil {
		prevDir = src.Input.AIModelDir
	}
	prev, err := bundle.ReadRecord(prevDir)
	if err != nil {
		return nil, err
	}
	all := prev.Then(rec)
	b, err := all.Encode()
	if err != nil {
		return nil, err
	}
	return withFile(files, rel, b), nil
}

// finalNewlines passes writes through but holds back the newlines that
// end them until more text follows; end writes n newlines in their place.
type finalNewlines struct {
	w    io.Writer
	held int
}

func (f *finalNewlines) Write(p []byte) (int, error) {
	body := bytes.TrimRight(p, "\n")
	if len(body) > 0 {
		if err := f.flush(f.held); err != nil {
			return 0, err
		}
		if _, err := f.w.Write(body); err != nil {
			return 0, err
		}
		f.held = 0
	}
	f.held += len(p) - len(body)
	return len(p), nil
}

func (f *finalNewlines) flush(n int) error {
	if n == 0 {
		return nil
	}
	_, err := f.w.Write(bytes.Repeat([]byte{'\n'}, n))
	return err
}

// end writes the text's last newlines: n of them.
func (f *finalNewlines) end(n int) error { return f.flush(n) }

// defaultMetadata is the metadata.json written into an .aimodel that anefix
// creates from a single file (there is no author metadata to carry over).
const defaultMetadata = "{\n  \"generatedBy\": \"anefix\"\n}\n"

func withFile(files map[string][]byte, name string, data []byte) map[string][]byte {
	out := make(map[string][]byte, len(files)+1)
	for k, v := range files {
		out[k] = v
	}
	out[name] = data
	return out
}
