package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// startHash reads main.hash and starts (or, without DeferHash, completes)
// comparing it with the SHA-256 of main.mlirb.
func (in *Input) startHash(aiRel string) error {
	name := displayJoin(in.Path, in.AssetMain, HashFile)
	raw, err := readInside(in.Root, filepath.ToSlash(filepath.Join(aiRel, HashFile)), maxHashFileSize)
	if errors.Is(err, os.ErrNotExist) {
		in.warn(fmt.Sprintf("%s is missing, so %s was not verified", name, MainFile))
		return nil
	}
	if err != nil {
		return fmt.Errorf("input %s: %w", in.Path, err)
	}
	want, form, err := ParseHash(raw)
	if err != nil {
		msg := fmt.Sprintf("%s: %v", name, err)
		if !in.opts.IgnoreHash {
			return fmt.Errorf("%s; use --ignore-hash to proceed anyway (an output then gets a new raw main.hash)", msg)
		}
		in.warn(msg + "; ignored because of --ignore-hash")
		return nil
	}
	in.Hash.Form = form
	in.Hash.Want = want
	in.hasher = newFileHasher(in.File, in.Size)
	prog := NewProgress(in.opts.Progress, "verifying "+HashFile, in.Size)
	if in.opts.DeferHash {
		go in.hasher.run(prog)
		return nil
	}
	in.hasher.run(prog)
	return in.CheckHash()
}

// CheckHash waits for the main.hash verification and returns its verdict: an
// error on mismatch unless IgnoreHash was set, in which case the mismatch is
// a warning. It returns nil when there was nothing to verify.
func (in *Input) CheckHash() error {
	if in.hashed || in.hasher == nil {
		return in.hashErr
	}
	in.hashed = true
	var r hashResult
	r.sum, r.err = in.hasher.result()
	name := displayJoin(in.Path, in.AssetMain, HashFile)
	if r.err != nil {
		in.hashErr = fmt.Errorf("verifying %s: %w", name, r.err)
		return in.hashErr
	}
	in.Hash.Checked = true
	in.Hash.Got = r.sum
	form := in.Hash.Form
	in.Hash.Matches = r.sum == in.Hash.Want
	if !in.Hash.Matches {
		msg := fmt.Sprintf("%s (%s) holds the digest %s but the SHA-256 of %s is %s: the bundle is damaged or was edited by hand", name, form, in.Hash.Want, displayJoin(in.Path, in.AssetMain, MainFile), r.sum)
		if !in.opts.IgnoreHash {
			in.hashErr = fmt.Errorf("%s; use --ignore-hash to proceed anyway", msg)
			return in.hashErr
		}
		in.warn(msg + "; proceeding because of --ignore-hash")
	}
	return nil
}

