//go:build unix

package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// What --force may replace is vetted before the work and held to at the
// commit: a FIFO, a link or a directory put at the output path while the
// output was being built is not replaced, and a file that appeared is not
// either (without --force it would have been refused). Before, the final
// rename replaced a FIFO, a link or a file that appeared meanwhile.
func TestWriteTargetChangedBeforeCommit(t *testing.T) {
	src := t.TempDir()
	files(t, src, aimodel(""))
	in := open(t, src, OpenOptions{})
	for _, c := range []struct {
		name string
		make func(p string) error
	}{
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"link", func(p string) error { return os.Symlink("elsewhere", p) }},
		{"file", func(p string) error { return os.WriteFile(p, []byte("theirs"), 0o644) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "o.mlirb")
			beside := func(*Result) ([]SideFile, error) { return nil, c.make(out) }
			_, err := Write(out, KindBytecode, in, encode(bcNew), WriteOptions{Beside: beside})
			if err == nil || !strings.Contains(err.Error(), "changed while anefix wrote the output") {
				t.Fatalf("err %v", err)
			}
			fi, lerr := os.Lstat(out)
			if lerr != nil || fi.Mode().IsRegular() && c.name != "file" {
				t.Errorf("what was put at the output was replaced: %v %v", fi, lerr)
			}
			if c.name == "file" {
				if b, _ := os.ReadFile(out); string(b) != "theirs" {
					t.Errorf("file replaced: %q", b)
				}
			}
			noTemps(t, dir)
		})
	}
}
