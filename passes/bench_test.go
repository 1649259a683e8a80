package passes_test

import (
	"testing"

	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// BenchmarkDefaultPipeline runs the default pipeline (with verify-each) on
// synth arm A. Weights are generator-backed blobs, so this measures the
// passes and the verifier, not I/O; the full-scale file rewrite is measured
// with the CLI (the performance table, testdata/measurements.md).
func BenchmarkDefaultPipeline(b *testing.B) {
	for _, sc := range []string{"tiny", "full"} {
		b.Run(sc, func(b *testing.B) {
			scale, err := synth.ParseScale(sc)
			if err != nil {
				b.Fatal(err)
			}
			p, err := passes.Build(passes.Spec{})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Scale: scale})
				if err != nil {
					b.Fatal(err)
				}
				ops := m.NumOps()
				b.StartTimer()
				res, err := p.Run(m, passes.RunOptions{VerifyEach: true})
				if err != nil {
					b.Fatal(err)
				}
				// The default strips the recurrence's islands only (the norms
				// stay f32), so some f32 values remain: it must have
				// retyped some.
				if res.CensusAfter["f32"] >= res.CensusBefore["f32"] {
					b.Fatalf("f32 values %d before, %d after: nothing retyped", res.CensusBefore["f32"], res.CensusAfter["f32"])
				}
				b.ReportMetric(float64(ops), "ops")
			}
		})
	}
}
