package graph

import (
	"sort"
	"sync"
	"sync/atomic"
)

// Work is what the graph package's traversals and look-ups did while
// CountWork ran: counts of steps, not times, so a test can bound what an
// analysis or a pass costs deterministically (its work per op must not grow
// with the module: see passes' TestPassWorkLinear). Each field counts a kind
// of step a loop over the module takes through this package.
type Work struct {
	// Ops: ops visited by Walk, listed by Block.Ops, stepped to by Next,
	// renumbered for IsBefore, scanned by Graphs, Symbols and the verifier,
	// or stepped over by the state analysis' walks.
	Ops int64
	// Uses: use-list entries handed out by Value.Uses or scanned to drop a
	// use.
	Uses int64
	// Lookups: island and value-set look-ups (Islands.Index, Has, Root;
	// valueSets.Find, one per step of its path), the state analysis'
	// comparisons of two port names, and the bytes of names a NameFinder
	// was built from and of texts it searched.
	Lookups int64
	// Resources: resource-table entries scanned (Module.Resource,
	// UniqueResourceKey, RemoveResource).
	Resources int64
	// Ports: graph ports described (Inputs, Outputs, ArgAttrs, ResAttrs),
	// searched by name (FindPort) and signature entries copied (function
	// types, attribute lists).
	Ports int64
}

// Total is the sum of the counts.
func (w Work) Total() int64 { return w.Ops + w.Uses + w.Lookups + w.Resources + w.Ports }

type workKind int

const (
	workOps workKind = iota
	workUses
	workLookups
	workResources
	workPorts
	numWorkKinds
)

var (
	// workOn is > 0 while some CountWork runs; when 0 (always, outside
	// tests) counting costs one load and a branch.
	workOn     atomic.Int32
	workCounts [numWorkKinds]atomic.Int64
	workMu     sync.Mutex // one CountWork at a time
)

func countWork(k workKind, n int) {
	if workOn.Load() != 0 {
		workCounts[k].Add(int64(n))
	}
}

// CountWork runs f and returns the steps this package counted meanwhile,
// in every goroutine (a test that counts must not run in parallel with
// other users of the package). Calls are serialized.
func CountWork(f func()) Work {
	workMu.Lock()
	defer workMu.Unlock()
	for i := range workCounts {
		workCounts[i].Store(0)
	}
	workOn.Add(1)
	defer workOn.Add(-1)
	f()
	return Work{
		Ops:       workCounts[workOps].Load(),
		Uses:      workCounts[workUses].Load(),
		Lookups:   workCounts[workLookups].Load(),
		Resources: workCounts[workResources].Load(),
		Ports:     workCounts[workPorts].Load(),
	}
}

// BlobReads counts the bytes read from each blob of a module (CountReads),
// so that a test can assert that a pass reads the weights it converts and no
// others.
type BlobReads struct {
	mu   sync.Mutex
	read map[string]int64 // original key → bytes read
	size map[string]int64
}

// countedBlob is a blob whose reads are tallied under the key it had when
// CountReads wrapped it (a pass that converts a blob keeps reading it
// through its new resource).
type countedBlob struct {
	src BlobSource
	key string
	c   *BlobReads
}

func (b *countedBlob) Size() int64 { return b.src.Size() }

func (b *countedBlob) ReadAt(p []byte, off int64) (int, error) {
	n, err := b.src.ReadAt(p, off)
	b.c.mu.Lock()
	b.c.read[b.key] += int64(n)
	b.c.mu.Unlock()
	return n, err
}

// CountReads wraps the data of every blob resource of m so that reads are
// counted, per key, from now on. Writers see a plain BlobSource (not a
// section of a file) and stream it.
func CountReads(m *Module) *BlobReads {
	c := &BlobReads{read: map[string]int64{}, size: map[string]int64{}}
	for _, r := range m.Resources {
		if r.Kind != BlobResource || r.Blob == nil {
			continue
		}
		if _, done := r.Blob.(*countedBlob); done {
			continue
		}
		c.size[r.Key] = r.Blob.Size()
		r.Blob = &countedBlob{src: r.Blob, key: r.Key, c: c}
	}
	return c
}

// Read is the number of bytes read from the blob first named key.
func (c *BlobReads) Read(key string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read[key]
}

// Size is the size of the blob first named key when it was wrapped.
func (c *BlobReads) Size(key string) int64 { return c.size[key] }

// Keys lists the wrapped blobs' keys, sorted.
func (c *BlobReads) Keys() []string {
	out := make([]string, 0, len(c.size))
	for k := range c.size {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Reset zeroes the counts (to count one step of several).
func (c *BlobReads) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.read)
}

// Total is the number of bytes read from all wrapped blobs.
func (c *BlobReads) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, v := range c.read {
		n += v
	}
	return n
}
