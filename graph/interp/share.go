package interp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/anefix/anefix/graph"
)

// SharedBlobs lets several interpreters hold each distinct weight blob
// once. verify runs REF and CAND side by side, and a rewrite leaves most
// blobs byte-identical; with an interpreter each, both copies would be
// mapped and paged in (twice the resident weights, every byte read from
// both files at every position). Given to both (Options.Blobs), it hands
// the second interpreter asking for a blob of the same key and size the
// bytes the first one got, once they are known to be equal: for free when
// both are the same range of the same file, else by reading the second
// blob once, sequentially, into a small buffer (never mapped, so never
// resident) and comparing. A blob that differs (a compressed weight) or
// whose key differs (a rewrite that renamed it) is held separately. The
// bytes stay valid until Close, which the owner calls after the
// interpreters' Close. It is safe for concurrent use.
type SharedBlobs struct {
	mu     sync.Mutex
	byID   map[blobID][]*heldBlob
	unmaps []func() error
	// held: bytes of the distinct blobs held; shared: bytes handed to a
	// module other than the one first holding them; compared: bytes read
	// to find out they were equal.
	held, shared, compared int64
	buf                    []byte // for comparing, reused
	// folds are the folded lut_to_dense weights (fold.go) computed for
	// one interpreter, by what they read; folded and foldShared count
	// their bytes as held and shared are counted.
	folds              map[foldKey]*foldEntry
	folded, foldShared int64
}

// foldKey identifies a folded lut_to_dense by what it computes from: the
// held bytes of its index and palette blobs (the same pointers for
// byte-identical blobs), its operand and result types and its axis.
type foldKey struct {
	idx, lut *byte
	sig      string
}

type foldEntry struct {
	done chan struct{}
	t    *Tensor
	err  error
}

// blobID is what a blob must have in common with a held one to be
// compared with it.
type blobID struct {
	key  string
	size int64
}

type heldBlob struct {
	r    *graph.Resource
	data []byte
	m    *mapping // nil when the bytes are not a file's mapping
}

// NewSharedBlobs returns an empty store.
func NewSharedBlobs() *SharedBlobs { return &SharedBlobs{byID: map[blobID][]*heldBlob{}} }

// SharedBlobsStats is what a store has done so far.
type SharedBlobsStats struct {
	// Held is the bytes of the distinct blobs the store holds (mapped or
	// read): what the interpreters' weights take, whatever their number.
	Held int64
	// Shared is the bytes served to a module from a blob another module's
	// interpreter asked for first (byte-identical): what a store saves.
	Shared int64
	// Compared is the bytes read once to find blobs equal (zero when they
	// were the same range of the same file).
	Compared int64
	// Folded is the bytes of the palettized weights computed (a
	// lut_to_dense of constants, fold.go), each once for every
	// interpreter whose index and palette blobs are the same bytes;
	// FoldShared is the bytes of those handed to a second interpreter.
	Folded, FoldShared int64
}

