package inspect

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

// FuzzReport: whatever the text parser accepts, inspect reports on without
// panicking (graphs without bodies or signatures, odd casts, stray calls).
func FuzzReport(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/mlir/*/*.mlir")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`"coreai.graph"() {sym_name = "g"} ({
^bb0(%a: tensor<2xf32>):
  %0 = "coreai.cast"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf16>
  "coreai.expand_dims"() : () -> ()
  "coreai.output"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> ()
}) : () -> ()`)
	f.Fuzz(func(t *testing.T, text string) {
		m, _, err := mlirtext.Parse("fuzz.mlir", text)
		if err != nil {
			return
		}
		rep := Report(m)
		if len(rep.Graphs) != len(m.Graphs()) {
			t.Fatalf("%d graph reports for %d graphs", len(rep.Graphs), len(m.Graphs()))
		}
	})
}
