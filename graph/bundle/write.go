package bundle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Encoder writes the main file (MLIR bytecode or text) to w. Write buffers
// w, so the encoder may issue small writes.
type Encoder func(w io.Writer) error

// WriteOptions tune Write.
type WriteOptions struct {
	// Force replaces an existing output.
	Force bool
	// Stdout receives the output when the path is "-"; nil means os.Stdout.
	Stdout io.Writer
	// Progress, when set, is where a progress bar for long writes is drawn;
	// it is drawn only when it is a terminal.
	Progress *os.File
	// MainSize is about what the main file will take, for the progress
	// bar's total (0: as much as the input's).
	MainSize int64
	// Files adds or replaces files in a directory output, keyed by
	// slash-separated path relative to the output directory (for example
	// "metadata.json", or "<asset>.aimodel/metadata.json" in an LLM bundle).
	// Use it for files the IR change makes wrong, and to give an .aimodel
	// made from a single file its metadata.json.
	Files map[string][]byte
	// Warn receives what the write found and did beside the output (stale
	// temporaries of killed runs, see cleanStale); nil prints to stderr.
	Warn func(msg string)
	// Beside, when set, is called once the output is complete and the
	// input verified, before anything is put in place; the files it
	// returns are written and committed with the output, all or none
	// (rewrite's report, which describes the written output). Its error
	// leaves nothing written.
	Beside func(*Result) ([]SideFile, error)
}

// Result describes a written output.
type Result struct {
	// Path is the absolute path written, or "-".
	Path string
	Kind Kind
	// MainPath is the path of the written main file (equal to Path for
	// single files).
	MainPath string
	// MainSize is the size of the main file in bytes.
	MainSize int64
	// Hash is the SHA-256 of the main file as hex, written to main.hash in
	// hashForm (directory outputs only): the input's form, raw when the
	// input had no main.hash.
	Hash     string
	HashForm hashForm
}

// Write writes an output of the given kind at dst, with enc producing the
// main file. kind kindUnknown mirrors src's kind (a bytecode file when dst
// is "-" and src is a directory). src may be nil when there is no input to
// carry files over from (then an LLM bundle output is impossible).
//
// The input is never modified. Directory and file outputs are built in a
// temporary sibling of dst and renamed into place only when complete, after
// src's main.hash verification (see OpenOptions.DeferHash) has passed; on any
// error nothing is left behind. An existing dst is refused unless
// opts.Force; a dst that is the input, lies inside it or contains it is
// always refused.
//
// KindAIModel outputs must be bytecode and KindText outputs must not be: the
// first bytes the encoder writes are checked against the MLIR bytecode magic.
func Write(dst string, kind Kind, src *Input, enc Encoder, opts WriteOptions) (*Result, error) {
	if kind == kindUnknown {
		if src == nil {
			return nil, errors.New("output kind unknown: no input to mirror")
		}
		kind = src.Kind
		if dst == "-" && kind.IsDir() {
			kind = KindBytecode
		}
	}
	if dst == "" {
		return nil, errors.New("empty output path")
	}
	if dst == "-" {
		return writeStdout(kind, src, enc, opts)
	}
	if kind == KindLLMBundle && (src == nil || src.Kind != KindLLMBundle) {
		return nil, fmt.Errorf("output %s: an LLM bundle can only be written from an LLM bundle input", dst)
	}
	abs, exists, err := checkTarget(dst, src, kind.IsDir(), opts.Force, opts.Warn)
	if err != nil {
		return nil, err
	}
	vetted := statePath(abs)
	w := &writer{src: src, opts: opts, kind: kind, enc: enc}
	res, err := w.build(abs)
	if err != nil {
		w.cleanup()
		return nil, fmt.Errorf("writing %s: %w", dst, err)
	}
	if src != nil {
		if err := src.CheckHash(); err != nil {
			w.cleanup()
			return nil, err
		}
	}
	if err := src.CheckUnchanged(); err != nil {
		w.cleanup()
		return nil, err
	}
	sides, err := stageSides(res, opts)
	if err != nil {
		w.cleanup()
		return nil, err
	}
	if err := commitAll(append(sides, &staged{tmp: w.tmp, abs: abs, exists: exists, vetted: &vetted})); err != nil {
		abortAll(sides)
		w.cleanup()
		return nil, fmt.Errorf("writing %s: %w", dst, err)
	}
	w.tmp = ""
	return res, nil
}

