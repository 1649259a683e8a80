package anefacts

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
)

// The fp16 constant scan: what the hazard rules of passes/ane
// (hazard_range.go, hazard_flush.go, hazard_exp.go) and finite-masks read.
// The facts it rests on are those of the binary16 format itself (graph/f16
// implements the rounding): the largest finite value is 65504; values of
// magnitude 65520 and above round to ±inf; nonzero values below 2^-25 in
// magnitude round to ±0.

// maxHazardScanBytes bounds how many bytes of dense_resource blobs one check
// reads for the constant hazards (full-scale weights are about 1.5 GB, read
// in 1 MiB pieces). Blobs past the budget are skipped with a note.
const maxHazardScanBytes = 4 << 30

const hazardChunk = 1 << 20

// ConstStats summarises one float constant's elements.
type ConstStats struct {
	N              int64   // elements examined
	PosInf, NegInf int64   // ±inf as stored
	Overflow       int64   // finite, |x| > 65504 (rounds to ±65504 or ±inf in fp16)
	ToInf          int64   // finite but rounds to ±inf in fp16 (|x| >= 65520)
	Flush          int64   // nonzero but rounds to ±0 in fp16
	Min, Max       float64 // over finite and infinite elements (NaN skipped)
	FirstOver      float64 // first finite |x| > 65504
	FirstFlush     float64 // first value that flushes to zero
	HaveMin        bool
	SawNaN         bool
	Resource       string // resource key ("" for an inline constant)
	reason         string // why it was skipped (a category)
	why            string // the skip's specifics (sizes, the read error)
}

func (s *ConstStats) addValue(v float64, checkNarrow bool) {
	s.N++
	if math.IsNaN(v) {
		s.SawNaN = true
		return
	}
	if !s.HaveMin || v < s.Min {
		s.Min = v
	}
	if !s.HaveMin || v > s.Max {
		s.Max = v
	}
	s.HaveMin = true
	switch {
	case math.IsInf(v, 1):
		s.PosInf++
		return
	case math.IsInf(v, -1):
		s.NegInf++
		return
	}
	if !checkNarrow {
		return
	}
	a := math.Abs(v)
	if a > f16.MaxHalf {
		if s.Overflow == 0 {
			s.FirstOver = v
		}
		s.Overflow++
		if f16.IsInf(f16.FromFloat64(v)) {
			s.ToInf++
		}
	}
	if v != 0 && f16.FromFloat64(v)&0x7fff == 0 {
		if s.Flush == 0 {
			s.FirstFlush = v
		}
		s.Flush++
	}
}

// f32 bit patterns (sign cleared) the fast path compares against: 65504,
// 65520 (the tie between 65504 and 2^16, which rounds to even: inf), 2^-25
// (the tie between 0 and 2^-24, which rounds to even: 0), +inf.
const (
	f32MaxHalf  = 0x477fe000
	f32HalfInf  = 0x477ff000
	f32HalfZero = 0x33000000
	f32Inf      = 0x7f800000
)

// addF32 is addValue for one f32 by its bits, without a float conversion
// for the common, safe case (TestAddF32 checks it against addValue).
func (s *ConstStats) addF32(bits uint32) {
	a := bits & 0x7fffffff
	if a >= f32Inf || a > f32MaxHalf || (a != 0 && a <= f32HalfZero) {
		s.addValue(float64(math.Float32frombits(bits)), true)
		return
	}
	s.N++
	v := float64(math.Float32frombits(bits))
	if !s.HaveMin {
		s.Min, s.Max, s.HaveMin = v, v, true
	} else if v < s.Min {
		s.Min = v
	} else if v > s.Max {
		s.Max = v
	}
}

// addF16Counts folds a histogram of f16 bit patterns into s: the same
// result as addValue on each element (f16 narrows to nothing, so only
// counts, min and max matter, none of which depends on the order), at the
// cost of one increment per element.
func (s *ConstStats) addF16Counts(hist *[1 << 16]uint32) {
	for h, c := range hist {
		if c == 0 {
			continue
		}
		s.addValue(f16.ToFloat64(uint16(h)), false)
		s.N += int64(c) - 1
		switch {
		case f16.IsInf(uint16(h)) && h&0x8000 != 0:
			s.NegInf += int64(c) - 1
		case f16.IsInf(uint16(h)):
			s.PosInf += int64(c) - 1
		}
	}
}

