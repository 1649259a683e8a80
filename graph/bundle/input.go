package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kind is the shape of an input or output.
type Kind int

const (
	kindUnknown Kind = iota
	// KindText is a single MLIR text file (generic or printed form).
	KindText
	// KindBytecode is a single MLIR bytecode file.
	KindBytecode
	// KindAIModel is an .aimodel directory: main.mlirb, main.hash,
	// metadata.json and anything else.
	KindAIModel
	// KindLLMBundle is a directory whose metadata.json names an .aimodel in
	// assets.main, next to tokenizer/ and other files.
	KindLLMBundle
)

func (k Kind) String() string {
	switch k {
	case KindText:
		return "mlir-text"
	case KindBytecode:
		return "mlir-bytecode"
	case KindAIModel:
		return "aimodel"
	case KindLLMBundle:
		return "llm-bundle"
	}
	return "unknown"
}

// IsDir reports whether the kind is a directory.
func (k Kind) IsDir() bool { return k == KindAIModel || k == KindLLMBundle }

// Accepted says what anefix reads, for every "not a model" refusal (here
// and graph/modelio's sniffing).
const Accepted = "anefix reads an .aimodel directory, an LLM bundle directory (metadata.json beside its .aimodel), MLIR bytecode (.mlirb) or MLIR text (.mlir)"

// Magic is the first four bytes of every MLIR bytecode file ("MLïR").
var Magic = []byte{0x4D, 0x4C, 0xEF, 0x52}

// Names of the files inside an .aimodel and an LLM bundle.
const (
	mainFile     = "main.mlirb"
	hashFile     = "main.hash"
	metadataFile = "metadata.json"
	// RecordFile is anefix's own record of a rewrite (pipeline, I/O changes,
	// promoted states), written beside main.mlirb in the .aimodel. It is a
	// file of its own rather than a key in metadata.json because that file
	// is Apple's (producer, assetVersion, creationDate, sourceHash, written
	// by coreai-core and coreai-build) and whether Apple's runtime tolerates
	// an extra key there is not known; so metadata.json is carried over
	// byte for byte. Whether the runtime minds an extra file in the
	// directory is not known either (a guess that it ignores it: a file is
	// easier to delete than a key to strip).
	RecordFile = "anefix.json"
)

// Limits on small files read whole, so a hostile bundle cannot make anefix
// allocate without bound.
const (
	maxMetadataSize = 64 << 20
	maxHashFileSize = 4 << 10
)

// OpenOptions tune Open.
type OpenOptions struct {
	// IgnoreHash turns a main.hash mismatch into a warning.
	IgnoreHash bool
	// DeferHash verifies main.hash in the background so that it overlaps
	// with decoding; the result is collected by Input.CheckHash, which Write
	// calls before it commits an output.
	DeferHash bool
	// Stdin is read when the path is "-"; nil means os.Stdin.
	Stdin io.Reader
	// Warn, when set, receives each warning as it happens (they are also
	// kept in Input.Warnings).
	Warn func(msg string)
	// Progress, when set, is where a progress bar for long work (hashing a
	// large main.mlirb) is drawn; it is drawn only when it is a terminal.
	Progress *os.File
}

// Entry is one file, directory or symbolic link inside an input directory
// that an output of the same kind carries over.
type Entry struct {
	// Rel is the slash-separated path relative to Input.Root.
	Rel  string
	Mode os.FileMode // type bits and permissions from Lstat
	Size int64
	// Link is, for a symbolic link, the slash-separated path of its target
	// relative to Input.Root (checked to stay inside it).
	Link string
	// listed is the Lstat of the entry when the input was opened
	// (CheckUnchanged).
	listed os.FileInfo
}

// hashCheck is the outcome of comparing main.hash with main.mlirb.
type hashCheck struct {
	Checked bool   // main.hash existed and was compared
	Matches bool   // the SHA-256 of main.mlirb equals main.hash
	Want    string // the digest main.hash holds, as lower-case hex
	Got     string // hex SHA-256 of main.mlirb
	// Form is how main.hash spelled the digest (hashNone when there was no
	// usable main.hash); an output's main.hash is written in the same form.
	Form hashForm
}

