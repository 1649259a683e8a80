//go:build unix

package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// OpenMember reads a regular file below root only when no part of its
// path is a link; everything else is refused without blocking, naming the
// member, not root.
func TestOpenMember(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "d", "e"), 0o755))
	must(os.WriteFile(filepath.Join(root, "d", "e", "f"), []byte("inside"), 0o644))
	must(os.WriteFile(filepath.Join(outside, "f"), []byte("outside"), 0o644))
	must(os.Symlink(filepath.Join(outside, "f"), filepath.Join(root, "link")))
	must(os.Symlink("d/e/f", filepath.Join(root, "inner-link")))
	must(os.Symlink(outside, filepath.Join(root, "dirlink")))
	must(os.Symlink("d", filepath.Join(root, "inner-dirlink")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	must(os.Symlink("fifo", filepath.Join(root, "fifolink")))
	cases := []struct {
		rel, want string // want: content, or a substring of the error
		is        error
	}{
		{"d/e/f", "inside", nil},
		{"link", "link is a symbolic link", errLink},
		{"inner-link", "inner-link is a symbolic link", errLink},
		{"dirlink/f", "dirlink is a symbolic link; links inside are not followed, so dirlink/f is not read", errLink},
		{"inner-dirlink/e/f", "inner-dirlink is a symbolic link", errLink},
		{"fifo", "fifo is not a regular file", errSpecial},
		{"fifolink", "fifolink is a symbolic link", errLink},
		{"d", "d is not a regular file", errSpecial},
		{"d/e/f/g", "d/e/f is not a directory", nil},
		{"missing", "missing", os.ErrNotExist},
		{"../x", "not a path inside", nil},
		{"a\nb", `"a\nb"`, os.ErrNotExist},
	}
	for _, c := range cases {
		b, err := ReadMember(root, c.rel, 1<<20)
		switch {
		case err == nil && string(b) != c.want:
			t.Errorf("%q: read %q, want %q", c.rel, b, c.want)
		case err != nil && (!strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), root) || c.is != nil && !errors.Is(err, c.is)):
			t.Errorf("%q: %v, want an error containing %q (and wrapping %v), not naming the root", c.rel, err, c.want, c.is)
		}
	}
	// A root that is a FIFO is refused, not opened (opening it waited for
	// a writer forever).
	if _, err := ReadMember(filepath.Join(root, "fifo"), "metadata.json", 1<<20); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("FIFO root: %v", err)
	}
	if _, err := ReadMember(root, "d/e/f", 3); err == nil || !strings.Contains(err.Error(), "more than the 3") {
		t.Errorf("size limit: %v", err)
	}
}
