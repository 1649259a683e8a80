package bundle

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReadInsideLargeFile: readInside reads a large metadata.json (issue
// 12, item 9) into one buffer of its size. Synthetic file, 12.6 MB. With
// io.ReadAll of a LimitReader it allocated 2.03× the file, now 1.00×; the
// bound is 1.5×.
func TestReadInsideLargeFile(t *testing.T) {
	dir := t.TempDir()
	const n = 4 << 20
	meta := `{"a":[` + strings.Repeat(`{},`, n-1) + `{}]}`
	if err := os.WriteFile(filepath.Join(dir, metadataFile), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := readInside(dir, metadataFile, maxMetadataSize)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != meta {
		t.Fatalf("read %d bytes that differ from the %d written", len(got), len(meta))
	}
	ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(meta))
	t.Logf("readInside allocated %.2f× the %d-byte file", ratio, len(meta))
	if ratio > 1.5 {
		t.Errorf("readInside allocated %.2f× the %d-byte file; the bound is 1.5×", ratio, len(meta))
	}
}

// TestReadInsideLimits: files over the bound, and non-regular files, are
// refused with the file's name.
func TestReadInsideLimits(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rel  string
		max  int64
		want string // substring of the error; "" means success
	}{
		{"f", 5, ""},
		{"f", 4, "f is 5 bytes, more than the 4"},
		{"d", 5, "d is not a regular file"},
	} {
		b, err := readInside(dir, tc.rel, tc.max)
		switch {
		case tc.want == "" && (err != nil || string(b) != "12345"):
			t.Errorf("readInside(%s, %d) = %q, %v; want the file", tc.rel, tc.max, b, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("readInside(%s, %d) error %v; want %q", tc.rel, tc.max, err, tc.want)
		}
	}
}
