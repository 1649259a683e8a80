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
	"runtime/debug"
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
// work). The state is checkpointed before each chunk is hashed, so the first
// checkpoint (offset 0) exists as soon as run starts.
//
// The file is hashed where the page cache holds it, through read-only
// mappings of mapWindow bytes (pread would first copy every byte: ~0.15 s
// of system time per 1.5 GB pass on the build VM), falling back to reads
// when it cannot be mapped.
func (h *fileHasher) run(p *Progress) {
	defer p.Done()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // see hashMapped
	d := sha256.New()
	var err error
	off := int64(0)
	checkpoint := func() bool {
		state, merr := d.(encoding.BinaryMarshaler).MarshalBinary()
		if merr != nil {
			err = merr
			return false
		}
		h.mu.Lock()
		h.ckpts = append(h.ckpts, state)
		h.cond.Broadcast()
		h.mu.Unlock()
		return true
	}
	mapped := true
	for mapped && err == nil {
		if !checkpoint() || off >= h.size {
			break
		}
		w := min(mapWindow, h.size-off)
		whole, b, merr := mapFile(h.f, off, w)
		if merr != nil {
			mapped = false
			break
		}
		for q := int64(0); q < w; q += ckptEvery {
			if q > 0 && !checkpoint() {
				break
			}
			n := min(ckptEvery, w-q)
			if err = hashMapped(d, b[q:q+n], h.f, off+q); err != nil {
				break
			}
			p.Add(n)
		}
		unmapFile(whole)
		off += w
	}
	if !mapped {
		// Read the rest; the checkpoint at off is already taken.
		err = h.readFrom(d, off, p)
	}
	h.mu.Lock()
	h.end, h.err = true, err
	if err == nil {
		h.sum = hex.EncodeToString(d.Sum(nil))
	}
	h.cond.Broadcast()
	h.mu.Unlock()
}

// readFrom hashes the file from off (a multiple of ckptEvery, whose
// checkpoint is taken) with reads, checkpointing as run does.
func (h *fileHasher) readFrom(d hash.Hash, off int64, p *Progress) error {
	ra := readAhead(h.f, off, h.size)
	defer ra.close()
	for first := true; ; first = false {
		if !first {
			state, err := d.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return err
			}
			h.mu.Lock()
			h.ckpts = append(h.ckpts, state)
			h.cond.Broadcast()
			h.mu.Unlock()
		}
		if off >= h.size {
			return nil
		}
		n := min(ckptEvery, h.size-off)
		c := <-ra.ch
		d.Write(c.b)
		ra.free <- c.b
		if int64(len(c.b)) < n {
			return fmt.Errorf("the file ends after %d bytes, but it had %d when opened: %w", off+int64(len(c.b)), h.size, orEOF(c.err))
		}
		off += n
		p.Add(n)
	}
}

// noMapping makes mapFile fail, so that tests cover the read paths that
// platforms without mmap take.
var noMapping bool

// mapWindow is how much of a file is mapped at a time: a multiple of
// ckptEvery and of the page size. Mapped pages count towards the process's
// resident memory while mapped, so windows are unmapped as soon as they
// are done.
const mapWindow = 16 << 20

// hashMapped adds b, mapped from f at off, to d. A mapped file that shrinks
// under anefix makes the next access fault (SIGBUS); the calling goroutine
// has debug.SetPanicOnFault set, so the fault is a panic, turned here into
// the same error a short read gives.
func hashMapped(d hash.Hash, b []byte, f *os.File, off int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			err = fmt.Errorf("%s changed while anefix read it: the %d bytes at offset %d are no longer there (was it truncated?): %w", f.Name(), len(b), off, io.ErrUnexpectedEOF)
		}
	}()
	d.Write(b)
	return nil
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

// readAhead starts reading f from start to size. The consumer receives
// chunks from ch in order, returns each buffer on free, and calls close when
// done (also early); a short chunk is the last one.
func readAhead(f *os.File, start, size int64) *reader {
	r := &reader{ch: make(chan chunk, readAheadBufs), free: make(chan []byte, readAheadBufs), stop: make(chan struct{})}
	for range readAheadBufs {
		r.free <- make([]byte, ckptEvery)
	}
	go func() {
		// At most readAheadBufs chunks are out, so sends on ch never block.
		for off := start; off < size; {
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

// hashRange adds n bytes of f at off to d, through mappings where it can
// (see fileHasher.run), else with reads into buf.
func hashRange(d hash.Hash, f *os.File, off, n int64, buf []byte) error {
	for n > 0 {
		w := min(mapWindow, n)
		whole, b, err := mapFile(f, off, w)
		if err != nil {
			break
		}
		err = hashMapped(d, b, f, off)
		unmapFile(whole)
		if err != nil {
			return err
		}
		off, n = off+w, n-w
	}
	k, err := io.CopyBuffer(d, io.NewSectionReader(f, off, n), buf)
	if err == nil && k != n {
		err = fmt.Errorf("hashing %s: %d bytes at offset %d, but the file ends after %d: %w", f.Name(), n, off, k, io.ErrUnexpectedEOF)
	}
	return err
}

// teeHasher writes to w and hashes the same bytes in another goroutine, so
// hashing a large main.mlirb overlaps with writing it instead of adding to
// it. At most teeBuffers chunks are in flight. Ranges copied by the kernel
// (addRange) are hashed by the goroutine from a mapping of the input
// (hashRange), never read back from the output.
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
}

type hashJob struct {
	b      []byte
	f      *os.File
	off, n int64
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
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // see hashMapped
	var (
		d    hash.Hash // nil while the output equals the start of src's file
		pos  int64     // output bytes seen
		own  int64     // bytes hashed here
		err  error
		rbuf []byte
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
		if d != nil && err == nil {
			err = hashRange(d, j.f, j.off, j.n, buf())
			own += j.n
		}
		pos += j.n
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
	if err != nil {
		// d may be half-updated (a fault inside Write, see hashMapped).
		t.sum <- hashResult{"", err, own}
		return
	}
	t.sum <- hashResult{hex.EncodeToString(d.Sum(nil)), err, own}
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
