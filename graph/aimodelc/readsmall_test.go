package aimodelc

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInBundleLargeMetadata: a large metadata.json (issue 12, item 9: a
// 60 MB `{"a":[{},…]}` made rewrite take 1.1 GB) is read into one buffer of
// its size. Synthetic file, 12.6 MB here. Before the fix (io.ReadAll of a
// LimitReader) InBundle allocated 2.03× the file, after it 1.00×; the
// bound is 1.5×.
func TestInBundleLargeMetadata(t *testing.T) {
	dir := t.TempDir()
	const n = 4 << 20 // elements of 3 bytes ("{}," and the last "{}")
	meta := `{"a":[` + strings.Repeat(`{},`, n-1) + `{}]}`
	if err := os.WriteFile(filepath.Join(dir, metadataFile), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, ok := InBundle(dir)
	runtime.ReadMemStats(&after)
	if ok {
		t.Fatalf("InBundle found a compiled package in a directory without one")
	}
	got := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(meta))
	t.Logf("InBundle allocated %.2f× the %d-byte metadata.json", got, len(meta))
	if got > 1.5 {
		t.Errorf("InBundle allocated %.2f× the %d-byte metadata.json; the bound is 1.5×", got, len(meta))
	}
}