// addChunk classifies whole elements of p, little-endian, of element type
// name (f16, bf16, f32 or f64); the type is switched on once per chunk.
// f16 elements are counted into hist, which addF16Counts folds in.
func (s *ConstStats) addChunk(name string, p []byte, narrow bool, hist *[1 << 16]uint32) {
	switch name {
	case "f16":
		for i := 0; i+2 <= len(p); i += 2 {
			hist[binary.LittleEndian.Uint16(p[i:])]++
		}
	case "bf16":
		for i := 0; i+2 <= len(p); i += 2 {
			s.addValue(float64(f16.BF16ToFloat32(binary.LittleEndian.Uint16(p[i:]))), narrow)
		}
	case "f32":
		for i := 0; i+4 <= len(p); i += 4 {
			s.addF32(binary.LittleEndian.Uint32(p[i:]))
		}
	case "f64":
		for i := 0; i+8 <= len(p); i += 8 {
			s.addValue(math.Float64frombits(binary.LittleEndian.Uint64(p[i:])), narrow)
		}
	}
}

// Scan holds what the hazard rules read, shared by the graphs of a
// module (a resource is scanned once).
type Scan struct {
	m       *graph.Module
	budget  int64
	NoBlobs bool                       // keep off dense_resource blobs (check --hazard-weights=false)
	res     map[string]*graph.Resource // the module's resources by key, made at the first blob
	byKey   map[string]*ConstStats
	byOp    map[*graph.Operation]*ConstStats // inline constants, read once
	// skips groups the blobs skipped by reason, in first-seen order, so
	// an export whose weights are all absent gets one note, not hundreds.
	skips     map[string]*skipNote
	skipOrder []string
}

type skipNote struct {
	count      int
	first, why string // the first blob and op; its specifics
}

// NewScan starts the scan of m's constants with the budget of one check.
func NewScan(m *graph.Module) *Scan {
	return &Scan{m: m, budget: maxHazardScanBytes, byKey: map[string]*ConstStats{}, byOp: map[*graph.Operation]*ConstStats{}, skips: map[string]*skipNote{}}
}

func (h *Scan) skip(reason, first, why string) {
	n := h.skips[reason]
	if n == nil {
		n = &skipNote{first: first, why: why}
		h.skips[reason] = n
		h.skipOrder = append(h.skipOrder, reason)
	}
	n.count++
}

// Notes says what was skipped, one line per reason.
func (h *Scan) Notes() []string {
	var out []string
	for _, r := range h.skipOrder {
		n := h.skips[r]
		why := ""
		if n.why != "" {
			why = "; " + n.why
		}
		if n.count == 1 {
			out = append(out, fmt.Sprintf("%s skipped: %s%s", n.first, r, why))
		} else {
			out = append(out, fmt.Sprintf("%d dense_resource blobs skipped: %s (the first: %s%s)", n.count, r, n.first, why))
		}
	}
	return out
}