// stageSides asks opts.Beside for the side files of a complete output and
// stages them; on error nothing staged is left.
func stageSides(res *Result, opts WriteOptions) ([]*staged, error) {
	if opts.Beside == nil {
		return nil, nil
	}
	files, err := opts.Beside(res)
	if err != nil {
		return nil, err
	}
	var out []*staged
	for _, sf := range files {
		s, err := stageSide(sf, opts.Warn)
		if err != nil {
			abortAll(out)
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func abortAll(items []*staged) {
	for _, s := range items {
		s.abort()
	}
}

func writeStdout(kind Kind, src *Input, enc Encoder, opts WriteOptions) (*Result, error) {
	if kind.IsDir() {
		return nil, fmt.Errorf("cannot write an %s to stdout; use --emit bytecode, generic or pretty with -o -", kind)
	}
	// Bytes written to a pipe cannot be taken back, so the input must be
	// verified before the first one.
	if src != nil {
		if err := src.CheckHash(); err != nil {
			return nil, err
		}
	}
	out := opts.Stdout
	if out == nil {
		out = os.Stdout
	}
	mw := newMainWriter(out, nil, kind, false, nil, nil)
	if err := safeEncode(enc, mw); err != nil {
		mw.finish()
		return nil, fmt.Errorf("writing stdout: %w", err)
	}
	if _, err := mw.finish(); err != nil {
		return nil, fmt.Errorf("writing stdout: %w", err)
	}
	if err := src.CheckUnchanged(); err != nil {
		return nil, err
	}
	res := &Result{Path: "-", Kind: kind, MainPath: "-", MainSize: mw.n}
	sides, err := stageSides(res, opts)
	if err != nil {
		return nil, err
	}
	if err := commitAll(sides); err != nil {
		abortAll(sides)
		return nil, err
	}
	return res, nil
}

// checkTarget applies the output safety rules and returns dst's absolute
// path and whether it exists.
func checkTarget(dst string, src *Input, dirOutput, force bool, warn func(string)) (string, bool, error) {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return "", false, err
	}
	if warn == nil {
		warn = stderrWarn
	}
	cleanStale(abs, warn)
	parent, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", false, fmt.Errorf("output %s: its directory %s does not exist: %w", dst, filepath.Dir(abs), err)
	}
	resolved := filepath.Join(parent, filepath.Base(abs))
	lfi, lerr := os.Lstat(abs)
	exists := lerr == nil
	if exists && lfi.Mode()&os.ModeSymlink != 0 {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			resolved = r
		}
	}
	if src != nil && src.Path != "-" {
		top := src.Root
		if top == "" {
			top = src.MainPath
		}
		same := resolved == top
		if !same && exists {
			a, err1 := os.Stat(abs)
			b, err2 := os.Stat(top)
			same = err1 == nil && err2 == nil && os.SameFile(a, b)
		}
		switch {
		case same:
			return "", false, fmt.Errorf("output %s is the input; anefix never modifies its input, choose another output path", dst)
		case src.Root != "" && within(src.Root, resolved):
			return "", false, fmt.Errorf("output %s lies inside the input %s; anefix never modifies its input, choose a path outside it", dst, src.Path)
		case within(resolved, top):
			return "", false, fmt.Errorf("output %s contains the input %s; choose another output path", dst, src.Path)
		}
	}
	if exists && !force && !(dirOutput && lfi.IsDir() && isEmptyDir(abs)) {
		return "", false, fmt.Errorf("output %s already exists; use --force to replace it", dst)
	}
	return abs, exists, nil
}

