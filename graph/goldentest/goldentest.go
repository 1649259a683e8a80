// Package goldentest is the one switch that regenerates golden files: every
// test that compares output with a committed file (testdata goldens,
// PASSES.md, the README's calibration table, bytecode seeds) reads it:
//
//	go test ./passes -run TestPassGolden -update
//
// Only _test.go files import this package: it registers the flag, so a
// package whose tests do not import it rejects -update.
package goldentest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files from the code's current output instead of comparing with them")

// Update reports whether the test run was asked to rewrite golden files.
func Update() bool { return *update }

// Check compares got with the golden file at path, or writes it under
// -update. A difference fails the test with the first differing line.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (check the change, then rerun with -update):\n%s", path, FirstDiff(string(want), string(got)))
	}
}

// FirstDiff describes the first line where want and got differ.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		if i >= len(wl) || i >= len(gl) || wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\n  golden: %s\n  got:    %s", i+1, line(wl, i), line(gl, i))
		}
	}
	return "(identical)"
}

func line(ls []string, i int) string {
	if i >= len(ls) {
		return "(end of file)"
	}
	return strconv.Quote(ls[i])
}

// ReadSets reads a .set file: one --set value (pass.option=value) per line,
// blank lines and lines starting with # ignored. A missing file is no
// options.
func ReadSets(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sets []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			sets = append(sets, l)
		}
	}
	return sets, nil
}

// FuzzSeed keeps a hostile input in the seed corpus of a fuzz target
// (testdata/fuzz/<target>/<name>, in go test's corpus format), so every
// `go test` replays it through the target: written under -update, checked
// otherwise. value is a string or a []byte, the target's argument type.
func FuzzSeed(t testing.TB, target, name string, value any) {
	t.Helper()
	var enc string
	switch v := value.(type) {
	case string:
		enc = "string(" + strconv.Quote(v) + ")"
	case []byte:
		enc = "[]byte(" + strconv.Quote(string(v)) + ")"
	default:
		t.Fatalf("FuzzSeed: %T is not a string or []byte", value)
	}
	dir := filepath.Join("testdata", "fuzz", target)
	if Update() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	Check(t, filepath.Join(dir, name), []byte("go test fuzz v1\n"+enc+"\n"))
}
