package bundle

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func allocated(t *testing.T, p string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

func digest(t *testing.T, p string) []byte {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return h.Sum(nil)
}

// A sparse file in a copied tree (issue 21 item 9: convert of a package
// with a sparse 1 GB file wrote 1 GB of real blocks) keeps its holes: the
// copy has the same bytes and about the blocks of the input's data, not of
// its length. 64 MiB here, with data at the start, in the middle and at
// the end.
func TestWriteTreeKeepsHoles(t *testing.T) {
	src := filepath.Join(t.TempDir(), "p.aimodelc")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(src, "resources.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	for _, off := range []int64{0, 30 << 20, size - 4096} {
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xab}, 4096), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	if got := allocated(t, big); got > 1<<20 {
		t.Skipf("this file system does not keep holes (%d bytes allocated for 12 KiB of data)", got)
	}
	os.WriteFile(filepath.Join(src, "main-h18p.mlirb"), []byte("x"), 0o644)
	dst := filepath.Join(t.TempDir(), "q.aimodelc")
	res, err := WriteTree(dst, src, src, TreeOptions{Marker: "main-h18p.mlirb"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dst, "resources.bin")
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	in, got := allocated(t, big), allocated(t, out)
	t.Logf("input %d bytes long, %d allocated; copy %d allocated (%d bytes reported)", int64(size), in, got, res.Bytes)
	if fi.Size() != size || !bytes.Equal(digest(t, big), digest(t, out)) {
		t.Fatalf("the copy differs: %d bytes", fi.Size())
	}
	if got > in+1<<20 {
		t.Errorf("the copy of a %d-byte file with %d bytes allocated has %d allocated: its holes were filled", int64(size), in, got)
	}
}