func hashReader(r io.Reader, p *Progress) (string, error) {
	defer p.Done()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	if _, err := io.CopyBuffer(h, p.Reader(r), buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// fileHasher computes the SHA-256 of the first size bytes of a file and
// keeps the hash state at every ckptEvery bytes. An output that starts with
// the same bytes as its input (all of it for a convert with no change)
// resumes from those states instead of hashing the same bytes again: on two
// cores, SHA-256 of a 1.5 GB main.mlirb is most of what a convert costs.
type fileHasher struct {
	f    *os.File
	size int64

	mu    sync.Mutex
	cond  *sync.Cond
	ckpts [][]byte // ckpts[i] is the marshaled state after i*ckptEvery bytes
	end   bool
	sum   string
	err   error
}

const ckptEvery = 1 << 20

func newFileHasher(f *os.File, size int64) *fileHasher {
	h := &fileHasher{f: f, size: size}
	h.cond = sync.NewCond(&h.mu)
	return h
}

// run hashes the file; call it once (in a goroutine to overlap with other
// work). The state is checkpointed before each chunk is read, so the first
// checkpoint (offset 0) exists as soon as run starts.
func (h *fileHasher) run(p *Progress) {
	defer p.Done()
	d := sha256.New()
	ra := readAhead(h.f, h.size)
	defer ra.close()
	var err error
	for off := int64(0); ; {
		state, merr := d.(encoding.BinaryMarshaler).MarshalBinary()
		if merr != nil {
			err = merr
			break
		}
		h.mu.Lock()
		h.ckpts = append(h.ckpts, state)
		h.cond.Broadcast()
		h.mu.Unlock()
		if off >= h.size {
			break
		}
		n := min(ckptEvery, h.size-off)
		c := <-ra.ch
		d.Write(c.b)
		ra.free <- c.b
		if int64(len(c.b)) < n {
			err = fmt.Errorf("the file ends after %d bytes, but it had %d when opened: %w", off+int64(len(c.b)), h.size, orEOF(c.err))
			break
		}
		off += n
		p.Add(n)
	}
	h.mu.Lock()
	h.end, h.err = true, err
	if err == nil {
		h.sum = hex.EncodeToString(d.Sum(nil))
	}
	h.cond.Broadcast()
	h.mu.Unlock()
}

// reader reads a file in ckptEvery chunks one goroutine ahead of its
// consumer, so that on two cores copying out of the page cache overlaps with
// hashing instead of adding to it (about 0.1 s of a convert's 0.9 s).
type reader struct {
	ch   chan chunk
	free chan []byte
	stop chan struct{}
}

type chunk struct {
	b   []byte // short (possibly empty) only at a read error or early EOF
	err error
}

const readAheadBufs = 4

// readAhead starts reading the first size bytes of f. The consumer receives
// chunks from ch in order, returns each buffer on free, and calls close when
// done (also early); a short chunk is the last one.
func readAhead(f *os.File, size int64) *reader {
	r := &reader{ch: make(chan chunk, readAheadBufs), free: make(chan []byte, readAheadBufs), stop: make(chan struct{})}
	for range readAheadBufs {
		r.free <- make([]byte, ckptEvery)
	}
	go func() {
		// At most readAheadBufs chunks are out, so sends on ch never block.
		for off := int64(0); off < size; {
			var b []byte
			select {
			case b = <-r.free:
			case <-r.stop:
				return
			}
			n := min(int64(cap(b)), size-off)
			k, err := f.ReadAt(b[:n], off)
			r.ch <- chunk{b[:k], err}
			if int64(k) < n {
				return
			}
			off += n
		}
	}()
	return r
}

func (r *reader) close() { close(r.stop) }

func orEOF(err error) error {
	if err == nil || err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// result waits for run to finish and returns the hex SHA-256.
func (h *fileHasher) result() (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for !h.end {
		h.cond.Wait()
	}
	return h.sum, h.err
}

// resume returns a SHA-256 state holding the file's first c bytes, with c
// at most p and as large as the checkpoints allow. It waits for run to get
// that far (or to stop early on a read error).
func (h *fileHasher) resume(p int64) (hash.Hash, int64) {
	i := int(p / ckptEvery)
	h.mu.Lock()
	for len(h.ckpts) <= i && !h.end {
		h.cond.Wait()
	}
	var state []byte
	if len(h.ckpts) > 0 {
		i = min(i, len(h.ckpts)-1)
		state = h.ckpts[i]
	}
	h.mu.Unlock()
	d := sha256.New()
	if state == nil || d.(encoding.BinaryUnmarshaler).UnmarshalBinary(state) != nil {
		return sha256.New(), 0
	}
	return d, int64(i) * ckptEvery
}

// equalAt reports whether the file holds b at off; buf is scratch space at
// least len(b) long.
func (h *fileHasher) equalAt(b []byte, off int64, buf []byte) bool {
	if off+int64(len(b)) > h.size {
		return false
	}
	k, _ := h.f.ReadAt(buf[:len(b)], off)
	return k == len(b) && bytes.Equal(buf[:k], b)
}

// hashRange adds n bytes of f at off to d.
func hashRange(d hash.Hash, f *os.File, off, n int64, buf []byte) error {
	k, err := io.CopyBuffer(d, io.NewSectionReader(f, off, n), buf)
	if err == nil && k != n {
		err = fmt.Errorf("hashing %s: %d bytes at offset %d, but the file ends after %d: %w", f.Name(), n, off, k, io.ErrUnexpectedEOF)
	}
	return err
}

// teeHasher writes to w and hashes the same bytes in another goroutine, so
// hashing a large main.mlirb overlaps with writing it instead of adding to
// it. At most teeBuffers chunks are in flight. Ranges copied by the kernel
// (addRange) are read back by the hashing goroutine with pread.
//
// With src (the input's hasher; may be nil) it first only compares: while
// the output so far equals the start of src's file, nothing is hashed. If
// the whole output equals the file, its hash is src's; at the first
// difference the goroutine resumes from src's checkpoint at or before it.
type teeHasher struct {
	w    io.Writer
	ch   chan hashJob
	free chan []byte
	sum  chan hashResult
	done bool
	// own counts the bytes the goroutine hashed itself (not taken from
	// src's checkpoints); valid after finish.
	own int64
	// prog counts the bytes written for addCopy; set before the first
	// addCopy (the job's channel send orders it before any use).
	prog *Progress
}

type hashJob struct {
	b      []byte
	f      *os.File
	off, n int64
	// out, when set, also receives the range's bytes at dst (addCopy).
	out *os.File
	dst int64
}

const (
	teeBuffers = 4
	// teeQueue bounds the jobs waiting for the hashing goroutine. Range jobs
	// hold no bytes, so it is generous: the kernel copy should not wait for
	// the hash (which may itself wait for the input's verification to reach
	// a checkpoint) while a core is free to copy.
	teeQueue = 1024
	teeChunk = 1 << 20
)

func newTeeHasher(w io.Writer, src *fileHasher) *teeHasher {
	t := &teeHasher{w: w, ch: make(chan hashJob, teeQueue), free: make(chan []byte, teeBuffers), sum: make(chan hashResult, 1)}
	for range teeBuffers {
		t.free <- make([]byte, 0, teeChunk)
	}
	go t.run(src)
	return t
}

func (t *teeHasher) run(src *fileHasher) {
	var (
		d    hash.Hash // nil while the output equals the start of src's file
		pos  int64     // output bytes seen
		own  int64     // bytes hashed here
		err  error
		rbuf []byte
		pw   *pwriter // started by the first addCopy
	)
	buf := func() []byte {
		if rbuf == nil {
			rbuf = make([]byte, teeChunk)
		}
		return rbuf
	}
	diverge := func() {
		var c int64
		d, c = src.resume(pos)
		if err == nil {
			err = hashRange(d, src.f, c, pos-c, buf())
			own += pos - c
		}
	}
	if src == nil {
		d = sha256.New()
	}
	for j := range t.ch {
		if j.f == nil {
			if d == nil && !src.equalAt(j.b, pos, buf()) {
				diverge()
			}
			if d != nil {
				d.Write(j.b)
				own += int64(len(j.b))
			}
			pos += int64(len(j.b))
			t.free <- j.b[:0]
			continue
		}
		if d == nil && (j.f != src.f || j.off != pos || pos+j.n > src.size) {
			diverge()
		}
		switch {
		case j.out != nil:
			if pw == nil {
				pw = newPwriter(t.prog)
			}
			if err == nil {
				// With d nil the bytes are the input's at pos, which the
				// shared hash covers; they still have to be written.
				err = copyOut(d, j, pw)
				if d != nil {
					own += j.n
				}
			}
		case d != nil && err == nil:
			err = hashRange(d, j.f, j.off, j.n, buf())
			own += j.n
		}
		pos += j.n
	}
	if pw != nil {
		if werr := pw.close(); err == nil {
			err = werr
		}
	}
	if d == nil && pos == src.size {
		sum, serr := src.result()
		if err == nil {
			err = serr
		}
		t.sum <- hashResult{sum, err, own}
		return
	}
	if d == nil {
		diverge()
	}
	t.sum <- hashResult{hex.EncodeToString(d.Sum(nil)), err, own}
}

// addCopy is addRange that also writes the n bytes to out at dst, from the
// buffer they are hashed from. mainWriter uses it where the kernel copy
// would be slow (see CopyRange): the bytes pass through user space once
// for both jobs.
func (t *teeHasher) addCopy(f *os.File, off, n int64, out *os.File, dst int64) {
	t.ch <- hashJob{f: f, off: off, n: n, out: out, dst: dst}
}

// copyOut reads j's range in chunks (in another goroutine, one chunk
// ahead), hashes each into d (when not nil) and hands it to pw to write.
// Buffers circulate through pw.free: reader, hasher, writer, pool.
func copyOut(d hash.Hash, j hashJob, pw *pwriter) error {
	type read struct {
		b   []byte
		k   int64
		err error
	}
	// Sends never block: at most len(pool) buffers exist.
	ch := make(chan read, pwBuffers)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(ch)
		for k := int64(0); k < j.n; {
			var b []byte
			select {
			case b = <-pw.free:
			case <-stop:
				return
			}
			m := min(int64(len(b)), j.n-k)
			r, err := j.f.ReadAt(b[:m], j.off+k)
			ch <- read{b[:r], k, err}
			if int64(r) < m {
				return
			}
			k += m
		}
	}()
	for c := range ch {
		if want := min(int64(cap(c.b)), j.n-c.k); int64(len(c.b)) < want {
			pw.free <- c.b[:cap(c.b)]
			return fmt.Errorf("copying %d bytes at offset %d of %s: the file ends after %d: %w", j.n, j.off, j.f.Name(), j.off+c.k+int64(len(c.b)), orEOF(c.err))
		}
		if d != nil {
			d.Write(c.b)
		}
		pw.ch <- pwrite{j.out, c.b, j.dst + c.k}
	}
	return nil
}

// pwriter writes buffers at given offsets in its own goroutine, so that
// writing copied ranges overlaps with hashing them.
const pwBuffers = 8

type pwriter struct {
	ch   chan pwrite
	free chan []byte
	done chan error
}

type pwrite struct {
	out *os.File
	b   []byte
	off int64
}

func newPwriter(prog *Progress) *pwriter {
	w := &pwriter{ch: make(chan pwrite, pwBuffers), free: make(chan []byte, pwBuffers), done: make(chan error, 1)}
	for range pwBuffers {
		w.free <- make([]byte, teeChunk)
	}
	go func() {
		var err error
		for p := range w.ch {
			if err == nil {
				_, err = p.out.WriteAt(p.b, p.off)
				prog.Add(int64(len(p.b)))
			}
			w.free <- p.b[:cap(p.b)]
		}
		w.done <- err
	}()
	return w
}

// close waits for the pending writes and returns the first error.
func (w *pwriter) close() error {
	close(w.ch)
	return <-w.done
}

func (t *teeHasher) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	for q := p[:n]; len(q) > 0; {
		b := <-t.free
		k := min(cap(b), len(q))
		t.ch <- hashJob{b: append(b, q[:k]...)}
		q = q[k:]
	}
	return n, err
}

// addRange hashes n bytes of f at off next, in order with the writes.
func (t *teeHasher) addRange(f *os.File, off, n int64) {
	t.ch <- hashJob{f: f, off: off, n: n}
}

// finish ends the hashing goroutine and returns the hex SHA-256 of
// everything written.
func (t *teeHasher) finish() (string, error) {
	if t.done {
		return "", errors.New("teeHasher finished twice")
	}
	t.done = true
	close(t.ch)
	r := <-t.sum
	t.own = r.own
	return r.sum, r.err
}
