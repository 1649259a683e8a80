//go:build unix

package mlirtext

import (
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/anefix/anefix/graph"
)

// BenchmarkHybrid24 parses, verifies and prints (generic form) a 24-layer
// hybrid graph of about 20k ops with weights as resources.
func BenchmarkHybrid24(b *testing.B) {
	text := hybridModel(b, 24, 12)
	b.Run("pretty", func(b *testing.B) { benchText(b, text) })
	m, _, err := Parse("hybrid24.mlir", text)
	if err != nil {
		b.Fatal(err)
	}
	gen, err := Format(m, FormGeneric)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("generic", func(b *testing.B) { benchText(b, string(gen)) })
}

func benchText(b *testing.B, text string) {
	m, _, err := Parse("hybrid24.mlir", text)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(m.NumOps()), "ops")
	b.SetBytes(int64(len(text)))
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _, err := Parse("hybrid24.mlir", text)
		if err != nil {
			b.Fatal(err)
		}
		if err := graph.Verify(m); err != nil {
			b.Fatal(err)
		}
		if err := Write(io.Discard, m, FormGeneric); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	// CPU time (all threads, GC included) is steadier than wall time on a
	// loaded machine; both are reported.
	cpu := time.Duration(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano()) / time.Duration(b.N)
	b.ReportMetric(float64(cpu.Milliseconds()), "cpu-ms/op")
}
