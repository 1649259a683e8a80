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
	name := displayJoin(in.Path, in.AssetMain, hashFile)
	raw, err := readInside(in.Root, filepath.ToSlash(filepath.Join(aiRel, hashFile)), maxHashFileSize)
	if errors.Is(err, os.ErrNotExist) {
		in.warn(fmt.Sprintf("%s is missing, so %s was not verified", name, mainFile))
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
	prog := terminalProgress(in.opts.Progress, "verifying "+hashFile, in.Size)
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
	name := displayJoin(in.Path, in.AssetMain, hashFile)
	if r.err != nil {
		in.hashErr = fmt.Errorf("verifying %s: %w", name, r.err)
		return in.hashErr
	}
	in.Hash.Checked = true
	in.Hash.Got = r.sum
	form := in.Hash.Form
	in.Hash.Matches = r.sum == in.Hash.Want
	if !in.Hash.Matches {
		msg := fmt.Sprintf("%s (%s) holds the digest %s but the SHA-256 of %s is %s: the bundle is damaged or was edited by hand", name, form, in.Hash.Want, displayJoin(in.Path, in.AssetMain, mainFile), r.sum)
		if !in.opts.IgnoreHash {
			in.hashErr = fmt.Errorf("%s; use --ignore-hash to proceed anyway", msg)
			return in.hashErr
		}
		in.warn(msg + "; proceeding because of --ignore-hash")
	}
	return nil
}

func hashReader(r io.Reader, p *progress) (string, error) {
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
// work). The state is checkpointed before the first byte and after every
// ckptEvery bytes.
//
// Each chunk is read into a buffer that the hash then reads from this
// core's cache. On the build VM (2026-12-03, `go test ./graph/bundle -run
// '^$' -bench HashPass`) that costs less than hashing through read-only
// mappings of the page cache, and does not depend on how the page cache
// holds the file; reading on another goroutine costs more again (the
// hash then reads the buffer from the other core's cache).
func (h *fileHasher) run(p *progress) {
	defer p.Done()
	sum, err := h.hashFile(p)
	h.mu.Lock()
	h.end, h.sum, h.err = true, sum, err
	h.cond.Broadcast()
	h.mu.Unlock()
}

// hashFile does run's work and returns the hex SHA-256.
func (h *fileHasher) hashFile(p *progress) (string, error) {
	d := sha256.New()
	buf := make([]byte, ckptEvery)
	for off := int64(0); ; {
		state, err := d.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			return "", err
		}
		h.mu.Lock()
		h.ckpts = append(h.ckpts, state)
		h.cond.Broadcast()
		h.mu.Unlock()
		if off >= h.size {
			break
		}
		n := min(ckptEvery, h.size-off)
		k, err := h.f.ReadAt(buf[:n], off)
		if int64(k) < n {
			return "", fmt.Errorf("the file ends after %d bytes, but it had %d when opened: %w", off+int64(k), h.size, orEOF(err))
		}
		d.Write(buf[:n])
		off += n
		p.Add(n)
	}
	return hex.EncodeToString(d.Sum(nil)), nil
}

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

// hashRange adds n bytes of f at off to d, reading them into buf (see
// fileHasher.run).
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
// (addRange) are hashed by the goroutine from the input (hashRange), never
// read back from the output.
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
