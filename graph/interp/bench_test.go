package interp_test

import (
	"encoding/binary"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/synth"
)

// fullModel loads the model named by ANEFIX_FULL_MODEL (e.g. the output of
// `anefix synth --arm A --scale full -o /tmp/armA_full.aimodel`), or the
// tiny arm A when unset.
func fullModel(b *testing.B) (*graph.Module, func()) {
	b.Helper()
	path := os.Getenv("ANEFIX_FULL_MODEL")
	if path == "" {
		m, err := synth.Generate(synth.Options{Arm: synth.ArmA})
		if err != nil {
			b.Skip(err)
		}
		return m, func() {}
	}
	ld, err := modelio.Load(path, modelio.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return ld.Module, func() { ld.Close() }
}

func zeroInputs(b testing.TB, g *graph.Graph) []*interp.Tensor {
	var args []*interp.Tensor
	for _, p := range g.Inputs() {
		tt, _ := graph.AsTensor(p.Type)
		el, err := interp.ElemOf(tt.Elem)
		if err != nil {
			b.Fatal(err)
		}
		shape := make([]int, len(tt.Shape))
		for i, d := range tt.Shape {
			shape[i] = int(d)
		}
		args = append(args, interp.Zeros(el, shape))
	}
	return args
}

// BenchmarkDecodeStep runs one decode step (one token) of @main; ns/op is
// the time per token. Compare with BenchmarkReadWeights, the bound set by
// touching every weight byte once.
func BenchmarkDecodeStep(b *testing.B) { benchDecode(b, interp.Options{}) }

// BenchmarkDecodeStepANE is BenchmarkDecodeStep under the Neural Engine
// profile (`verify --numerics ane`); the issue asks for at most twice the
// time of the IEEE step.
func BenchmarkDecodeStepANE(b *testing.B) {
	benchDecode(b, interp.Options{ANE: &interp.ANE{Family: interp.PreA16}})
}

func benchDecode(b *testing.B, opts interp.Options) {
	m, done := fullModel(b)
	defer done()
	g := m.Graph("main")
	in := interp.New(m, opts)
	defer in.Close()
	args := zeroInputs(b, g)
	if _, err := in.Run("main", args); err != nil { // map weights, warm caches
		b.Fatal(err)
	}
	cpu0 := cpuSeconds()
	for b.Loop() {
		if _, err := in.Run("main", args); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
	// CPU seconds per token (all threads): meaningful even when other
	// processes share the cores and wall time is not.
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/token")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
}

// BenchmarkReadWeights sums every byte of every blob resource once: the
// memory-bandwidth bound of a decoder that reads all weights per token.
func BenchmarkReadWeights(b *testing.B) {
	m, done := fullModel(b)
	defer done()
	var total int64
	for _, r := range m.Resources {
		total += r.Size()
	}
	buf := make([]byte, 1<<20)
	b.SetBytes(total)
	var sink uint64
	for b.Loop() {
		for _, r := range m.Resources {
			if r.Blob == nil {
				continue
			}
			for off := int64(0); off < r.Size(); off += int64(len(buf)) {
				n, _ := r.Blob.ReadAt(buf[:min(int64(len(buf)), r.Size()-off)], off)
				for k := 0; k+8 <= n; k += 8 {
					sink ^= binary.LittleEndian.Uint64(buf[k:])
				}
			}
		}
	}
	_ = sink
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