// FloatConstStats reads a coreai.constant's float value: inline dense
// elements or a dense_resource blob through graph.Resource's BlobSource, in
// bounded pieces. It returns nil for non-float constants and for values it
// cannot read (noted, never an error: the rules look at types, not bytes).
func (h *Scan) FloatConstStats(op *graph.Operation) *ConstStats {
	switch a := op.Inherent("value").(type) {
	case *graph.DenseElementsAttr:
		ft, ok := a.Type.Elem.(*graph.FloatType)
		if !ok || graph.ElemBytes(ft) == 0 || strings.HasPrefix(ft.Name, "f8") {
			return nil
		}
		n := a.NumElements()
		if a.Splat {
			n = 1
		}
		if size, ok := graph.MulSize(n, int64(graph.ElemBytes(ft))); !ok || int64(len(a.Raw)) < size {
			return nil
		}
		if s, done := h.byOp[op]; done {
			return s
		}
		s := &ConstStats{}
		h.byOp[op] = s
		narrow := ft.Name != "f16"
		for i := int64(0); i < n; i++ {
			s.addValue(a.Float64At(i), narrow)
		}
		return s
	case *graph.DenseResourceAttr:
		ft, ok := a.Type.Elem.(*graph.FloatType)
		if !ok || a.Type == nil {
			return nil
		}
		s, done := h.byKey[a.Key]
		if !done {
			s = h.scanResource(a.Key, ft, a.Type)
			h.byKey[a.Key] = s
			if s.reason != "" {
				h.skip(s.reason, fmt.Sprintf("dense_resource<%s> (%s)", a.Key, op.DescribeInGraph()), s.why)
			}
		}
		if s.reason != "" {
			return nil
		}
		return s
	}
	return nil
}

func (h *Scan) scanResource(key string, ft *graph.FloatType, t *graph.TensorType) *ConstStats {
	s := &ConstStats{Resource: key}
	switch ft.Name {
	case "f16", "bf16", "f32", "f64":
	default:
		s.reason = "element type " + ft.Name + " is not read by the hazard rules"
		return s
	}
	if h.NoBlobs {
		s.reason = "dense_resource blobs are not read (--hazard-weights=false)"
		return s
	}
	if h.res == nil {
		h.res = h.m.ResourcesByKey()
	}
	r := h.res[key]
	if r == nil || r.Blob == nil {
		s.reason = "its bytes are not in the file"
		return s
	}
	size := r.Blob.Size()
	if want, err := t.ByteSize(); err != nil || size != want {
		s.reason = "the blob's size does not match its type"
		s.why = fmt.Sprintf("the blob holds %d bytes, %s needs %d", size, t, want)
		if err != nil {
			s.why = fmt.Sprintf("the blob holds %d bytes for %v", size, err)
		}
		return s
	}
	if size > h.budget {
		s.reason = fmt.Sprintf("the scan budget of %d bytes per check is spent", int64(maxHazardScanBytes))
		return s
	}
	h.budget -= size
	narrow := ft.Name != "f16"
	buf := make([]byte, min(int64(hazardChunk), size))
	// The budget keeps a blob under 2^32 f16 elements, so counts fit.
	var hist *[1 << 16]uint32
	if ft.Name == "f16" {
		hist = new([1 << 16]uint32)
	}
	for off := int64(0); off < size; {
		k := min(int64(len(buf)), size-off)
		if _, err := r.Blob.ReadAt(buf[:k], off); err != nil && err != io.EOF {
			s.reason = "reading the blob failed"
			s.why = fmt.Sprintf("at byte %d: %v", off, err)
			return s
		}
		s.addChunk(ft.Name, buf[:k], narrow, hist)
		off += k
	}
	if hist != nil {
		s.addF16Counts(hist)
	}
	return s
}

// OutOfRange reports what the fp16.out-of-range rule flags: ±inf, or a
// finite magnitude past 65504.
func (s *ConstStats) OutOfRange() bool { return s.PosInf+s.NegInf > 0 || s.Overflow > 0 }

// RangeHazardConstants returns the constants check's fp16.out-of-range rule
// (passes/ane hazard_range.go) flags, in graph and op order, each once: the
// constants finite-masks rewrites.
func RangeHazardConstants(m *graph.Module) ([]*graph.Operation, error) {
	fs, err := Module(m, graph.StateOptions{})
	if err != nil {
		return nil, err
	}
	scan := NewScan(m)
	seen := map[*graph.Operation]bool{}
	var out []*graph.Operation
	for _, f := range fs {
		for _, op := range f.Ops {
			if BaseOpName(op.Name) != "coreai.constant" || seen[op] {
				continue
			}
			if s := scan.FloatConstStats(op); s != nil && s.N > 0 && s.OutOfRange() {
				seen[op] = true
				out = append(out, op)
			}
		}
	}
	return out, nil
}
