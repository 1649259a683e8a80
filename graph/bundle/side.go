package bundle

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SideFile is a small file written beside an output, such as rewrite's
// report (WriteOptions.Beside): it is put in place together with the
// output, both or neither.
type SideFile struct {
	Path string
	Data []byte
	// Force replaces an existing regular file (CheckReplaceFile).
	Force bool
}

// CheckReplaceFile is the rule for a single file anefix writes beside its
// output (a report): a path that does not exist is written; an existing
// one is replaced only with force, and only when it is a regular file. A
// symbolic link (never followed, dangling or not), a directory, a device
// or a FIFO is refused even with force. It is checked before any work and
// again, under the commit lock, just before the rename.
func CheckReplaceFile(path string, force bool) error {
	fi, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file (%s); anefix replaces only a regular file, even with --force: remove it yourself or choose another path", DisplayName(path), fileType(fi.Mode()))
	case !force:
		return fmt.Errorf("%s already exists; use --force to replace it", DisplayName(path))
	}
	return nil
}

// staged is an output complete in its hidden temporary tmp, waiting to be
// put in place at abs by commitAll.
type staged struct {
	tmp, abs string
	exists   bool
	// side is the rule of a side file, checked again at the commit; nil
	// for an output (checkTarget and CheckReplace vetted it).
	side *SideFile
	// vetted, for an output, is what was at abs when it was vetted
	// (pathState); the commit refuses a path that changed since (a FIFO or
	// a link put there meanwhile is not replaced).
	vetted *pathState
}

// pathState is whether a path exists, its type bits and, for a
// directory, whether it is empty (an empty directory is used as an output
// without --force, so one that fills up meanwhile must not be replaced).
type pathState struct {
	exists bool
	typ    os.FileMode
	empty  bool
}

func statePath(p string) pathState {
	fi, err := os.Lstat(p)
	if err != nil {
		return pathState{}
	}
	return pathState{true, fi.Mode().Type(), fi.IsDir() && isEmptyDir(p)}
}

// isEmptyDir reports whether the directory p holds nothing.
func isEmptyDir(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}

func (st pathState) String() string {
	switch {
	case !st.exists:
		return "nothing"
	case st.typ == 0:
		return "a regular file"
	case st.empty:
		return "an empty directory"
	}
	return fileType(st.typ)
}

// stageSide writes sf to a hidden temporary beside its path, after
// checking the path (CheckReplaceFile). The temporary is tracked, so a
// signal removes it.
func stageSide(sf SideFile, warn func(string)) (*staged, error) {
	abs, err := filepath.Abs(sf.Path)
	if err != nil {
		return nil, err
	}
	if err := CheckReplaceFile(sf.Path, sf.Force); err != nil {
		return nil, err
	}
	if warn == nil {
		warn = stderrWarn
	}
	cleanStale(abs, warn)
	// Written through the descriptor CreateTemp opened: reopening by name
	// would recreate a temporary the signal handler has just removed.
	var f *os.File
	tmp, err := makeTemp(func() (string, error) {
		var err error
		f, err = os.CreateTemp(filepath.Dir(abs), tempPattern(abs, "tmp"))
		if err != nil {
			return "", err
		}
		return f.Name(), nil
	})
	if err != nil {
		return nil, err
	}
	s := &staged{tmp: tmp, abs: abs, side: &sf}
	_, err = f.Write(sf.Data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err != nil {
		s.abort()
		return nil, err
	}
	return s, nil
}

// abort removes a staged temporary that will not be committed.
func (s *staged) abort() {
	os.RemoveAll(s.tmp)
	untrackTemp(s.tmp)
}

// commitAll puts every staged output in place, all or none, under the
// signal lock (see pending). All but the last are placed so that they can
// be taken back (the previous file kept aside until the end); the last is
// committed as a single output is (commitLocked), and its failure takes
// the others back. A side file's rule is checked again just before its
// rename. On failure every temporary is where it was; the caller aborts.
func commitAll(items []*staged) error {
	if len(items) == 0 {
		return nil
	}
	pending.Lock()
	defer pending.Unlock()
	if pending.stopped {
		return errStopped
	}
	var undo []func()
	var olds []string
	fail := func(err error) error {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
		return err
	}
	for i, s := range items {
		exists := s.exists
		if s.side != nil {
			if err := CheckReplaceFile(s.side.Path, s.side.Force); err != nil {
				return fail(err)
			}
			_, err := os.Lstat(s.abs)
			exists = err == nil
		}
		if s.vetted != nil {
			if now := statePath(s.abs); now != *s.vetted {
				return fail(fmt.Errorf("%s changed while anefix wrote the output (it held %s when checked, now %s); nothing is replaced: run again", DisplayName(s.abs), *s.vetted, now))
			}
		}
		if i == len(items)-1 {
			if err := commitLocked(s.tmp, s.abs, exists); err != nil {
				return fail(err)
			}
			continue
		}
		u, old, err := placeUndoable(s.tmp, s.abs, exists)
		if err != nil {
			return fail(err)
		}
		undo = append(undo, u)
		if old != "" {
			olds = append(olds, old)
		}
	}
	for _, s := range items {
		delete(pending.paths, s.tmp)
	}
	for _, old := range olds {
		os.RemoveAll(old)
	}
	return nil
}

// placeUndoable puts tmp in place at abs keeping what was there (at old,
// "" when nothing was), and returns how to take it back.
func placeUndoable(tmp, abs string, exists bool) (undo func(), old string, err error) {
	if !exists {
		if err := os.Rename(tmp, abs); err != nil {
			return nil, "", err
		}
		return func() { os.Rename(abs, tmp) }, "", nil
	}
	if !noExchange {
		if ok, err := renameExchange(tmp, abs); ok {
			if err != nil {
				return nil, "", err
			}
			return func() { renameExchange(tmp, abs) }, tmp, nil
		}
	}
	backup, err := os.MkdirTemp(filepath.Dir(abs), tempPattern(abs, "old"))
	if err != nil {
		return nil, "", err
	}
	if err := os.Remove(backup); err != nil {
		return nil, "", err
	}
	if err := os.Rename(abs, backup); err != nil {
		return nil, "", err
	}
	if err := os.Rename(tmp, abs); err != nil {
		os.Rename(backup, abs)
		return nil, "", err
	}
	return func() {
		os.Rename(abs, tmp)
		os.Rename(backup, abs)
	}, backup, nil
}
