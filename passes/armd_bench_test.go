package passes_test

import (
	"testing"

	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// BenchmarkIOAndArmDFullArmA times the three passes on a full-scale arm A
// (Qwen3.5-0.8B dims; weights stay generators, so this is IR work only).
func BenchmarkIOAndArmDFullArmA(b *testing.B) {
	for _, name := range []string{"fold-io-unsqueeze", "promote-states", "arm-d"} {
		b.Run(name, func(b *testing.B) {
			p, _ := passes.Lookup(name)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Scale: synth.Full})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := p.Run(m, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
