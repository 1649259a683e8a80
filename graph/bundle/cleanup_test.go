package bundle

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zeros is a stream of NUL bytes (like /dev/zero, but ending after 4 MiB so
// that a broken sniff fails the test instead of hanging it) that records how
// much was read.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n >= 4<<20 {
		return 0, io.EOF
	}
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// Binary garbage on stdin is refused after reading its first 64 KiB, not
// spooled until the disk is full; text longer than that is kept whole.
func TestStdinSniff(t *testing.T) {
	z := &zeros{}
	_, err := Open("-", OpenOptions{Stdin: z})
	if err == nil || !strings.Contains(err.Error(), "neither MLIR bytecode") {
		t.Fatalf("zeros: %v", err)
	}
	if z.n > 64<<10 {
		t.Errorf("read %d bytes of garbage before refusing it", z.n)
	}
	big := append([]byte("module {\n"), bytes.Repeat([]byte("  // padding line for a text longer than the sniffed head\n"), 3000)...)
	big = append(big, "}\n"...)
	in, err := Open("-", OpenOptions{Stdin: bytes.NewReader(big)})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	got := make([]byte, in.Size)
	in.File.ReadAt(got, 0)
	if in.Kind != KindText || !bytes.Equal(got, big) {
		t.Errorf("large text: kind %v, %d of %d bytes equal", in.Kind, len(got), len(big))
	}
}

// A write in progress is tracked so that a signal handler can remove it,
// and a finished or failed write leaves nothing tracked.
func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.mlir")
	var seen []string
	enc := func(w io.Writer) error {
		io.WriteString(w, "module {\n}\n")
		pending.Lock()
		for p := range pending.paths {
			seen = append(seen, p)
		}
		pending.Unlock()
		removed := RemovePending()
		pending.Lock()
		pending.stopped = false // the process would exit now; this test goes on
		pending.Unlock()
		if len(removed) != 1 {
			t.Errorf("RemovePending removed %v", removed)
		}
		return errors.New("interrupted")
	}
	if _, err := Write(dst, KindText, nil, enc, WriteOptions{}); err == nil {
		t.Fatal("write did not fail")
	}
	if len(seen) != 1 || !strings.Contains(filepath.Base(seen[0]), ".out.mlir.anefix-tmp-") {
		t.Fatalf("tracked temporaries during the write: %v", seen)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if _, err := Write(dst, KindText, nil, func(w io.Writer) error { _, err := io.WriteString(w, "module {\n}\n"); return err }, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := len(pending.paths); n != 0 {
		t.Errorf("%d temporaries still tracked after a finished write", n)
	}
}
