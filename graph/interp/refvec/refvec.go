// Package refvec reads the reference-vector files that
// testdata/numpy/gen.py writes (gzip'd "ANEFIXVEC1" records: name, dtype,
// shape, little-endian data). Tests use it to compare anefix's numerics with
// numpy's.
package refvec

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
)

// magic starts every decompressed vector file.
const magic = "ANEFIXVEC1\n"

// dType is a record's element type.
type dType uint8

// Element types, as gen.py numbers them.
const (
	F32 dType = iota
	F16
	f64
	SI32
	Bool
)

var dtypeNames = [...]string{"f32", "f16", "f64", "si32", "bool"}

func (d dType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Size is the element size in bytes.
func (d dType) Size() int {
	switch d {
	case F32, SI32:
		return 4
	case F16:
		return 2
	case f64:
		return 8
	case Bool:
		return 1
	}
	return 0
}

// Tensor is one record.
type Tensor struct {
	Name  string
	DType dType
	Shape []int
	Data  []byte // little endian, row-major
}

// Len is the element count.
func (t *Tensor) Len() int { return len(t.Data) / t.DType.Size() }

// F32 returns element i of an f32 tensor.
func (t *Tensor) F32(i int) uint32 { return binary.LittleEndian.Uint32(t.Data[4*i:]) }

// U16 returns element i of an f16 tensor as raw bits.
func (t *Tensor) U16(i int) uint16 { return binary.LittleEndian.Uint16(t.Data[2*i:]) }

// U64 returns element i of an f64 tensor as raw bits.
func (t *Tensor) U64(i int) uint64 { return binary.LittleEndian.Uint64(t.Data[8*i:]) }

// I32 returns element i of an si32 tensor.
func (t *Tensor) I32(i int) int32 { return int32(binary.LittleEndian.Uint32(t.Data[4*i:])) }

// File is a decoded vector file.
type File struct {
	Tensors map[string]*Tensor
	Order   []string // record order in the file
}

// Get returns the named record or an error naming the file's contents.
func (f *File) Get(name string) (*Tensor, error) {
	t, ok := f.Tensors[name]
	if !ok {
		return nil, fmt.Errorf("refvec: no record %q", name)
	}
	return t, nil
}

// Cases returns the distinct "<case>/<dtype>" prefixes (everything before
// the last '/'), sorted.
func (f *File) Cases() []string {
	seen := map[string]bool{}
	for _, n := range f.Order {
		if i := lastSlash(n); i > 0 {
			seen[n[:i]] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// ReadFile reads and decodes a gzip'd vector file.
func ReadFile(path string) (*File, error) {
	raw, err := decompress(path)
	if err != nil {
		return nil, err
	}
	f, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// decompress returns the decompressed contents of a gzip'd vector file.
func decompress(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(bufio.NewReader(fh))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return raw, nil
}

// maxElems bounds a record so a corrupt header cannot request absurd memory.
const maxElems = 1 << 28

// parse decodes decompressed vector-file bytes.
func parse(raw []byte) (*File, error) {
	if !bytes.HasPrefix(raw, []byte(magic)) {
		return nil, fmt.Errorf("refvec: missing magic %q", magic)
	}
	f := &File{Tensors: map[string]*Tensor{}}
	p := len(magic)
	need := func(n int, what string) error {
		if n < 0 || len(raw)-p < n {
			return fmt.Errorf("refvec: offset %d: truncated %s (need %d bytes, have %d)", p, what, n, len(raw)-p)
		}
		return nil
	}
	for p < len(raw) {
		if err := need(2, "name length"); err != nil {
			return nil, err
		}
		n := int(binary.LittleEndian.Uint16(raw[p:]))
		p += 2
		if err := need(n+2, "name and header"); err != nil {
			return nil, err
		}
		name := string(raw[p : p+n])
		p += n
		dt, rank := dType(raw[p]), int(raw[p+1])
		p += 2
		if dt.Size() == 0 {
			return nil, fmt.Errorf("refvec: record %q: unknown dtype %d", name, dt)
		}
		if err := need(4*rank, "shape"); err != nil {
			return nil, err
		}
		shape := make([]int, rank)
		elems := 1
		for i := range shape {
			shape[i] = int(binary.LittleEndian.Uint32(raw[p:]))
			p += 4
			if shape[i] > maxElems || elems*max(shape[i], 1) > maxElems {
				return nil, fmt.Errorf("refvec: record %q: shape too large", name)
			}
			elems *= shape[i]
		}
		nb := elems * dt.Size()
		if err := need(nb, "data of "+name); err != nil {
			return nil, err
		}
		if _, dup := f.Tensors[name]; dup {
			return nil, fmt.Errorf("refvec: duplicate record %q", name)
		}
		f.Tensors[name] = &Tensor{Name: name, DType: dt, Shape: shape, Data: raw[p : p+nb : p+nb]}
		f.Order = append(f.Order, name)
		p += nb
	}
	return f, nil
}
