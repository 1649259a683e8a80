package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
	want := strings.ToLower(strings.TrimSpace(string(raw)))
	if _, err := hex.DecodeString(want); err != nil || len(want) != 2*sha256.Size {
		msg := fmt.Sprintf("%s does not hold a hex SHA-256 (got %q)", name, truncate(want, 80))
		if !in.opts.IgnoreHash {
			return fmt.Errorf("%s; use --ignore-hash to proceed anyway", msg)
		}
		in.warn(msg + "; ignored because of --ignore-hash")
		return nil
	}
	in.Hash.Want = want
	in.hashRes = make(chan hashResult, 1)
	f, size, prog := in.File, in.Size, in.opts.Progress
	run := func() {
		sum, err := hashReader(io.NewSectionReader(f, 0, size), NewProgress(prog, "verifying "+HashFile, size))
		in.hashRes <- hashResult{sum, err}
	}
	if in.opts.DeferHash {
		go run()
		return nil
	}
	run()
	return in.CheckHash()
}

// CheckHash waits for the main.hash verification and returns its verdict: an
// error on mismatch unless IgnoreHash was set, in which case the mismatch is
// a warning. It returns nil when there was nothing to verify.
func (in *Input) CheckHash() error {
	if in.hashed || in.hashRes == nil {
		return in.hashErr
	}
	in.hashed = true
	r := <-in.hashRes
	name := displayJoin(in.Path, in.AssetMain, HashFile)
	if r.err != nil {
		in.hashErr = fmt.Errorf("verifying %s: %w", name, r.err)
		return in.hashErr
	}
	in.Hash.Checked = true
	in.Hash.Got = r.sum
	in.Hash.Matches = r.sum == in.Hash.Want
	if !in.Hash.Matches {
		msg := fmt.Sprintf("%s says %s but the SHA-256 of %s is %s: the bundle is damaged or was edited by hand", name, in.Hash.Want, MainFile, r.sum)
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

// teeHasher writes to w and hashes the same bytes in another goroutine, so
// hashing a large main.mlirb overlaps with writing it instead of adding to
// it. At most teeBuffers chunks are in flight. Ranges copied by the kernel
// (addRange) are read back by the hashing goroutine with pread.
type teeHasher struct {
	w    io.Writer
	ch   chan hashJob
	free chan []byte
	sum  chan hashResult
	done bool
}

type hashJob struct {
	b      []byte
	f      *os.File
	off, n int64
}

const (
	teeBuffers = 4
	teeChunk   = 1 << 20
)

func newTeeHasher(w io.Writer) *teeHasher {
	t := &teeHasher{w: w, ch: make(chan hashJob, teeBuffers), free: make(chan []byte, teeBuffers), sum: make(chan hashResult, 1)}
	for range teeBuffers {
		t.free <- make([]byte, 0, teeChunk)
	}
	go func() {
		h := sha256.New()
		var err error
		var rbuf []byte
		for j := range t.ch {
			if j.f == nil {
				h.Write(j.b)
				t.free <- j.b[:0]
				continue
			}
			if err != nil {
				continue
			}
			if rbuf == nil {
				rbuf = make([]byte, teeChunk)
			}
			var k int64
			k, err = io.CopyBuffer(h, io.NewSectionReader(j.f, j.off, j.n), rbuf)
			if err == nil && k != j.n {
				err = fmt.Errorf("hashing %s: %d bytes at offset %d, but the file ends after %d: %w", j.f.Name(), j.n, j.off, k, io.ErrUnexpectedEOF)
			}
		}
		t.sum <- hashResult{hex.EncodeToString(h.Sum(nil)), err}
	}()
	return t
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
	return r.sum, r.err
}
