package bundle

import (
	"github.com/anefix/anefix/graph/oracle"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteTree(t *testing.T) {
	mk := func(t *testing.T) string {
		src := filepath.Join(t.TempDir(), "p.aimodelc")
		for rel, body := range map[string]string{"main-h18p.mlirb": "m", "a/b/c.bin": "ccc", "a/w.bc.weights": "w"} {
			p := filepath.Join(src, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o444); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("b/c.bin", filepath.Join(src, "a", "link")); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(src, "a", "b"), 0o555) // read-only directories, as in the corpus
		t.Cleanup(func() { os.Chmod(filepath.Join(src, "a", "b"), 0o755) })
		return src
	}
	t.Run("copies every file, mode and link", func(t *testing.T) {
		src := mk(t)
		dst := filepath.Join(t.TempDir(), "q.aimodelc")
		res, err := WriteTree(dst, src, src, TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Files != 3 || res.Bytes != 5 {
			t.Errorf("%+v", res)
		}
		b, err := os.ReadFile(filepath.Join(dst, "a", "link"))
		if err != nil || string(b) != "ccc" {
			t.Errorf("link: %q %v", b, err)
		}
		if l, _ := os.Readlink(filepath.Join(dst, "a", "link")); l != filepath.FromSlash("b/c.bin") {
			t.Errorf("link target %q, want a relative link inside the copy", l)
		}
		fi, _ := os.Stat(filepath.Join(dst, "a", "b", "c.bin"))
		if fi.Mode().Perm() != 0o444 {
			t.Errorf("mode %v", fi.Mode())
		}
		if _, err := WriteTree(dst, src, src, TreeOptions{}); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("existing output without Force: %v", err)
		}
		if _, err := WriteTree(dst, src, src, TreeOptions{Force: true}); err != nil {
			t.Errorf("Force over a previous copy: %v", err)
		}
		os.WriteFile(filepath.Join(dst, "mine"), []byte("x"), 0o644)
		if _, err := WriteTree(dst, src, src, TreeOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "mine") {
			t.Errorf("Force over a directory with another file: %v", err)
		}
		leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dst), ".q.aimodelc.anefix-*"))
		if len(leftovers) != 0 {
			t.Errorf("temporaries left: %q", leftovers)
		}
	})
	t.Run("force replaces only a previous copy", func(t *testing.T) {
		src := mk(t)
		cases := []struct {
			name  string
			setup func(dst string)
			want  string // error substring; "" means replaced
		}{
			{"previous copy", func(dst string) {
				if _, err := WriteTree(dst, src, src, TreeOptions{}); err != nil {
					t.Fatal(err)
				}
			}, ""},
			{"project directory", func(dst string) {
				os.MkdirAll(filepath.Join(dst, ".git"), 0o755)
				os.MkdirAll(filepath.Join(dst, "src"), 0o755)
				os.WriteFile(filepath.Join(dst, ".git", "HEAD"), []byte("ref"), 0o644)
				os.WriteFile(filepath.Join(dst, "src", "main.go"), []byte("package main"), 0o644)
				os.WriteFile(filepath.Join(dst, "main-h18p.mlirb"), []byte("mine"), 0o644)
			}, "holds .git, which the input does not"},
			{"user's file where the input has a link", func(dst string) {
				WriteTree(dst, src, src, TreeOptions{})
				os.Remove(filepath.Join(dst, "a", "link"))
				os.WriteFile(filepath.Join(dst, "a", "link"), []byte("my notes"), 0o644)
			}, "holds a/link, which the input does not (or not as this type)"},
			{"only a file the input has, no marker", func(dst string) {
				os.MkdirAll(filepath.Join(dst, "a"), 0o755)
				os.WriteFile(filepath.Join(dst, "a", "w.bc.weights"), []byte("mine"), 0o644)
			}, "no main-h18p.mlirb"},
			{"empty directory: used (CheckExisting)", func(dst string) { os.Mkdir(dst, 0o755) }, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				dst := filepath.Join(t.TempDir(), "q.aimodelc")
				c.setup(dst)
				_, err := WriteTree(dst, src, src, TreeOptions{Force: true, Marker: "main-h18p.mlirb"})
				if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
					t.Errorf("WriteTree = %v, want %q", err, c.want)
				}
			})
		}
	})
	t.Run("refused", func(t *testing.T) {
		src := mk(t)
		if _, err := WriteTree(filepath.Join(src, "in"), src, src, TreeOptions{}); err == nil || !strings.Contains(err.Error(), "inside the input") {
			t.Errorf("inside the input: %v", err)
		}
		os.Symlink(t.TempDir(), filepath.Join(src, "out"))
		if _, err := WriteTree(filepath.Join(t.TempDir(), "x"), src, src, TreeOptions{}); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("link leaving the tree: %v", err)
		}
		os.Remove(filepath.Join(src, "out"))
		if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
			oracle.Unavailable(t, "mkfifo in the temporary directory", "run the tests on a file system with named pipes (TMPDIR)", err)
		}
		if _, err := WriteTree(filepath.Join(t.TempDir(), "x"), src, src, TreeOptions{}); err == nil || !strings.Contains(err.Error(), "special file") {
			t.Errorf("special file: %v", err)
		}
	})
}