// Stats reports the store's counts (zero for a nil store).
func (s *SharedBlobs) Stats() SharedBlobsStats {
	if s == nil {
		return SharedBlobsStats{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return SharedBlobsStats{Held: s.held, Shared: s.shared, Compared: s.compared, Folded: s.folded, FoldShared: s.foldShared}
}

// Close releases the mapped blobs; tensors using them become invalid. A
// nil store has nothing to release.
func (s *SharedBlobs) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, u := range s.unmaps {
		errs = append(errs, u())
	}
	s.unmaps, s.byID, s.folds = nil, map[blobID][]*heldBlob{}, nil
	return errors.Join(errs...)
}

// bytes gives r's bytes, shared with an equal blob held already. The
// returned mapping (nil when not mapped) names the file for faults.
func (s *SharedBlobs) bytes(r *graph.Resource) ([]byte, *mapping, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := blobID{r.Key, r.Blob.Size()}
	for _, h := range s.byID[id] {
		if h.r == r {
			return h.data, h.m, nil
		}
	}
	for _, h := range s.byID[id] {
		eq, err := s.equal(h, r)
		if err != nil {
			return nil, nil, err
		}
		if eq {
			s.shared += id.size
			s.byID[id] = append(s.byID[id], &heldBlob{r: r, data: h.data, m: h.m})
			return h.data, h.m, nil
		}
	}
	data, m, unmap, err := loadBlob(r)
	if err != nil {
		return nil, nil, err
	}
	if unmap != nil {
		s.unmaps = append(s.unmaps, unmap)
	}
	s.held += id.size
	s.byID[id] = append(s.byID[id], &heldBlob{r: r, data: data, m: m})
	return data, m, nil
}

// equal reports whether r's bytes are h's: the same range of the same
// file, or compared by reading r once. A file truncated under anefix is an
// error naming it: r's read short, or h's mapping faulting (the caller's
// run has no record of h's mapping yet, so it could not name it).
func (s *SharedBlobs) equal(h *heldBlob, r *graph.Resource) (eq bool, err error) {
	if sameSection(h.r.Blob, r.Blob) {
		return true, nil
	}
	defer func() {
		if p := recover(); p != nil {
			if f, ok := p.(faultAddr); ok && h.m != nil {
				if err = h.m.faultAt(f.Addr()); err != nil {
					eq = false
					return
				}
			}
			panic(p)
		}
	}()
	if s.buf == nil {
		s.buf = make([]byte, 1<<20)
	}
	buf := s.buf
	for off := int64(0); off < int64(len(h.data)); {
		n := min(int64(len(buf)), int64(len(h.data))-off)
		k, err := r.Blob.ReadAt(buf[:n], off)
		if int64(k) < n {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			if sb, ok := r.Blob.(*graph.SectionBlob); ok {
				if f, ok := sb.R.(*os.File); ok {
					return false, fmt.Errorf("%s changed while anefix read it: the weight at byte offset %d ends early (%w; the file was truncated under anefix); run again on a file nothing is writing", f.Name(), sb.Offset, err)
				}
			}
			return false, fmt.Errorf("reading %d bytes at offset %d: %w", n, off, err)
		}
		s.compared += n
		if !bytes.Equal(buf[:n], h.data[off:off+n]) {
			return false, nil
		}
		off += n
	}
	return true, nil
}

// sameSection reports whether two blobs are the same range of one file
// (the same module loaded twice, or verify given one file as REF and
// CAND).
func sameSection(a, b graph.BlobSource) bool {
	sa, ok := a.(*graph.SectionBlob)
	sb, ok2 := b.(*graph.SectionBlob)
	if !ok || !ok2 || sa.Offset != sb.Offset || sa.N != sb.N {
		return false
	}
	fa, ok := sa.R.(*os.File)
	fb, ok2 := sb.R.(*os.File)
	if !ok || !ok2 {
		return false
	}
	ia, err := fa.Stat()
	if err != nil {
		return false
	}
	ib, err := fb.Stat()
	return err == nil && os.SameFile(ia, ib)
}

// heldData is the first byte of the bytes held for r (nil when none, or
// empty).
func (s *SharedBlobs) heldData(r *graph.Resource) *byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.byID[blobID{r.Key, r.Blob.Size()}] {
		if h.r == r && len(h.data) > 0 {
			return &h.data[0]
		}
	}
	return nil
}

// fold gives the folded weight of key, computed by compute once for every
// interpreter asking (the others wait for it); each gets its own Tensor
// over the same bytes, since reading a tensor's floats changes the Tensor
// (Tensor.Floats), never the bytes.
func (s *SharedBlobs) fold(key foldKey, compute func() (*Tensor, error)) (*Tensor, error) {
	s.mu.Lock()
	if s.folds == nil {
		s.folds = map[foldKey]*foldEntry{}
	}
	e, seen := s.folds[key]
	if !seen {
		e = &foldEntry{done: make(chan struct{})}
		s.folds[key] = e
	}
	s.mu.Unlock()
	if !seen {
		e.t, e.err = compute()
		if e.err == nil && e.t.raw == nil {
			e.err = fmt.Errorf("a folded weight not held as bytes") // newLutOut's raw form; never expected
		}
		s.mu.Lock()
		if e.err == nil {
			s.folded += int64(len(e.t.raw))
		}
		s.mu.Unlock()
		close(e.done)
	} else {
		<-e.done
		if e.err == nil {
			s.mu.Lock()
			s.foldShared += int64(len(e.t.raw))
			s.mu.Unlock()
		}
	}
	if e.err != nil {
		return nil, e.err
	}
	return &Tensor{Elem: e.t.Elem, Shape: slices.Clone(e.t.Shape), raw: e.t.raw, rawEl: e.t.rawEl}, nil
}
