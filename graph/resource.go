package graph

import (
	"bytes"
	"fmt"
	"io"
)

// ResourceKind says what a resource entry holds.
type ResourceKind uint8

const (
	// BlobResource is binary data (weights), the common case.
	BlobResource ResourceKind = iota
	// BoolResource is a boolean entry.
	BoolResource
	// StringResource is a string entry.
	StringResource
)

// Resource is one entry of a module's resource table: a handle to bytes that
// stay where they are (in the input file) until someone reads them.
type Resource struct {
	// Dialect that owns the entry ("builtin" for dense_resource blobs).
	Dialect string
	Key     string
	Kind    ResourceKind
	// Alignment of the blob data in bytes (a power of two; 1 if unknown).
	Alignment uint64
	// Blob gives the data of a BlobResource without loading it.
	Blob BlobSource
	// Bool and String hold the value of the other kinds.
	Bool   bool
	String string
	// Text holds an entry kept verbatim (external resources).
	Text string
}

// MaxBlobAlignment is the largest blob (and section) alignment anefix reads,
// in bytecode and in text alike, so it never writes an alignment its own
// reader refuses. Larger ones are refused as absurd: padding to them would
// grow a tiny input by gigabytes.
const MaxBlobAlignment = 1 << 16

// ValidAlignment reports whether a is a power of two no larger than
// MaxBlobAlignment.
func ValidAlignment(a uint64) bool {
	return a != 0 && a&(a-1) == 0 && a <= MaxBlobAlignment
}

// BlobSource is where a blob's bytes live: a section of the input file, a
// decoded hex string, a generator. ReadAt follows io.ReaderAt.
type BlobSource interface {
	Size() int64
	ReadAt(p []byte, off int64) (int, error)
}

// Bytes reads the whole blob. Use it only for blobs a pass really needs in
// memory; writers should stream with Reader.
func (r *Resource) Bytes() ([]byte, error) {
	if r.Blob == nil {
		return nil, fmt.Errorf("resource %q has no blob data", r.Key)
	}
	buf := make([]byte, r.Blob.Size())
	n, err := r.Blob.ReadAt(buf, 0)
	if err != nil && (err != io.EOF || n < len(buf)) {
		if err == io.EOF { // a blob that runs past the end of its file
			return nil, fmt.Errorf("reading resource %q: only %d of its %d bytes are there (the file is truncated); re-export the model", r.Key, n, len(buf))
		}
		return nil, fmt.Errorf("reading resource %q: %w", r.Key, err)
	}
	return buf, nil
}

// Reader streams a blob.
func (r *Resource) Reader() io.Reader { return io.NewSectionReader(r.Blob, 0, r.Blob.Size()) }

// Size of the blob in bytes (0 for non-blob entries).
func (r *Resource) Size() int64 {
	if r.Blob == nil {
		return 0
	}
	return r.Blob.Size()
}

// MemBlob is a blob held in memory (small constants, converted weights).
type MemBlob []byte

// Size implements BlobSource.
func (b MemBlob) Size() int64 { return int64(len(b)) }

// ReadAt implements BlobSource.
func (b MemBlob) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(b).ReadAt(p, off)
}

// SectionBlob is a blob stored at a fixed place in a larger file.
type SectionBlob struct {
	R      io.ReaderAt
	Offset int64
	N      int64
}

// Size implements BlobSource.
func (s *SectionBlob) Size() int64 { return s.N }

// ReadAt implements BlobSource.
func (s *SectionBlob) ReadAt(p []byte, off int64) (int, error) {
	return io.NewSectionReader(s.R, s.Offset, s.N).ReadAt(p, off)
}

// AddResource appends a blob resource of the builtin dialect and returns it.
// The key must be unique in the module.
func (m *Module) AddResource(key string, align uint64, blob BlobSource) *Resource {
	r := &Resource{Dialect: "builtin", Key: key, Kind: BlobResource, Alignment: align, Blob: blob}
	m.Resources = append(m.Resources, r)
	return r
}