// Input is an opened input. Close it when done.
type Input struct {
	// Path is the path the user gave ("-" for stdin).
	Path string
	Kind Kind
	// Bytecode reports whether the main file is MLIR bytecode (by magic);
	// otherwise it is text.
	Bytecode bool
	// Root is the resolved absolute path of the input directory (the
	// .aimodel or the LLM bundle); empty for single files.
	Root string
	// AIModelDir is the resolved absolute path of the .aimodel directory
	// (Root for an .aimodel, the asset for an LLM bundle).
	AIModelDir string
	// AssetMain is assets.main as written in an LLM bundle's metadata.json.
	AssetMain string
	// MainPath is the resolved path of the file holding the IR, or "-".
	MainPath string
	// File is the opened main file (also for stdin, spooled to an unlinked
	// temporary file), positioned at 0; use it as an io.ReaderAt with Size.
	File *os.File
	Size int64
	// Text is the whole main file when it is text; nil for bytecode.
	Text []byte
	// Metadata is the raw metadata.json of the .aimodel (nil when absent).
	Metadata []byte
	// BundleMetadata is the raw metadata.json of an LLM bundle.
	BundleMetadata []byte
	// Entries lists everything inside Root, sorted, for outputs that carry
	// the other files over.
	Entries []Entry
	Hash    hashCheck
	// Warnings collects warnings, such as an ignored hash mismatch.
	Warnings []string

	opts    OpenOptions
	hasher  *fileHasher // nil when there is no main.hash to verify
	hashErr error
	hashed  bool
	// opened is the main file as it was when opened (CheckUnchanged).
	opened os.FileInfo
}

// CheckUnchanged reports whether the main file is still the one opened,
// as it was: same size, modification and change times, and still the file
// at its path; and so is every other file and symbolic link of an input
// directory, as listed when it was opened (metadata.json, weights, …,
// which an output re-encodes or copies). Write calls it once the output is
// complete, before the commit: a file rewritten in place while anefix read
// it would give an output mixing two versions, with a main.hash that
// matches it. Nil and stdin inputs pass.
func (in *Input) CheckUnchanged() error {
	if in == nil || in.opened == nil || in.File == nil || in.MainPath == "-" {
		return nil
	}
	name := in.Path
	if in.Kind.IsDir() {
		name = displayJoin(in.Path, in.AssetMain, mainFile)
	}
	now, err := in.File.Stat()
	if err != nil {
		return fmt.Errorf("input %s: %w", DisplayName(name), err)
	}
	at, err := os.Stat(in.MainPath)
	if err != nil || !os.SameFile(at, now) {
		at = nil
	}
	if what := fileChanges(in.opened, now, at != nil); len(what) > 0 {
		return changedErr(name, what)
	}
	for _, e := range in.Entries {
		p := filepath.Join(in.Root, filepath.FromSlash(e.Rel))
		if e.listed == nil || e.Mode.IsDir() || p == in.MainPath {
			continue // a directory's own times change with any file made in it
		}
		now, err := os.Lstat(p)
		var what []string
		if err != nil {
			what = []string{"it was removed"}
		} else {
			what = fileChanges(e.listed, now, os.SameFile(e.listed, now))
		}
		if len(what) > 0 {
			return changedErr(displayJoin(in.Path, e.Rel), what)
		}
	}
	return nil
}

// fileChanges lists how a file differs from what it was (both from stat;
// same: it is still the file at its path).
func fileChanges(was, now os.FileInfo, same bool) []string {
	var what []string
	if now.Size() != was.Size() {
		what = append(what, fmt.Sprintf("its size went from %d to %d bytes", was.Size(), now.Size()))
	}
	if !now.ModTime().Equal(was.ModTime()) {
		what = append(what, fmt.Sprintf("it was modified at %s", now.ModTime().Format(time.RFC3339Nano)))
	}
	if !same {
		what = append(what, "another file took its place or it was removed")
	}
	if len(what) == 0 && changeTime(now) != changeTime(was) {
		what = append(what, "its status changed (written to, renamed or removed)")
	}
	return what
}

func changedErr(name string, what []string) error {
	return fmt.Errorf("input %s changed while anefix read it (%s), so the output would mix two versions of it; nothing is written: run again once nothing writes to it",
		DisplayName(name), strings.Join(what, ", "))
}

type hashResult struct {
	sum string
	err error
	own int64 // see teeHasher.own
}