// CheckExisting is the one rule for an output path that already exists,
// checked before any work (checkTarget holds it again when writing, and
// the commit refuses a path that changed since):
//   - an empty directory, where the output is a directory (kind unknown:
//     may be), is used as it is, without --force: nothing in it is lost;
//   - a previous output of the same shape (CheckReplace) is replaced with
//     force, and without it refused with "use --force";
//   - anything else (a file where a directory goes, a directory of other
//     files, a link) is refused even with force, saying what to do, so
//     that --force is never suggested where it would be refused too.
//
// kind is the zero Kind when the input is not read yet (rewrite and reduce
// check first): then a link, a special file and (without force, which
// would otherwise be suggested) a directory holding neither main.mlirb nor
// metadata.json are refused at once; the full shape is checked once the
// input is read.
func CheckExisting(out string, kind Kind, src *Input, force bool) error {
	if out == "" || out == "-" {
		return nil
	}
	fi, err := os.Lstat(out)
	if err != nil {
		return nil // nothing there
	}
	if fi.IsDir() && (kind == kindUnknown || kind.IsDir()) && isEmptyDir(out) {
		return nil
	}
	if kind != kindUnknown {
		if err := CheckReplace(out, kind, src); err != nil {
			return err
		}
	} else if !fi.IsDir() {
		// a link or a special file is refused whatever the output's kind
		if err := CheckReplace(out, KindBytecode, nil); err != nil {
			return err
		}
	} else if !force && !regularIn(out, mainFile) && !regularIn(out, metadataFile) {
		// (with force, the full check once the input is read names the
		// first file anefix did not write)
		return fmt.Errorf("output %s is a directory that is not an anefix output (neither %s nor %s in it); anefix replaces only its own outputs, even with --force: remove it yourself, or choose another path (an empty directory is used as it is)", out, mainFile, metadataFile)
	}
	if !force {
		return fmt.Errorf("output %s already exists; use --force to replace it", out)
	}
	return nil
}

// regularIn reports whether dir holds a regular file name.
func regularIn(dir, name string) bool {
	fi, err := os.Lstat(filepath.Join(dir, name))
	return err == nil && fi.Mode().IsRegular()
}

// CheckReplace is the commands' rule for what --force may replace at out,
// checked before any work (Write itself replaces any previous output):
// only an output of the same shape, a file for a file and, for a directory
// output, a directory holding nothing but what anefix writes into an output
// of this kind from src (nil for synth): main.mlirb, main.hash,
// metadata.json and RecordFile in the .aimodel (an LLM bundle's own
// metadata.json at its root), and paths the input also has (the files
// carried over). It must hold main.mlirb (an .aimodel) or metadata.json (an
// LLM bundle). Anything else (a directory of the user's files, a previous
// output with a file added by hand, a file where a bundle goes) is refused
// even with --force, since replacing it deletes what is there.
func CheckReplace(out string, kind Kind, src *Input) error {
	if out == "" || out == "-" {
		return nil
	}
	fi, err := os.Lstat(out)
	if err != nil {
		return nil // nothing to replace
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		// Lstat: a link is neither the file nor the directory it points to,
		// and replacing it would not write where it points.
		target, _ := os.Readlink(out)
		return fmt.Errorf("output %s is a symbolic link (to %s); --force does not replace a link: remove it yourself or give the path it points to", out, target)
	case kind.IsDir() && fi.IsDir() && isEmptyDir(out):
		return nil // used as it is (CheckExisting)
	case kind.IsDir() && fi.IsDir():
		return checkReplaceDir(out, kind, src)
	case !kind.IsDir() && fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return fmt.Errorf("output %s is a directory, but this output (%s) is a single file; --force does not replace a directory with a file: remove it yourself or choose another path", out, kind)
	case kind.IsDir():
		return fmt.Errorf("output %s is a file, but this output (%s) is a directory; --force does not replace a file with a directory: remove it yourself or choose another path", out, kind)
	}
	return fmt.Errorf("output %s exists and is not a regular file or directory; choose another path", out)
}

// ownFiles are the names anefix writes into an .aimodel output.
var ownFiles = []string{mainFile, hashFile, metadataFile, RecordFile}

func checkReplaceDir(out string, kind Kind, src *Input) error {
	// allowed maps each path anefix may have written to its type.
	allowed := map[string]os.FileMode{}
	aiRel := "."
	var entries []Entry
	if src != nil && src.Kind.IsDir() {
		srcAI, err := filepath.Rel(src.Root, src.AIModelDir)
		if err != nil {
			return err
		}
		srcAI = filepath.ToSlash(srcAI)
		switch kind {
		case KindAIModel:
			if entries, err = reroot(src.Entries, srcAI); err != nil {
				entries = nil // Write will refuse the input with this error
			}
		case KindLLMBundle:
			entries, aiRel = src.Entries, srcAI
		}
	}
	for _, e := range entries {
		allowed[e.Rel] = e.Mode.Type()
	}
	for _, n := range ownFiles {
		allowed[path.Join(aiRel, n)] = 0 // a regular file
	}
	marker := mainFile
	if kind == KindLLMBundle {
		allowed[metadataFile] = 0
		allowed[aiRel] = os.ModeDir
		marker = metadataFile
	}
	what := "a previous " + kind.String() + " output"
	if foreign, err := foreignEntry(out, allowed); err != nil {
		return fmt.Errorf("output %s: %w", out, err)
	} else if foreign != "" {
		return fmt.Errorf("output %s holds %s, which is neither a file anefix writes (%s) nor one carried over from the input, so it is not %s; --force replaces only a previous output, so remove it yourself or choose another path", out, DisplayName(foreign), strings.Join(ownFiles, ", "), what)
	}
	if fi, err := os.Lstat(filepath.Join(out, marker)); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("output %s is a directory but not %s (no %s); --force replaces only a previous output, so remove it yourself or choose another path", out, what, marker)
	}
	return nil
}

