//go:build unix

package aimodelc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test if it has not returned within d (a
// hang is a failure, not a stuck test run).
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// mkfifo makes a FIFO at p; cleanup opens it for writing once, so that a
// reader stuck on it (the failure these tests look for) is released.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}

// dump is everything a Package reports, as text, to look for content that
// must not be there.
func dump(p *Package, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v\n", err)
	if p == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "%q %+v %+v %+v\n", p.Problems, p.Metadata, p.Stats, p.Delegates)
	for _, f := range p.Functions {
		fmt.Fprintf(&b, "%+v\n", *f)
	}
	return b.String()
}

const secret = "OUTSIDE-SECRET"

// outside writes, outside the package, files a link could lead to: each
// would put secret into the report if it were read.
func outside(t *testing.T, pkg string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("metadata.json", []byte(`{"producer": "`+secret+`", "assetVersion": "9"}`))
	write("stats.json", []byte(`{"operationDistribution": [{"name": "`+secret+`", "count": 1}], "storageTypes": [], "computeTypes": []}`))
	man := bytes.ReplaceAll(readStandInManifest(t, "xml"), []byte("decode_stand_in"), []byte(secret))
	write("delegates/MPSGraph/mpsExecutable.mpsgraphpackage/manifest.plist", man)
	spec, err := os.ReadFile(filepath.Join(pkg, filepath.FromSlash(pkgDir), "specialized_model_1.mpsgraph"))
	if err != nil {
		t.Fatal(err)
	}
	write("delegates/MPSGraph/mpsExecutable.mpsgraphpackage/specialized_model_1.mpsgraph", bytes.ReplaceAll(spec, []byte("decode_stand_in"), []byte(secret)))
	write("graphs/specialized_model_1.mpsgraph", bytes.ReplaceAll(spec, []byte("GPU"), []byte("ANE")))
	h, err := os.ReadFile(filepath.Join(pkg, hashFile))
	if err != nil {
		t.Fatal(err)
	}
	write("main.hash", h)
	return dir
}

func relink(t *testing.T, pkg, rel, target string) {
	t.Helper()
	p := filepath.Join(pkg, filepath.FromSlash(rel))
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// Every member is opened without following a symbolic link (in any part of
// its path) and only as a regular file. Before, the walk said "not
// followed" and the reads then followed the link: an outside file's
// content appeared in the report, and a link to a FIFO hung Open forever.
func TestMembersNotFollowed(t *testing.T) {
	man := pkgDir + "/" + manifestFile
	spec := pkgDir + "/specialized_model_1.mpsgraph"
	cases := []struct {
		name   string
		set    func(t *testing.T, pkg, out string)
		errSub string // Open's error; "" when it must succeed with a problem
		prob   string // a problem Open must report
	}{
		{"metadata.json links outside", func(t *testing.T, pkg, out string) { relink(t, pkg, metadataFile, filepath.Join(out, "metadata.json")) }, "", "metadata.json is a symbolic link"},
		{"stats.json links outside", func(t *testing.T, pkg, out string) { relink(t, pkg, statsFile, filepath.Join(out, "stats.json")) }, "", "stats.json is a symbolic link"},
		{"manifest.plist links outside", func(t *testing.T, pkg, out string) {
			relink(t, pkg, man, filepath.Join(out, "delegates/MPSGraph/mpsExecutable.mpsgraphpackage/manifest.plist"))
		}, "", "manifest.plist is a symbolic link"},
		{"the specialized graph links outside", func(t *testing.T, pkg, out string) {
			relink(t, pkg, spec, filepath.Join(out, "delegates/MPSGraph/mpsExecutable.mpsgraphpackage/specialized_model_1.mpsgraph"))
		}, "", "specialized_model_1.mpsgraph is a symbolic link"},
		{"main.hash links outside", func(t *testing.T, pkg, out string) { relink(t, pkg, hashFile, filepath.Join(out, "main.hash")) }, "main.hash is a symbolic link", ""},
		{"the delegates directory links outside", func(t *testing.T, pkg, out string) {
			relink(t, pkg, "main-h18p-delegates", filepath.Join(out, "delegates"))
		}, "", "main-h18p-delegates is a symbolic link"},
		{"File Name goes through a linked directory", func(t *testing.T, pkg, out string) {
			p := filepath.Join(pkg, filepath.FromSlash(man))
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte("<string>specialized_model_1.mpsgraph</string>"), []byte("<string>sub/specialized_model_1.mpsgraph</string>"), 1), 0o644)
			if err := os.Symlink(filepath.Join(out, "graphs"), filepath.Join(pkg, filepath.FromSlash(pkgDir), "sub")); err != nil {
				t.Fatal(err)
			}
		}, "", "sub is a symbolic link"},
		{"metadata.json links to a FIFO", func(t *testing.T, pkg, out string) {
			mkfifo(t, filepath.Join(out, "fifo"))
			relink(t, pkg, metadataFile, filepath.Join(out, "fifo"))
		}, "", "metadata.json is a symbolic link"},
		{"stats.json links to a FIFO inside", func(t *testing.T, pkg, out string) {
			mkfifo(t, filepath.Join(pkg, "..", "fifo"))
			relink(t, pkg, statsFile, "../fifo")
		}, "", "stats.json is a symbolic link"},
		{"manifest.plist links to a FIFO", func(t *testing.T, pkg, out string) {
			mkfifo(t, filepath.Join(out, "fifo"))
			relink(t, pkg, man, filepath.Join(out, "fifo"))
		}, "", "manifest.plist is a symbolic link"},
		{"the specialized graph links to a FIFO", func(t *testing.T, pkg, out string) {
			mkfifo(t, filepath.Join(out, "fifo"))
			relink(t, pkg, spec, filepath.Join(out, "fifo"))
		}, "", "specialized_model_1.mpsgraph is a symbolic link"},
		{"main.hash links to a FIFO", func(t *testing.T, pkg, out string) {
			mkfifo(t, filepath.Join(out, "fifo"))
			relink(t, pkg, hashFile, filepath.Join(out, "fifo"))
		}, "main.hash is a symbolic link", ""},
		{"metadata.json is a FIFO", func(t *testing.T, pkg, out string) {
			os.Remove(filepath.Join(pkg, metadataFile))
			mkfifo(t, filepath.Join(pkg, metadataFile))
		}, "metadata.json is a special file", ""},
		{"a link to a FIFO elsewhere in the package", func(t *testing.T, pkg, out string) {
			mkfifo(t, filepath.Join(out, "fifo"))
			if err := os.Symlink(filepath.Join(out, "fifo"), filepath.Join(pkg, "notes.txt")); err != nil {
				t.Fatal(err)
			}
		}, "", "notes.txt is a symbolic link"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pkg := statefulStandIn(t)
			out := outside(t, pkg)
			c.set(t, pkg, out)
			var p *Package
			var err error
			within(t, 20*time.Second, "Open", func() { p, err = Open(pkg, Options{}) })
			d := dump(p, err)
			if strings.Contains(d, secret) {
				t.Errorf("content from outside the package was read:\n%s", d)
			}
			switch {
			case c.errSub != "":
				if err == nil || !strings.Contains(err.Error(), c.errSub) {
					t.Errorf("error %v, want one containing %q", err, c.errSub)
				}
			case err != nil:
				t.Errorf("error %v", err)
			case !strings.Contains(strings.Join(p.Problems, "\n"), c.prob):
				t.Errorf("problems %q lack %q", p.Problems, c.prob)
			}
		})
	}
}

