package bundle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// within reports whether p is root or lies below it. Both must be clean
// absolute paths with symbolic links resolved.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveInside resolves rel (slash-separated, as written in a bundle's
// metadata) against root, following symbolic links, and refuses anything
// that leaves root: absolute paths, "..", and links pointing outside.
func resolveInside(root, rel string) (string, error) {
	if rel == "" {
		return "", errors.New("empty path")
	}
	if strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%q is an absolute path; bundle paths must be relative to the bundle", rel)
	}
	local := filepath.FromSlash(rel)
	if !filepath.IsLocal(local) {
		return "", fmt.Errorf("%q escapes the bundle directory", rel)
	}
	if filepath.Clean(local) == "." {
		return "", fmt.Errorf("%q names the bundle directory itself", rel)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(root, local))
	if err != nil {
		return "", err
	}
	if !within(root, p) {
		return "", fmt.Errorf("%q leads outside the bundle (to %s) through a symbolic link", rel, p)
	}
	return p, nil
}

// readInside reads a small regular file inside root, refusing escapes and
// files larger than max.
func readInside(root, rel string, max int64) ([]byte, error) {
	p, err := resolveInside(root, rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	return readSmallFile(p, rel, max)
}

// readSmallFile reads the regular file p, of at most max bytes, into one
// buffer of the size Stat reported (io.ReadAll grows its buffer by
// appending, which allocated about twice a large metadata.json's size). A
// file that shrinks or grows while being read is an error. name stands for
// p in errors other than os.Open's. p's type is checked before it is
// opened, so a FIFO or a device is an error and never blocks the open.
func readSmallFile(p, name string, max int64) ([]byte, error) {
	return readSmall(p, name, max, false)
}

// ReadSmallFileNoFollow is readSmallFile for a file in a directory others
// may have written into (passes/probe's cache): a symbolic link at p is an
// error and is not followed (it is opened with O_NOFOLLOW where the system
// has it), as is anything but a regular file (a link to /dev/zero, a
// FIFO).
func ReadSmallFileNoFollow(p, name string, max int64) ([]byte, error) {
	return readSmall(p, name, max, true)
}

func readSmall(p, name string, max int64, noFollow bool) ([]byte, error) {
	stat := os.Stat
	if noFollow {
		stat = os.Lstat
	}
	before, err := stat(p)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", name, fileType(before.Mode()))
	}
	if before.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d this file can sensibly have", name, before.Size(), max)
	}
	f, err := openRegular(p, noFollow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// Checked again on what was opened: p may have been replaced since.
	if !fi.Mode().IsRegular() || !os.SameFile(before, fi) {
		return nil, fmt.Errorf("%s was replaced while being opened; run again", name)
	}
	return readOpened(f, fi, name, max)
}

// walk lists everything below root in sorted order. Symbolic links are
// recorded, not followed, and must point inside root; special files (pipes,
// devices, sockets) are refused because reading them can block forever.
func walk(root string) ([]Entry, error) {
	var out []Entry
	var rec func(dir, relDir string) error
	rec = func(dir, relDir string) error {
		des, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, de := range des {
			full := filepath.Join(dir, de.Name())
			rel := de.Name()
			if relDir != "" {
				rel = relDir + "/" + de.Name()
			}
			fi, err := os.Lstat(full)
			if err != nil {
				return err
			}
			e := Entry{Rel: rel, Mode: fi.Mode(), Size: fi.Size(), listed: fi}
			switch {
			case fi.Mode()&os.ModeSymlink != 0:
				target, err := filepath.EvalSymlinks(full)
				if err != nil {
					return fmt.Errorf("symbolic link %s cannot be followed: %w", DisplayName(rel), err)
				}
				if !within(root, target) {
					return fmt.Errorf("symbolic link %s points outside the bundle (to %s); copy the file into the bundle instead", DisplayName(rel), DisplayName(target))
				}
				lr, err := filepath.Rel(root, target)
				if err != nil {
					return err
				}
				e.Link = filepath.ToSlash(lr)
				out = append(out, e)
			case fi.IsDir():
				out = append(out, e)
				if err := rec(full, rel); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				out = append(out, e)
			default:
				return fmt.Errorf("%s is a special file (%v), which a bundle must not contain", DisplayName(rel), fi.Mode().Type())
			}
		}
		return nil
	}
	if err := rec(root, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// fileType names a file type for an error (one home: the input checks and
// the write rule both refuse by it).
func fileType(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symbolic link, which is not followed"
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file (mode " + m.Type().String() + ")"
}