// foreignEntry returns the first entry below dir (in sorted order, a
// directory before what it holds) that allowed does not list with the same
// type (a regular file, a directory or a symbolic link, which is not
// followed), or "" when there is none. A path the input has as a file but
// the output as a directory is foreign, and so is everything in it.
func foreignEntry(dir string, allowed map[string]os.FileMode) (string, error) {
	var foreign string
	var rec func(d, rel string) error
	rec = func(d, rel string) error {
		des, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, de := range des {
			r := path.Join(rel, de.Name())
			typ, ok := allowed[r]
			if !ok || typ != de.Type() {
				foreign = r
				return nil
			}
			if de.IsDir() {
				if err := rec(filepath.Join(d, de.Name()), r); err != nil || foreign != "" {
					return err
				}
			}
		}
		return nil
	}
	err := rec(dir, ".")
	return foreign, err
}

// commit renames the finished temporary output into place and stops
// tracking it. A file replaces a file by one rename; a directory (or a
// change between file and directory) is swapped in by renameat2
// RENAME_EXCHANGE where the kernel has it, so that the output path always
// names a complete output, and the previous output, now at tmp, is removed.
// Without it the previous output is moved aside (to a ".anefix-old-"
// sibling that cleanStale puts back if the process dies before the second
// rename) and restored if the second rename fails. The whole commit holds
// the signal lock (see pending), so Ctrl-C or SIGTERM cannot fall between
// its steps.
func commit(tmp, abs string, exists bool) error {
	return commitAll([]*staged{{tmp: tmp, abs: abs, exists: exists}})
}

// noExchange makes commit take the fallback path (tests of it only).
var noExchange bool

func commitLocked(tmp, abs string, exists bool) error {
	if !exists {
		return os.Rename(tmp, abs)
	}
	old, err := os.Lstat(abs)
	if err != nil {
		return os.Rename(tmp, abs)
	}
	nw, err := os.Lstat(tmp)
	if err != nil {
		return err
	}
	if !old.IsDir() && !nw.IsDir() {
		return os.Rename(tmp, abs)
	}
	if !noExchange {
		if ok, err := renameExchange(tmp, abs); ok {
			if err != nil {
				return err
			}
			// tmp now holds the previous output; it stays tracked until
			// removed, so a failure here leaves nothing a signal would not
			// remove.
			return os.RemoveAll(tmp)
		}
	}
	backup, err := os.MkdirTemp(filepath.Dir(abs), tempPattern(abs, "old"))
	if err != nil {
		return err
	}
	if err := os.Remove(backup); err != nil {
		return err
	}
	if err := os.Rename(abs, backup); err != nil {
		return err
	}
	if err := os.Rename(tmp, abs); err != nil {
		if rerr := os.Rename(backup, abs); rerr != nil {
			return fmt.Errorf("%w; the previous output is at %s", err, backup)
		}
		return err
	}
	return os.RemoveAll(backup)
}

// writer builds one output in a temporary sibling directory or file.
type writer struct {
	src  *Input
	opts WriteOptions
	kind Kind
	enc  Encoder
	tmp  string
	prog *progress
}

func (w *writer) cleanup() {
	w.prog.Done()
	if w.tmp != "" {
		os.RemoveAll(w.tmp)
		untrackTemp(w.tmp)
		w.tmp = ""
	}
}

