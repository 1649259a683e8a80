package anefacts

import (
	"math"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/f16"
)

// BenchmarkHazardScanF16 is BenchmarkHazardScanF32 for an f16 blob (the
// full-scale weights are f16).
func BenchmarkHazardScanF16(b *testing.B) {
	const n = 32 << 20
	blob := make(graph.MemBlob, 2*n)
	for i := 0; i < n; i++ {
		h := f16.FromFloat32(float32(i%1000) * 0.001)
		blob[2*i], blob[2*i+1] = byte(h), byte(h>>8)
	}
	m := graph.NewModule()
	m.AddResource("w", 2, blob)
	t := &graph.TensorType{Shape: []int64{n}, Elem: graph.F16}
	b.SetBytes(int64(len(blob)))
	for b.Loop() {
		h := NewScan(m)
		if s := h.scanResource("w", graph.F16, t); s.reason != "" || s.N != n {
			b.Fatalf("scan: %q, %d elements", s.reason, s.N)
		}
	}
}

// BenchmarkHazardScanF32 reads a 64 MiB f32 dense_resource blob (held in
// memory: this measures the decoding and classification, not the disk)
// through the hazard scan; MB/s is the figure.
func BenchmarkHazardScanF32(b *testing.B) {
	const n = 16 << 20
	blob := make(graph.MemBlob, 4*n)
	for i := 0; i < n; i++ {
		v := math.Float32bits(float32(i%1000) * 0.001)
		blob[4*i], blob[4*i+1], blob[4*i+2], blob[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	m := graph.NewModule()
	m.AddResource("w", 4, blob)
	t := &graph.TensorType{Shape: []int64{n}, Elem: graph.F32}
	b.SetBytes(int64(len(blob)))
	for b.Loop() {
		h := NewScan(m)
		if s := h.scanResource("w", graph.F32, t); s.reason != "" || s.N != n {
			b.Fatalf("scan: %q, %d elements", s.reason, s.N)
		}
	}
}

// TestAddF32 checks the f32 fast path against the general one on the edges
// of the fp16 range and on a sweep of bit patterns.
func TestAddF32(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 65504, 65505, 65519.996, 65520, -65520, 1e9, -1e9,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0x1p-25, 0x1.000002p-25, 0x1p-24, -0x1p-26, 1e-45}
	for u := uint64(0); u < 1<<32; u += 0x10001 {
		vals = append(vals, math.Float32frombits(uint32(u)))
	}
	var fast, slow ConstStats
	for _, v := range vals {
		fast.addF32(math.Float32bits(v))
		slow.addValue(float64(v), true)
		if fast != slow {
			t.Fatalf("after %g (%#08x): fast %+v, slow %+v", v, math.Float32bits(v), fast, slow)
		}
	}
	if slow.Flush == 0 || slow.Overflow == 0 || slow.ToInf == 0 || slow.NegInf == 0 {
		t.Fatalf("sweep missed a case: %+v", slow)
	}
	// f16 by histogram: every bit pattern, some of them many times, through
	// scanResource, against addValue element by element.
	var raw graph.MemBlob
	var sh ConstStats
	for h := 0; h < 1<<16; h++ {
		for r := 0; r < 1+h%3; r++ {
			raw = append(raw, byte(h), byte(h>>8))
			sh.addValue(f16.ToFloat64(uint16(h)), false)
		}
	}
	m := graph.NewModule()
	m.AddResource("h", 2, raw)
	fh := NewScan(m).scanResource("h", graph.F16, &graph.TensorType{Shape: []int64{int64(len(raw) / 2)}, Elem: graph.F16})
	fh.Resource = ""
	if *fh != sh {
		t.Fatalf("f16 histogram %+v, element by element %+v", *fh, sh)
	}
}

// TestHazardBudget: a blob past what is left of the scan budget is skipped,
// and the budget is not spent on it.
func TestHazardBudget(t *testing.T) {
	m := graph.NewModule()
	m.AddResource("w", 4, make(graph.MemBlob, 16))
	h := NewScan(m)
	h.budget = 15
	tt := &graph.TensorType{Shape: []int64{4}, Elem: graph.F32}
	if s := h.scanResource("w", graph.F32, tt); !strings.Contains(s.reason, "scan budget") || s.N != 0 || h.budget != 15 {
		t.Errorf("over budget: reason %q, %d elements read, budget left %d", s.reason, s.N, h.budget)
	}
	h.budget = 16
	if s := h.scanResource("w", graph.F32, tt); s.reason != "" || s.N != 4 || h.budget != 0 {
		t.Errorf("within budget: reason %q, %d elements read, budget left %d", s.reason, s.N, h.budget)
	}
}
