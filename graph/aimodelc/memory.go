package aimodelc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph/plist"
)

// Reading a package holds one file's worth of work at a time: a small file
// read whole and parsed, a manifest and its decoded values, or one graph
// module. Options.MaxMemory bounds each such step by an estimate made
// before it allocates, from the file's size; what the package keeps
// between steps (counts, names, evidence) is small beside them.
//
// The factors are measured upper bounds, each guarded by a test that
// fails if the code it models starts allocating more:
//   - graphHeapPerByte: graph/bytecode's reader allocated 25–43× the file
//     for the corpus's main files and .mpsgraph files (TotalAlloc; blobs are
//     never loaded, so their bytes count here though they cost nothing:
//     a graph file carrying large weights inline needs a higher limit).
//     TestGraphHeapEstimate.
//   - jsonHeapPerByte: metadata.json and stats.json as read and parsed
//     here allocated up to 35× the file, for a metadata.json of many short
//     keys (each key's place in file order is kept); 5.5× for a stats.json
//     of many rows. Both files are read only up to 64 MiB.
//     TestJSONHeapEstimate.
//   - a manifest costs its size plus its decoded values, which
//     graph/plist counts as it decodes and stops at the limit.
const (
	graphHeapPerByte = 48
	jsonHeapPerByte  = 48
)

func graphHeap(size int64) int64 { return satMul(size, graphHeapPerByte) }
func jsonHeap(size int64) int64  { return satMul(size, jsonHeapPerByte) }

func satMul(a, b int64) int64 {
	if a > 0 && a > (1<<62)/b {
		return 1 << 62
	}
	return a * b
}

// errMemory is wrapped by every MemoryError.
var errMemory = errors.New("over the memory limit")

// MemoryError is a package refused because reading one of its files would
// need more heap than Options.MaxMemory.
type MemoryError struct {
	// What is the file (relative to the package) and what of it is counted.
	What string
	// Need is the estimate; 0 when the decoder stopped at the limit while
	// counting (a manifest's values), so that only "more than Limit" is
	// known.
	Need, Limit int64
}

func (e *MemoryError) Error() string {
	if e.Need == 0 {
		return fmt.Sprintf("reading %s needs more than the limit of %d bytes of heap (--max-memory)", e.What, e.Limit)
	}
	return fmt.Sprintf("reading %s needs an estimated %d bytes of heap, over the limit of %d (--max-memory)", e.What, e.Need, e.Limit)
}

func (e *MemoryError) Unwrap() error { return errMemory }

// fits refuses a step estimated at need bytes past the limit.
func (p *Package) fits(what string, need int64) error {
	if p.maxMemory > 0 && need > p.maxMemory {
		return &MemoryError{What: what, Need: need, Limit: p.maxMemory}
	}
	return nil
}

// sizeOf is a regular file's size as the walk saw it (0 for anything the
// walk did not list as one, which the read then refuses or finds absent).
func (p *Package) sizeOf(rel string) int64 { return p.sizes[rel] }

// plistLimits are the decoder's limits for a manifest of size bytes: the
// defaults, with the decoded values' bytes cut to what the memory limit
// leaves beside the file.
func (p *Package) plistLimits(size int64) plist.Limits {
	l := plist.DefaultLimits
	if p.maxMemory > 0 {
		l.MaxBytes = min(l.MaxBytes, max(p.maxMemory-size, 1))
	}
	return l
}

// intList prints indices as the manifest lists them: [0, 1].
func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}
