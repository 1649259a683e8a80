package bundle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errLink and errSpecial are wrapped by OpenMember's refusals.
var (
	errLink    = errors.New("is a symbolic link")
	errSpecial = errors.New("is not a regular file")
)

// OpenMember opens rel (slash-separated, below the directory root) for
// reading, refusing it when any part of its path is a symbolic link or the
// file is not a regular one. It is how a member of an input tree is read
// when links are not followed (a compiled package's members): an Lstat of
// each part first, then an open confined to root (os.Root) with O_NOFOLLOW
// and O_NONBLOCK, so that a FIFO put in place after the check cannot block
// the open, and a Stat of the open file, which must be the regular file
// checked. Errors name rel, never root, and wrap errLink, errSpecial or
// the file system's error (errors.Is(err, os.ErrPermission) and
// os.ErrNotExist work).
func OpenMember(root, rel string) (*os.File, fs.FileInfo, error) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, nil, fmt.Errorf("%s is not a path inside the directory", DisplayName(rel))
	}
	// os.OpenRoot opens root without O_NONBLOCK, so a FIFO there would
	// wait for a writer forever: only a directory is opened.
	if fi, err := os.Stat(root); err != nil {
		return nil, nil, err
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a directory", root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	parts := strings.Split(rel, "/")
	var last fs.FileInfo
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		fi, err := r.Lstat(filepath.FromSlash(sub))
		if err != nil {
			return nil, nil, memberErr(sub, err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if sub == rel {
				return nil, nil, fmt.Errorf("%s %w; links inside are not followed, so it is not read", DisplayName(rel), errLink)
			}
			return nil, nil, fmt.Errorf("%s %w; links inside are not followed, so %s is not read", DisplayName(sub), errLink, DisplayName(rel))
		case i < len(parts)-1 && !fi.IsDir():
			return nil, nil, fmt.Errorf("%s is not a directory, so %s is not read", DisplayName(sub), DisplayName(rel))
		case i == len(parts)-1 && !fi.Mode().IsRegular():
			return nil, nil, fmt.Errorf("%s %w (%v), so it is not read", DisplayName(rel), errSpecial, fi.Mode().Type())
		}
		last = fi
	}
	f, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|openFlags|noFollowFlag, 0)
	if err != nil {
		return nil, nil, memberErr(rel, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, memberErr(rel, err)
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, last) {
		f.Close()
		return nil, nil, fmt.Errorf("%s changed while it was opened (it %w now, or another file took its place); run again once the directory is complete", DisplayName(rel), errSpecial)
	}
	return f, fi, nil
}

// memberErr names rel in a file system error instead of root's path.
func memberErr(rel string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		op := strings.TrimSuffix(pe.Op, "at") // os.Root's openat, lstatat
		return &fs.PathError{Op: op, Path: DisplayName(rel), Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", DisplayName(rel), err)
}

// ReadMember reads the member rel of root (OpenMember) whole, when it is
// at most max bytes, into one buffer of its size.
func ReadMember(root, rel string, max int64) ([]byte, error) {
	f, fi, err := OpenMember(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(f, fi, DisplayName(rel), max)
}

// readOpened reads an open regular file whole (see readSmallFile).
func readOpened(f *os.File, fi fs.FileInfo, name string, max int64) ([]byte, error) {
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d this file can sensibly have", name, fi.Size(), max)
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("reading %s: %w (did it shrink while being read?)", name, err)
	}
	if n, _ := f.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("%s grew while being read; run again once it is complete", name)
	}
	return b, nil
}