// Open detects what path is by content and opens it; see Kind.
func Open(path string, opts OpenOptions) (*Input, error) {
	in := &Input{Path: path, opts: opts}
	var err error
	if path == "-" {
		err = in.openStdin()
	} else {
		err = in.openPath()
	}
	if err != nil {
		in.Close()
		return nil, err
	}
	return in, nil
}

// Close releases the main file. It does not wait for a deferred hash check.
func (in *Input) Close() error {
	if in.File == nil {
		return nil
	}
	err := in.File.Close()
	in.File = nil
	return err
}

func (in *Input) warn(msg string) {
	in.Warnings = append(in.Warnings, msg)
	if in.opts.Warn != nil {
		in.opts.Warn(msg)
	}
}

func (in *Input) openStdin() error {
	r := in.opts.Stdin
	if r == nil {
		r = os.Stdin
	}
	// Spool to an unlinked temporary file: bytecode needs random access and
	// a large model must not be held in memory.
	f, err := os.CreateTemp("", "anefix-stdin-*")
	if err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	os.Remove(f.Name())
	in.File = f
	// Look at the start before spooling the rest: something that is neither
	// bytecode (magic) nor text (no NUL bytes) is refused at once instead of
	// being copied to disk, so `anefix inspect - < /dev/zero` fails rather
	// than filling /tmp.
	head := make([]byte, 64<<10)
	hn, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fmt.Errorf("reading stdin: %w", err)
	}
	head = head[:hn]
	if hn == 0 {
		return errors.New("stdin is empty: pipe an MLIR text or bytecode file into anefix")
	}
	if !bytes.HasPrefix(head, Magic) && bytes.IndexByte(head, 0) >= 0 {
		return fmt.Errorf("stdin is neither MLIR bytecode (it does not start with the magic 4D 4C EF 52) nor MLIR text (byte %d is NUL): pipe an MLIR text or bytecode file into anefix", bytes.IndexByte(head, 0))
	}
	if _, err := f.Write(head); err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	prog := terminalProgress(in.opts.Progress, "reading <stdin>", stdinSize(r))
	prog.Add(int64(hn))
	_, err = io.Copy(f, prog.Reader(r))
	prog.Done()
	if err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	in.MainPath = "-"
	return in.loadMain("stdin")
}

// stdinSize is the length of stdin when it is redirected from a file, for
// the bar's total; 0 (unknown: the bar counts bytes) for a pipe, whose
// length is known only when it ends.
func stdinSize(r io.Reader) int64 {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return 0
}