func (w *writer) build(abs string) (*Result, error) {
	parent := filepath.Dir(abs)
	prefix := tempPattern(abs, "tmp")
	res := &Result{Path: abs, Kind: w.kind}
	if !w.kind.IsDir() {
		tmp, err := makeTemp(func() (string, error) {
			f, err := os.CreateTemp(parent, prefix)
			if err != nil {
				return "", err
			}
			return f.Name(), f.Close()
		})
		if err != nil {
			return nil, err
		}
		w.tmp = tmp
		w.startProgress(nil)
		size, _, err := w.writeMain(w.tmp, false)
		if err != nil {
			return nil, err
		}
		w.prog.Done()
		res.MainPath, res.MainSize = abs, size
		return res, nil
	}
	tmp, err := makeTemp(func() (string, error) { return os.MkdirTemp(parent, prefix) })
	if err != nil {
		return nil, err
	}
	w.tmp = tmp
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	// Which input entries to carry over, and where the .aimodel sits in the
	// output (relative to the output root).
	var entries []Entry
	aiRel := "."
	if w.src != nil && w.src.Kind.IsDir() {
		srcAI, err := filepath.Rel(w.src.Root, w.src.AIModelDir)
		if err != nil {
			return nil, err
		}
		srcAI = filepath.ToSlash(srcAI)
		switch w.kind {
		case KindAIModel:
			entries, err = reroot(w.src.Entries, srcAI)
			if err != nil {
				return nil, err
			}
		case KindLLMBundle:
			entries, aiRel = w.src.Entries, srcAI
		}
	}
	skip := map[string]bool{path.Join(aiRel, mainFile): true, path.Join(aiRel, hashFile): true}
	for rel := range w.opts.Files {
		skip[path.Clean(rel)] = true
	}
	w.startProgress(entries)
	if err := w.copyEntries(entries, skip); err != nil {
		return nil, err
	}
	if err := w.writeExtraFiles(); err != nil {
		return nil, err
	}
	mainPath := filepath.Join(tmp, filepath.FromSlash(aiRel), mainFile)
	if err := mkdirIn(tmp, filepath.Dir(mainPath), 0o755); err != nil {
		return nil, err
	}
	size, sum, err := w.writeMain(mainPath, true)
	if err != nil {
		return nil, err
	}
	form := HashRaw
	if w.src != nil && w.src.Hash.Form != hashNone {
		form = w.src.Hash.Form
	}
	hashBytes, err := formatHash(sum, form)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(mainPath), hashFile), hashBytes, 0o644); err != nil {
		return nil, err
	}
	w.prog.Done()
	res.MainPath = filepath.Join(abs, filepath.FromSlash(aiRel), mainFile)
	res.MainSize, res.Hash, res.HashForm = size, sum, form
	return res, nil
}

// reroot keeps the entries below dir (slash-separated, relative to the input
// root) and makes them relative to it.
func reroot(entries []Entry, dir string) ([]Entry, error) {
	if dir == "." {
		return entries, nil
	}
	var out []Entry
	for _, e := range entries {
		rel, ok := strings.CutPrefix(e.Rel, dir+"/")
		if !ok {
			continue
		}
		e.Rel = rel
		if e.Mode&os.ModeSymlink != 0 {
			link, ok := strings.CutPrefix(e.Link, dir+"/")
			if !ok {
				if e.Link != dir {
					return nil, fmt.Errorf("symbolic link %s/%s points outside the .aimodel (to %s); an .aimodel output cannot carry it", dir, rel, e.Link)
				}
				link = "."
			}
			e.Link = link
		}
		out = append(out, e)
	}
	return out, nil
}

func (w *writer) startProgress(entries []Entry) {
	w.prog = terminalProgress(w.opts.Progress, "writing", w.progressTotal(entries))
}

// progressTotal is the bytes a write will produce: the main file (the
// caller's estimate, else as large as the input's) plus the other files
// carried over.
func (w *writer) progressTotal(entries []Entry) int64 {
	total := w.opts.MainSize
	if total == 0 && w.src != nil {
		total = w.src.Size
	}
	for _, e := range entries {
		// The input's main file is rewritten, not copied: it is already
		// counted above.
		if e.Mode.IsRegular() && !(w.src != nil && filepath.Join(w.src.Root, filepath.FromSlash(e.Rel)) == w.src.MainPath) {
			total += e.Size
		}
	}
	return total
}