// InBundle reads a directory's metadata.json to see whether it names a
// compiled package; a FIFO there must not hang it (every command asks it
// of its input).
func TestInBundleFIFO(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, filepath.Join(dir, metadataFile))
	within(t, 20*time.Second, "InBundle", func() {
		if _, ok := InBundle(dir); ok {
			t.Error("a FIFO named metadata.json made the directory a bundle")
		}
	})
	out := t.TempDir()
	mkfifo(t, filepath.Join(out, "fifo"))
	dir2 := t.TempDir()
	if err := os.Symlink(filepath.Join(out, "fifo"), filepath.Join(dir2, metadataFile)); err != nil {
		t.Fatal(err)
	}
	within(t, 20*time.Second, "InBundle", func() { InBundle(dir2) })
}

// chmod 000 members and directories: as a user the mode applies to, each
// is an error or a problem naming the file and "permission denied"; as
// root (CI), which reads them anyway, the package reads as usual. Run as
// both: as a user, e.g. after useradd -m tester, with a module and build
// cache that user can read: su tester -c 'cd REPO && GOMODCACHE=…
// GOCACHE=… GOPROXY=off go test ./graph/aimodelc ./cmd/anefix -run
// "Unreadable|NotFollowed|FIFO|EntryNames"'.
func TestUnreadableMembers(t *testing.T) {
	man := pkgDir + "/" + manifestFile
	spec := pkgDir + "/specialized_model_1.mpsgraph"
	cases := []struct {
		rel   string
		fatal bool // Open fails rather than reporting a problem
	}{
		{metadataFile, false}, {statsFile, false}, {man, false}, {spec, false},
		{hashFile, true}, {"main-h18p.mlirb", true}, {"main-h18p-delegates", false}, {pkgDir, false},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			pkg := statefulStandIn(t)
			p := filepath.Join(pkg, filepath.FromSlash(c.rel))
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(p, 0o755) })
			readable := canRead(p)
			var pk *Package
			var err error
			within(t, 20*time.Second, "Open", func() { pk, err = Open(pkg, Options{}) })
			if readable {
				t.Logf("running as uid %d, which reads a mode-000 %s: the package must read as usual", os.Getuid(), c.rel)
				if err != nil || len(pk.Problems) != 0 || len(pk.Functions) != 1 {
					t.Errorf("%v %q", err, dump(pk, err))
				}
				return
			}
			t.Logf("running as uid %d: %v %q", os.Getuid(), err, problemsOf(pk))
			name := filepath.Base(c.rel)
			switch {
			case c.fatal:
				if err == nil || !strings.Contains(err.Error(), name) || !errors.Is(err, os.ErrPermission) {
					t.Errorf("error %v, want a permission error naming %s", err, name)
				}
			case err != nil:
				t.Errorf("error %v, want a problem", err)
			case !strings.Contains(strings.Join(pk.Problems, "\n"), name) || !strings.Contains(strings.Join(pk.Problems, "\n"), "permission denied"):
				t.Errorf("problems %q lack %s and permission denied", pk.Problems, name)
			}
		})
	}
}

func problemsOf(p *Package) []string {
	if p == nil {
		return nil
	}
	return p.Problems
}

// canRead reports whether this process can list or read p despite its
// mode (root can).
func canRead(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		_, err = f.Readdirnames(1)
		return err == nil || errors.Is(err, os.ErrNotExist) || err.Error() == "EOF"
	}
	_, err = f.Read(make([]byte, 1))
	return err == nil || err.Error() == "EOF"
}
