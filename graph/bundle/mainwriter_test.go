package bundle

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type span struct{ off, n int64 }

// rangeEncoder writes the magic, then alternates written bytes and CopyRange
// calls, and returns the bytes the output must contain.
func rangeEncoder(src *os.File, data []byte, spans []span) (Encoder, []byte) {
	want := append([]byte{}, Magic...)
	for i, s := range spans {
		want = append(want, byte('a'+i))
		want = append(want, data[s.off:s.off+s.n]...)
	}
	enc := func(w io.Writer) error {
		if _, err := w.Write(Magic); err != nil {
			return err
		}
		rc := w.(rangeCopier)
		for i, s := range spans {
			if _, err := w.Write([]byte{byte('a' + i)}); err != nil {
				return err
			}
			if err := rc.CopyRange(src, s.off, s.n); err != nil {
				return err
			}
		}
		return nil
	}
	return enc, want
}

func testData(n int) []byte {
	data := make([]byte, n)
	x := uint32(1)
	for i := range data {
		x = x*1664525 + 1013904223
		data[i] = byte(x >> 24)
	}
	return data
}

func TestCopyRange(t *testing.T) {
	data := testData(3*minKernelCopy + 777)
	copy(data, Magic) // stdin refuses binary that is not bytecode
	spans := []span{
		{0, int64(len(data))},      // whole file, kernel copy
		{5, 1000},                  // small, read and write
		{123, 2*minKernelCopy + 1}, // kernel copy at an odd offset
		{int64(len(data)) - 1, 1},  // last byte
		{0, 0},                     // nothing
		{7, minKernelCopy},         // exactly the threshold
	}
	for _, stdin := range []bool{false, true} {
		dir := t.TempDir()
		files(t, dir, aimodel("m/"))
		var src *os.File
		if stdin {
			// Spooled stdin is an unlinked file: CopyRange must still work.
			in := open(t, "-", OpenOptions{Stdin: bytes.NewReader(data)})
			src = in.File
		} else {
			p := filepath.Join(dir, "blob")
			os.WriteFile(p, data, 0o644)
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			src = f
		}
		in := open(t, filepath.Join(dir, "m"), OpenOptions{})
		enc, want := rangeEncoder(src, data, spans)
		res, err := Write(filepath.Join(dir, "o"), KindAIModel, in, enc, WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(res.MainPath)
		if !bytes.Equal(got, want) || res.MainSize != int64(len(want)) {
			t.Errorf("stdin=%v: output differs (len %d, want %d)", stdin, len(got), len(want))
		}
		hash, _ := os.ReadFile(filepath.Join(dir, "o", hashFile))
		if string(hash) != rawSha(want) || res.Hash != sha(want) {
			t.Errorf("stdin=%v: main.hash %x, want %s", stdin, hash, sha(want))
		}

		// A single file is not hashed: every large range goes to the
		// kernel, aligned or not.
		res, err = Write(filepath.Join(dir, "o.mlirb"), KindBytecode, in, enc, WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(res.MainPath); !bytes.Equal(got, want) || res.MainSize != int64(len(want)) {
			t.Errorf("stdin=%v: .mlirb output differs (len %d, want %d)", stdin, len(got), len(want))
		}

		var out bytes.Buffer
		if _, err := Write("-", KindBytecode, in, enc, WriteOptions{Stdout: &out}); err != nil || !bytes.Equal(out.Bytes(), want) {
			t.Errorf("stdin=%v: stdout CopyRange: %v, equal %v", stdin, err, bytes.Equal(out.Bytes(), want))
		}
	}
}

func TestCopyRangePastEnd(t *testing.T) {
	data := testData(2 * minKernelCopy)
	dir := t.TempDir()
	files(t, dir, aimodel("m/"))
	p := filepath.Join(dir, "blob")
	os.WriteFile(p, data, 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := open(t, filepath.Join(dir, "m"), OpenOptions{})
	// Offsets 4 and 4+64Ki agree with the output's modulo the page (the
	// kernel copy after an aligning head); the others do not (the kernel
	// copy from there).
	spans := []span{{0, int64(len(data)) + 1}, {int64(len(data)) - 10, minKernelCopy}, {int64(len(data)) - 10, 11}, {-1, 5},
		{4, int64(len(data))}, {4 + copyRound, int64(len(data)) - copyRound}}
	for _, s := range spans {
		enc := func(w io.Writer) error {
			w.Write(Magic)
			return w.(rangeCopier).CopyRange(f, s.off, s.n)
		}
		for _, k := range []struct {
			kind Kind
			name string
		}{{KindAIModel, "o"}, {KindBytecode, "o.mlirb"}} {
			_, err := Write(filepath.Join(dir, k.name), k.kind, in, enc, WriteOptions{})
			if err == nil || !(strings.Contains(err.Error(), "ends after") || strings.Contains(err.Error(), "negative")) {
				t.Errorf("%s: span %v: err %v", k.kind, s, err)
			}
			if _, err := os.Lstat(filepath.Join(dir, k.name)); err == nil {
				t.Fatalf("%s: span %v: output left behind", k.kind, s)
			}
			noTemps(t, dir)
		}
	}
}

func TestKernelCopyHead(t *testing.T) {
	page := int64(os.Getpagesize())
	for _, tc := range []struct{ out, off, want int64 }{
		{0, 0, 0},
		{copyRound, 0, 0},
		{4, 4, copyRound - 4},
		{100, 100 + 3*page, copyRound - 100},
		{copyRound + page, page, copyRound - page},
		{100, 0, 0}, // offsets disagree modulo the page: no head helps
		{0, 3526, 0},
	} {
		if got := kernelCopyHead(tc.out, tc.off); got != tc.want {
			t.Errorf("kernelCopyHead(%d, %d) = %d, want %d", tc.out, tc.off, got, tc.want)
		}
	}
}

// TestCopyRangeAlignedHead: a range whose output offset agrees with its input
// offset modulo the page is copied as a buffered head and a kernel copy;
// the bytes and the hash must be those of the input either way.
func TestCopyRangeAlignedHead(t *testing.T) {
	page := int(os.Getpagesize())
	data := testData(copyRound + 3*minKernelCopy)
	dir := t.TempDir()
	p := filepath.Join(dir, "blob")
	os.WriteFile(p, data, 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files(t, dir, aimodel("m/"))
	in := open(t, filepath.Join(dir, "m"), OpenOptions{})
	for _, lead := range []int{len(Magic), page, page + 7, copyRound, copyRound + 1} {
		want := append(append([]byte{}, Magic...), data[len(Magic):lead]...)
		want = append(want, data[lead:]...)
		enc := func(w io.Writer) error {
			if _, err := w.Write(want[:lead]); err != nil {
				return err
			}
			return w.(rangeCopier).CopyRange(f, int64(lead), int64(len(data)-lead))
		}
		out := filepath.Join(dir, "o")
		res, err := Write(out, KindAIModel, in, enc, WriteOptions{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(res.MainPath)
		if !bytes.Equal(got, want) || res.Hash != sha(want) {
			t.Errorf("lead %d: output equal %v, hash %s want %s", lead, bytes.Equal(got, want), res.Hash, sha(want))
		}
	}
}

// TestCopyRangeProgress: every byte of the main file is counted once by the
// progress bar, whichever path copied it (buffered, kernel, or written by
// the hashing goroutine), and only after it was written.
func TestCopyRangeProgress(t *testing.T) {
	data := testData(copyRound + 3*minKernelCopy)
	dir := t.TempDir()
	p := filepath.Join(dir, "blob")
	os.WriteFile(p, data, 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, hash := range []bool{false, true} {
		out, err := os.Create(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		prog := newProgress(&bytes.Buffer{}, "test", 0, time.Hour, time.Hour)
		mw := newMainWriter(out, out, KindAIModel, hash, nil, prog)
		mw.Write(Magic)
		rc := rangeCopier(mw)
		for _, s := range []span{{4, 1000}, {5000, 2 * minKernelCopy}, {int64(4 + 1000 + 2*minKernelCopy), minKernelCopy}} {
			if err := rc.CopyRange(f, s.off, s.n); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := mw.finish(); err != nil {
			t.Fatal(err)
		}
		prog.Done()
		out.Close()
		if got := prog.n.Load(); got != mw.n {
			t.Errorf("hash=%v: progress %d, want %d", hash, got, mw.n)
		}
	}
}

// Ranges go to the kernel (os.File.ReadFrom: copy_file_range on Linux)
// also when input and output offsets differ modulo the page, hashed
// (.aimodel: the hash is then taken from the input's mapping) or not
// (.mlirb). Before, such ranges passed through user space: pwrite from a
// mapping of the input by the output's hasher, or 1 MiB reads and writes.
func TestCopyRangeInKernel(t *testing.T) {
	data := testData(4*minKernelCopy + 777)
	copy(data, Magic)
	dir := t.TempDir()
	files(t, dir, aimodel("m/"))
	p := filepath.Join(dir, "blob")
	os.WriteFile(p, data, 0o644)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := open(t, filepath.Join(dir, "m"), OpenOptions{})
	// After the magic and one letter the output is at offset 5: offset 123
	// is 118 bytes off modulo the page, and so is every later span.
	spans := []span{{123, 2*minKernelCopy + 1}, {1000, minKernelCopy + 5}}
	enc, want := rangeEncoder(f, data, spans)
	for _, k := range []struct {
		kind Kind
		name string
	}{{KindAIModel, "o"}, {KindBytecode, "o.mlirb"}} {
		before := kernelCopied.Load()
		res, err := Write(filepath.Join(dir, k.name), k.kind, in, enc, WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(res.MainPath); !bytes.Equal(got, want) {
			t.Errorf("%s: output differs", k.kind)
		}
		if k.kind == KindAIModel && res.Hash != sha(want) {
			t.Errorf("%s: hash %s, want %s", k.kind, res.Hash, sha(want))
		}
		if moved, all := kernelCopied.Load()-before, spans[0].n+spans[1].n; moved != all {
			t.Errorf("%s: %d of the %d bytes of misaligned ranges copied by the kernel", k.kind, moved, all)
		}
	}
}
