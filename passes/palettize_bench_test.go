package passes_test

import (
	"io"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// BenchmarkPalettize palettizes synth arm A at the defaults (4-bit, one
// palette per 32 output channels) and then reads every blob the pass made,
// as the writer does, so both the clustering and the indices computed
// while writing are measured; tiny always, full scale (0.75 B weights,
// generator-backed, no file I/O) with ANEFIX_FULLSCALE=1:
//
//	ANEFIX_FULLSCALE=1 go test ./passes -run '^$' -bench Palettize -benchtime 1x
//
// The whole command on a file is measured by the performance table
// (testdata/measurements.md).
func BenchmarkPalettize(b *testing.B) {
	scales := []string{"tiny"}
	if _, full := oracle.OptedIn("ANEFIX_FULLSCALE"); full {
		scales = append(scales, "full")
	}
	for _, sc := range scales {
		b.Run(sc, func(b *testing.B) {
			scale, err := synth.ParseScale(sc)
			if err != nil {
				b.Fatal(err)
			}
			p, err := passes.Build(passes.Spec{Passes: []string{"palettize"}})
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 1<<20)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Scale: scale})
				if err != nil {
					b.Fatal(err)
				}
				old := map[*graph.Resource]bool{}
				for _, r := range m.Resources {
					old[r] = true
				}
				b.StartTimer()
				res, err := p.Run(m, passes.RunOptions{})
				if err != nil {
					b.Fatal(err)
				}
				var weights, n int64
				for _, cw := range res.Steps[0].Change.Compressed {
					weights += cw.BytesBefore / 2
				}
				for _, r := range m.Resources {
					if old[r] || r.Blob == nil {
						continue
					}
					k, err := io.CopyBuffer(io.Discard, io.NewSectionReader(r.Blob, 0, r.Blob.Size()), buf)
					if err != nil {
						b.Fatal(err)
					}
					n += k
				}
				b.ReportMetric(float64(weights), "weights")
				b.ReportMetric(float64(n), "bytes-written")
			}
		})
	}
}
