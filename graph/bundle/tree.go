package bundle

import (
	"fmt"
	"os"
	"path/filepath"
)

// TreeOptions tune WriteTree.
type TreeOptions struct {
	// Force replaces an existing output, but only a previous copy of the
	// same tree: a directory holding Marker and nothing the input does not
	// also hold as the same type (file, directory, link); anything else is
	// refused, naming the first entry that does not belong, as CheckReplace
	// does for bundles.
	Force bool
	// Marker is a path (slash-separated, relative to the tree) a previous
	// copy must hold as a regular file, such as a compiled package's
	// main-<arch>.mlirb; "" requires none.
	Marker string
	// Progress, when set, is where a progress bar is drawn (terminals only).
	Progress *os.File
	// Warn is as in WriteOptions.
	Warn func(msg string)
}

// treeResult describes a tree WriteTree wrote.
type treeResult struct {
	Path  string // absolute
	Files int
	Bytes int64
}

// WriteTree copies the directory srcRoot (resolved, absolute; srcPath is
// how the user named it) to dst file by file, byte for byte, under the
// same rules as Write: the input is never modified, the copy is built in a
// hidden temporary sibling and renamed into place when complete, an output
// that is the input, lies inside it or contains it is refused, symbolic
// links must stay inside the tree (and are recreated as relative links),
// and special files are refused. Files keep their permissions; directories
// gain owner write permission (the corpus's are read-only), as in Write, so
// that a later --force can replace the copy. It is how a compiled package (.aimodelc),
// which anefix reads but never re-encodes, is converted.
func WriteTree(dst, srcRoot, srcPath string, opts TreeOptions) (*treeResult, error) {
	src := &Input{Path: srcPath, Root: srcRoot, Kind: KindAIModel}
	abs, exists, err := checkTarget(dst, src, true, opts.Force, opts.Warn)
	if err != nil {
		return nil, err
	}
	entries, err := walk(srcRoot)
	if err != nil {
		return nil, err
	}
	if exists && !isEmptyDir(abs) {
		if err := checkTreeReplace(dst, abs, entries, opts.Marker); err != nil {
			return nil, err
		}
	}
	src.Entries = entries
	w := &writer{src: src, kind: KindAIModel}
	defer w.cleanup()
	tmp, err := makeTemp(func() (string, error) { return os.MkdirTemp(filepath.Dir(abs), tempPattern(abs, "tmp")) })
	if err != nil {
		return nil, err
	}
	w.tmp = tmp
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	res := &treeResult{Path: abs}
	for _, e := range entries {
		if e.Mode.IsRegular() {
			res.Files++
			res.Bytes += e.Size
		}
	}
	w.prog = terminalProgress(opts.Progress, "copying", res.Bytes)
	if err := w.copyEntries(entries, nil); err != nil {
		return nil, err
	}
	w.prog.Done()
	if err := commit(tmp, abs, exists); err != nil {
		return nil, err
	}
	w.tmp = ""
	return res, nil
}

// checkTreeReplace refuses to replace anything but a directory whose every
// path the input also has, as the same type, and that holds marker.
func checkTreeReplace(dst, abs string, src []Entry, marker string) error {
	fi, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("output %s is not a directory; --force does not replace it with a directory: remove it yourself or choose another path", dst)
	}
	have := map[string]os.FileMode{}
	for _, e := range src {
		have[e.Rel] = e.Mode.Type()
	}
	foreign, err := foreignEntry(abs, have)
	if err != nil {
		return fmt.Errorf("output %s: %w", dst, err)
	}
	if foreign != "" {
		return fmt.Errorf("output %s holds %s, which the input does not (or not as this type); --force replaces only a previous copy of the same tree, so remove it yourself or choose another path", dst, DisplayName(foreign))
	}
	if marker != "" {
		if fi, err := os.Lstat(filepath.Join(abs, filepath.FromSlash(marker))); err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("output %s is a directory but not a previous copy of the input (no %s); --force replaces only a previous copy of the same tree, so remove it yourself or choose another path", dst, marker)
		}
	}
	return nil
}