// mkdirIn creates dir and its missing parents below root, but never root
// itself: once a signal handler has removed the temporary root, a write
// still running must fail instead of recreating it (os.MkdirAll would).
func mkdirIn(root, dir string, perm os.FileMode) error {
	rel, err := filepath.Rel(root, dir)
	if err == nil && rel == "." {
		_, err := os.Lstat(root)
		return err
	}
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s is not inside %s", dir, root)
	}
	p := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		if err := os.Mkdir(p, perm); err != nil && !os.IsExist(err) {
			return err
		}
	}
	return nil
}

// copyEntries recreates the input's other files in the temporary output.
func (w *writer) copyEntries(entries []Entry, skip map[string]bool) error {
	for _, e := range entries {
		if skip[e.Rel] {
			continue
		}
		dst := filepath.Join(w.tmp, filepath.FromSlash(e.Rel))
		switch {
		case e.Mode.IsDir():
			if err := mkdirIn(w.tmp, dst, e.Mode.Perm()|0o700); err != nil {
				return err
			}
		case e.Mode&os.ModeSymlink != 0:
			// Recreate as a relative link to the same place inside the
			// bundle, so the output does not point into the input.
			target, err := filepath.Rel(filepath.Dir(filepath.FromSlash(e.Rel)), filepath.FromSlash(e.Link))
			if err != nil {
				return err
			}
			if err := os.Symlink(target, dst); err != nil {
				return err
			}
		case e.Mode.IsRegular():
			if err := copyFile(w.src.Root, e.srcRel(w), dst, e.Mode.Perm(), w.prog); err != nil {
				return err
			}
		}
	}
	return nil
}

// srcRel maps an entry (possibly rerooted to the .aimodel) back to its path
// relative to the input root.
func (e Entry) srcRel(w *writer) string {
	if w.kind == KindAIModel && w.src.Kind == KindLLMBundle {
		dir, _ := filepath.Rel(w.src.Root, w.src.AIModelDir)
		return path.Join(filepath.ToSlash(dir), e.Rel)
	}
	return e.Rel
}

func (w *writer) writeExtraFiles() error {
	names := make([]string, 0, len(w.opts.Files))
	for rel := range w.opts.Files {
		names = append(names, rel)
	}
	sort.Strings(names)
	for _, rel := range names {
		local := filepath.FromSlash(rel)
		if !filepath.IsLocal(local) {
			return fmt.Errorf("extra output file %q must be a relative path inside the output", rel)
		}
		p := filepath.Join(w.tmp, local)
		if err := mkdirIn(w.tmp, filepath.Dir(p), 0o755); err != nil {
			return err
		}
		// Remove first: it may have been carried over as a symbolic link.
		os.Remove(p)
		if err := os.WriteFile(p, w.opts.Files[rel], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeMain runs the encoder into p, hashing on the side when asked.
func (w *writer) writeMain(p string, hash bool) (int64, string, error) {
	// No O_TRUNC: on ext4 (auto_da_alloc) opening with O_TRUNC makes close
	// wait for the whole file's writeback, ~0.6 s for a 1.5 GB main.mlirb,
	// half the rewrite time. p is a fresh temporary; truncate only if not.
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return 0, "", err
	} else if fi.Size() > 0 {
		if err := f.Truncate(0); err != nil {
			return 0, "", err
		}
	}
	if err := f.Chmod(0o644); err != nil {
		return 0, "", err
	}
	var src *fileHasher
	if w.src != nil {
		src = w.src.hasher
	}
	mw := newMainWriter(f, f, w.kind, hash, src, w.prog)
	encErr := safeEncode(w.enc, mw)
	sum, err := mw.finish()
	if encErr == nil {
		encErr = err
	}
	if encErr != nil {
		return 0, "", encErr
	}
	if err := f.Close(); err != nil {
		return 0, "", err
	}
	return mw.n, sum, nil
}

func safeEncode(enc Encoder, out io.Writer) (err error) {
	// An encoder bug must not leave a half-written output or crash the
	// process mid-rename.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in the encoder: %v", r)
		}
	}()
	if enc == nil {
		return errors.New("no encoder")
	}
	return enc(out)
}

// copyFile copies the regular file rel of root (opened by OpenMember: not
// through a link, not a FIFO swapped in) into a new file with the given
// permissions; the kernel copies the bytes where it can (copy_file_range),
// and holes stay holes (copyContent).
func copyFile(root, rel, dst string, perm os.FileMode, prog *progress) error {
	in, fi, err := OpenMember(root, rel)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm|0o200)
	if err != nil {
		return err
	}
	if err := copyContent(out, in, fi.Size(), prog); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(perm); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