func (in *Input) openPath() error {
	if in.Path == "" {
		return errors.New("empty input path")
	}
	abs, err := filepath.Abs(in.Path)
	if err != nil {
		return err
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("input %s: %w", in.Path, err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return fmt.Errorf("input %s: %w", in.Path, err)
	}
	switch {
	case fi.Mode().IsRegular():
		f, err := os.Open(resolved)
		if err != nil {
			return fmt.Errorf("input %s: %w", in.Path, err)
		}
		in.File = f
		in.MainPath = resolved
		return in.loadMain(in.Path)
	case fi.IsDir():
		return in.openDir(resolved)
	default:
		return fmt.Errorf("input %s is neither a regular file nor a directory (mode %v)", in.Path, fi.Mode().Type())
	}
}

// openDir tells an .aimodel (has main.mlirb) from an LLM bundle (has a
// metadata.json with assets.main).
func (in *Input) openDir(root string) error {
	in.Root = root
	if _, err := os.Lstat(filepath.Join(root, mainFile)); err == nil {
		in.Kind = KindAIModel
		in.AIModelDir = root
	} else {
		meta, err := readInside(root, metadataFile, maxMetadataSize)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("input %s is a directory but neither an .aimodel (no %s) nor an LLM bundle (no %s); %s", in.Path, mainFile, metadataFile, Accepted)
		}
		if err != nil {
			return fmt.Errorf("input %s: %w", in.Path, err)
		}
		asset, err := assetsMain(meta)
		if errors.Is(err, errNoAssetsMain) {
			return fmt.Errorf("input %s has no %s, so it is not an .aimodel, and its %s has no \"assets\": {\"main\": ...} entry, so it is not an LLM bundle either; an .aimodel needs its %s", in.Path, mainFile, metadataFile, mainFile)
		}
		if err != nil {
			return fmt.Errorf("input %s: %s: %w", in.Path, metadataFile, err)
		}
		dir, err := resolveInside(root, asset)
		if err != nil {
			return fmt.Errorf("input %s: %s: assets.main: %w", in.Path, metadataFile, err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("input %s: %s: assets.main %q is not a directory inside the bundle", in.Path, metadataFile, asset)
		}
		in.Kind = KindLLMBundle
		in.BundleMetadata = meta
		in.AssetMain = asset
		in.AIModelDir = dir
	}
	entries, err := walk(root)
	if err != nil {
		return fmt.Errorf("input %s: %w", in.Path, err)
	}
	in.Entries = entries

	aiRel, err := filepath.Rel(root, in.AIModelDir)
	if err != nil {
		return err
	}
	name := filepath.Join(aiRel, mainFile)
	mainPath, err := resolveInside(root, filepath.ToSlash(name))
	if err != nil {
		return fmt.Errorf("input %s: %w", in.Path, err)
	}
	f, err := os.Open(mainPath)
	if err != nil {
		return fmt.Errorf("input %s: %w", in.Path, err)
	}
	in.File = f
	in.MainPath = mainPath
	meta, err := readInside(root, filepath.ToSlash(filepath.Join(aiRel, metadataFile)), maxMetadataSize)
	switch {
	case err == nil:
		in.Metadata = meta
	case errors.Is(err, os.ErrNotExist):
		in.warn(fmt.Sprintf("%s has no %s", displayJoin(in.Path, in.AssetMain), metadataFile))
	default:
		return fmt.Errorf("input %s: %w", in.Path, err)
	}
	if err := in.loadMain(displayJoin(in.Path, in.AssetMain, mainFile)); err != nil {
		return err
	}
	return in.startHash(aiRel)
}

// loadMain sniffs the main file and, for text, reads it.
func (in *Input) loadMain(display string) error {
	fi, err := in.File.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", display)
	}
	in.Size = fi.Size()
	in.opened = fi
	head := make([]byte, len(Magic))
	n, err := in.File.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return fmt.Errorf("reading %s: %w", display, err)
	}
	in.Bytecode = n == len(Magic) && bytes.Equal(head, Magic)
	switch {
	case in.Size == 0 && (in.Kind.IsDir() || filepath.Ext(display) == ".mlirb"):
		// MLIR text may be empty (an empty module), but no model is.
		return fmt.Errorf("%s is empty (0 bytes), so it holds no model; export or copy it again", display)
	case n > 0 && int64(n) == in.Size && n < len(Magic) && bytes.Equal(head[:n], Magic[:n]):
		return fmt.Errorf("%s is %d byte(s), the start of the MLIR bytecode magic 4D 4C EF 52 and nothing more: a truncated file; export or copy it again", display, n)
	}
	if in.Kind == kindUnknown {
		in.Kind = KindText
		if in.Bytecode {
			in.Kind = KindBytecode
		}
	}
	if !in.Bytecode {
		if in.Kind.IsDir() {
			in.warn(fmt.Sprintf("%s is not MLIR bytecode (no magic 4D 4C EF 52); reading it as MLIR text", display))
		}
		in.Text = make([]byte, in.Size)
		if _, err := in.File.ReadAt(in.Text, 0); err != nil && err != io.EOF {
			return fmt.Errorf("reading %s: %w", display, err)
		}
	}
	return nil
}

var errNoAssetsMain = errors.New(`no "assets": {"main": "<name>.aimodel"} entry, so this is not an LLM bundle`)

// assetsMain extracts assets.main from an LLM bundle's metadata.json.
func assetsMain(meta []byte) (string, error) {
	var m struct {
		Assets map[string]json.RawMessage `json:"assets"`
	}
	if err := json.Unmarshal(meta, &m); err != nil {
		return "", fmt.Errorf("not valid JSON: %w", err)
	}
	raw, ok := m.Assets["main"]
	if !ok {
		return "", errNoAssetsMain
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("assets.main is not a string: %s", raw)
	}
	return s, nil
}

func displayJoin(parts ...string) string {
	var nonEmpty []string
	for _, p := range parts {
		if p != "" {
			nonEmpty = append(nonEmpty, p)
		}
	}
	return filepath.Join(nonEmpty...)
}
