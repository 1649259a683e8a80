package synth

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/modelio"
)

// BenchmarkFullArmAWrite generates full-scale arm A (Qwen3.5-0.8B dims,
// about 1.5 GB of fp16 weights) and writes it as an .aimodel, the way
// `anefix synth --arm A --scale full -o OUT.aimodel` does. Run with
// -benchtime=1x: each iteration writes 1.5 GB.
func BenchmarkFullArmAWrite(b *testing.B) {
	benchWrite(b, Options{Arm: ArmA, Scale: Full})
}

// BenchmarkFullArmAGenerate builds the full-scale module only (weights stay
// generators), to separate graph building from writing.
func BenchmarkFullArmAGenerate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Generate(Options{Arm: ArmA, Scale: Full}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTinyArmEWrite is the tiny 19-function control, end to end.
func BenchmarkTinyArmEWrite(b *testing.B) {
	benchWrite(b, Options{Arm: ArmE})
}

func benchWrite(b *testing.B, o Options) {
	dir := b.TempDir()
	var size int64
	for i := 0; i < b.N; i++ {
		m, err := GenerateWith(o, armDPass)
		if err != nil {
			b.Fatal(err)
		}
		meta, _ := Metadata(o)
		dst := filepath.Join(dir, "out.aimodel")
		res, err := modelio.Save(dst, m, nil, modelio.SaveOptions{Force: true, Files: map[string][]byte{"metadata.json": meta}})
		if err != nil {
			b.Fatal(err)
		}
		size = res.MainSize
		b.StopTimer()
		_ = os.RemoveAll(dst)
		b.StartTimer()
	}
	b.SetBytes(size)
	b.ReportMetric(float64(size)/1e6, "MB/file")
}
