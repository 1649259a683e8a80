package bundle

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// rangeCopier is implemented by the io.Writer that Write hands an Encoder.
// CopyRange appends n bytes of f starting at off to the output. When the
// output is a file the kernel moves the bytes (copy_file_range) instead of
// passing them through user space, which is what makes copying gigabytes of
// resource blobs cheap. Encoders should use it for verbatim copies:
//
//	if rc, ok := w.(interface{ CopyRange(*os.File, int64, int64) error }); ok { ... }
//
// (the anonymous interface keeps codecs from importing this package).
type rangeCopier interface {
	CopyRange(f *os.File, off, n int64) error
}

// minKernelCopy is the size below which CopyRange just reads and writes:
// flushing the buffer and a system call cost more than copying small blobs.
const minKernelCopy = 256 << 10

// mainWriter is what an Encoder writes the main file into: it checks the
// first bytes against the bytecode magic before any byte reaches the output,
// buffers, counts, reports progress, hashes on the side and offers
// CopyRange.
type mainWriter struct {
	kind    Kind
	head    []byte
	checked bool
	bw      *bufio.Writer
	out     *os.File // the destination file; nil for stdout
	th      *teeHasher
	prog    *progress
	n       int64
	srcs    map[*os.File]*os.File
}

// kernelCopied counts the bytes CopyRange handed to the kernel to copy
// (os.File.ReadFrom: copy_file_range on Linux), for tests.
var kernelCopied atomic.Int64

// src, when not nil, is the input's hasher: output bytes equal to the
// input's are then not hashed twice (see teeHasher).
func newMainWriter(w io.Writer, out *os.File, kind Kind, hash bool, src *fileHasher, prog *progress) *mainWriter {
	m := &mainWriter{kind: kind, out: out, prog: prog}
	if hash {
		m.th = newTeeHasher(w, src)
		w = m.th
	}
	m.bw = bufio.NewWriterSize(w, 1<<20)
	return m
}

func (m *mainWriter) Write(p []byte) (int, error) {
	if !m.checked {
		k := min(len(Magic)-len(m.head), len(p))
		m.head = append(m.head, p[:k]...)
		if len(m.head) < len(Magic) {
			return len(p), nil
		}
		if err := m.check(); err != nil {
			return 0, err
		}
		if err := m.write(m.head); err != nil {
			return 0, err
		}
		if err := m.write(p[k:]); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if err := m.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (m *mainWriter) write(p []byte) error {
	n, err := m.bw.Write(p)
	m.n += int64(n)
	m.prog.Add(int64(n))
	return err
}

// check refuses text where bytecode is required and the other way round.
func (m *mainWriter) check() error {
	m.checked = true
	isBC := bytes.Equal(m.head, Magic)
	switch m.kind {
	case KindAIModel, KindLLMBundle, KindBytecode:
		if !isBC {
			return fmt.Errorf("the %s output must be MLIR bytecode, but the encoder wrote something else (first bytes %q); use --emit bytecode", m.kind, m.head)
		}
	case KindText:
		if isBC {
			return errors.New("the text output got MLIR bytecode from the encoder; use --emit generic or pretty")
		}
	}
	return nil
}

func (m *mainWriter) CopyRange(f *os.File, off, n int64) error {
	if off < 0 || n < 0 {
		return fmt.Errorf("CopyRange: negative offset %d or length %d", off, n)
	}
	if !m.checked || m.out == nil || n < minKernelCopy {
		return m.copySlow(f, off, n)
	}
	src, err := m.reopen(f)
	if err != nil {
		return m.copySlow(f, off, n)
	}
	if h := kernelCopyHead(m.n, off); h > 0 && n-h >= minKernelCopy {
		if err := m.copySlow(f, off, h); err != nil {
			return err
		}
		off, n = off+h, n-h
	}
	if err := m.bw.Flush(); err != nil {
		return err
	}
	if _, err := src.Seek(off, io.SeekStart); err != nil {
		return err
	}
	if m.th != nil {
		m.th.addRange(f, off, n)
	}
	written, err := m.out.ReadFrom(&io.LimitedReader{R: src, N: n})
	kernelCopied.Add(written)
	m.n += written
	m.prog.Add(written)
	if err == nil && written != n {
		err = fmt.Errorf("copying %d bytes at offset %d of %s: the file ends after %d: %w", n, off, f.Name(), written, io.ErrUnexpectedEOF)
	}
	return err
}

// copyRound is how much Linux copies per round in copy_file_range between
// files of one ext4 file system (it splices through a pipe of 16 pages).
// The rounds end at page boundaries of the source; when those are
// copyRound boundaries of the output too, the output's page cache gets
// 64 KiB folios instead of single pages, which on the build VM made the
// kernel copy of full arm A's weights 0.40 s instead of 0.58 s (`cp`,
// copying from offset 0 to 0, is always aligned). When input and output
// offsets differ modulo the page (a rewrite that changed the IR in front
// of the weights) no head can align it, and the kernel still copies: 1.5 GB
// at offsets 1208 bytes apart took 0.55-0.58 s of system time, against
// 1.6-1.9 s for pwrite from a mapping of the input, which the rewrite did
// before (3 runs each, load average 22 on 2 cores; graph/bundle's
// TestCopyRangeInKernel keeps the path).
const copyRound = 64 << 10

// kernelCopyHead returns how many bytes to copy through the buffer first so
// that the kernel copy from input offset off to output offset out starts
// aligned: possible when the two agree modulo the page size, as they do
// for every blob of an unchanged main.mlirb (0 otherwise, and when already
// aligned).
func kernelCopyHead(out, off int64) int64 {
	page := int64(os.Getpagesize())
	if (out-off)%page != 0 {
		return 0
	}
	return -out & (copyRound - 1)
}

func (m *mainWriter) copySlow(f *os.File, off, n int64) error {
	w, err := io.CopyN(m, io.NewSectionReader(f, off, n), n)
	if err == io.EOF {
		return fmt.Errorf("copying %d bytes at offset %d of %s: the file ends after %d: %w", n, off, f.Name(), w, io.ErrUnexpectedEOF)
	}
	return err
}

// reopen gives f a second descriptor with its own file offset, which
// copy_file_range through os.File.ReadFrom needs; f itself may be read
// concurrently with ReadAt by the codec and the hash check. /proc/self/fd
// also works for the unlinked file stdin is spooled to.
func (m *mainWriter) reopen(f *os.File) (*os.File, error) {
	if g, ok := m.srcs[f]; ok {
		return g, nil
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd uintptr
	if err := sc.Control(func(d uintptr) { fd = d }); err != nil {
		return nil, err
	}
	g, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return nil, err
	}
	a, err1 := f.Stat()
	b, err2 := g.Stat()
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		g.Close()
		return nil, errors.New("reopened a different file")
	}
	if m.srcs == nil {
		m.srcs = map[*os.File]*os.File{}
	}
	m.srcs[f] = g
	return g, nil
}

// finish completes a short output, flushes, ends hashing and returns the
// hex SHA-256 (empty when not hashing). It must be called exactly once, also
// after an encoder error, so the hashing goroutine ends.
func (m *mainWriter) finish() (string, error) {
	var err error
	if !m.checked {
		err = m.check()
		if err == nil {
			err = m.write(m.head)
		}
	}
	if ferr := m.bw.Flush(); err == nil {
		err = ferr
	}
	var sum string
	if m.th != nil {
		var herr error
		sum, herr = m.th.finish()
		if err == nil {
			err = herr
		}
	}
	for _, g := range m.srcs {
		g.Close()
	}
	return sum, err
}