// RemoveResource drops the resource with the given key (no-op if absent).
func (m *Module) RemoveResource(key string) {
	for i, r := range m.Resources {
		if r.Key == key {
			countWork(workResources, i+1)
			m.Resources = append(m.Resources[:i], m.Resources[i+1:]...)
			return
		}
	}
	countWork(workResources, len(m.Resources))
}

// RemoveResources drops, for each key, the first resource with that key
// (as RemoveResource does, in one pass over the table for any number of
// keys).
func (m *Module) RemoveResources(keys ...string) {
	if len(keys) == 0 {
		return
	}
	drop := make(map[string]bool, len(keys))
	for _, k := range keys {
		drop[k] = true
	}
	countWork(workResources, len(m.Resources))
	kept := m.Resources[:0]
	for _, r := range m.Resources {
		if drop[r.Key] {
			delete(drop, r.Key)
			continue
		}
		kept = append(kept, r)
	}
	clear(m.Resources[len(kept):])
	m.Resources = kept
}

// UniqueResourceKey returns base, or base_N, not yet used in the module.
func (m *Module) UniqueResourceKey(base string) string { return m.ResourceKeys().Unique(base) }

// ResourceKeys hands out resource keys not yet used in a module, as
// UniqueResourceKey does, for a caller that adds many resources: the table
// is scanned once, not per key.
type ResourceKeys struct{ used map[string]bool }

// ResourceKeys starts handing out keys unused in m (at this moment).
func (m *Module) ResourceKeys() *ResourceKeys {
	countWork(workResources, len(m.Resources))
	used := make(map[string]bool, len(m.Resources))
	for _, r := range m.Resources {
		used[r.Key] = true
	}
	return &ResourceKeys{used: used}
}

// Unique returns base, or base_N, neither in the module nor handed out
// before, and marks it used.
func (k *ResourceKeys) Unique(base string) string {
	key := base
	for i := 1; k.used[key]; i++ {
		key = fmt.Sprintf("%s_%d", base, i)
	}
	k.used[key] = true
	return key
}

// ResourceRefs counts references to each resource key from the attributes
// and properties of every op. Keys referred to only from inside opaque
// attribute text count once per attribute; ok is false when some
// attribute's type is not modeled, so references may be missing (a caller
// that deletes blobs must then keep them).
func (m *Module) ResourceRefs() (map[string]int, bool) {
	refs := map[string]int{}
	ok := true
	var keys []string
	for _, r := range m.Resources {
		keys = append(keys, r.Key)
	}
	var finder *NameFinder // made at the first text to search
	found := func(k string) { refs[k]++ }
	var visit func(a Attr)
	visit = func(a Attr) {
		switch x := a.(type) {
		case nil:
		case *DenseResourceAttr:
			refs[x.Key]++
		case *ArrayAttr:
			for _, e := range x.Elems {
				visit(e)
			}
		case *DictAttr:
			if x != nil {
				for _, e := range x.Entries {
					visit(e.Value)
				}
			}
		case *OpaqueAttr, *RawAttr:
			// One scan of the text for every key (per key, it was time in
			// keys x texts: TestResourceRefsWorkLinear).
			if len(keys) > 0 {
				if finder == nil {
					finder = NewNameFinder(keys)
				}
				finder.Find(x.String(), found)
			}
		case *IntegerAttr, *FloatAttr, *StringAttr, *BoolAttr, *UnitAttr,
			*TypeAttr, *SymbolRefAttr, *DenseElementsAttr, *DenseArrayAttr, *LocAttr:
		default:
			ok = false
		}
	}
	m.Walk(func(op *Operation) bool {
		visit(op.Attrs)
		visit(op.Props)
		return true
	})
	return refs, ok
}

// FormatBytes prints n in the largest binary unit that keeps it >= 1
// ("1.5 GiB"), as every size anefix reports to people.
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}
