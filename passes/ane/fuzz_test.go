package ane

import (
	"github.com/anefix/anefix/graph/coreaiop/zoo"
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
)

// FuzzCheck runs the rule model on whatever the text parser accepts: no
// input may make it panic or loop.
func FuzzCheck(f *testing.F) {
	if ents, _ := os.ReadDir(filepath.Join("..", "..", "testdata", "hazards")); ents != nil {
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "hazards", e.Name())); err == nil {
				f.Add(string(b))
			}
		}
	}
	if ents, _ := os.ReadDir(filepath.Join("..", "..", "testdata", "calibration")); ents != nil {
		for _, e := range ents {
			if filepath.Ext(e.Name()) != ".mlir" {
				continue
			}
			if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "calibration", e.Name())); err == nil {
				f.Add(string(b))
			}
		}
	}
	// One module per coreai op, in three forms (graph/coreaiop/zoo).
	for _, z := range zoo.Modules() {
		f.Add(string(z.Text))
	}
	for _, dir := range []string{"generic", "pretty"} {
		ents, _ := os.ReadDir(filepath.Join("..", "..", "testdata", "mlir", dir))
		for _, e := range ents {
			if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mlir", dir, e.Name())); err == nil {
				f.Add(string(b))
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, _, err := mlirtext.Parse("fuzz.mlir", text)
		if err != nil {
			return
		}
		r, err := Check(m)
		if err != nil {
			return
		}
		_ = GroupFindings(r.AllFindings())
		_ = GroupFindings(r.AllSuspects())
		_ = GroupFindings(r.AllHazards())
		// The partitioning region model walks every op too.
		if r, err := CheckWith(m, Options{Architecture: "h16g", NoHazards: true}); err == nil {
			_, _ = r.PredictedRegions()
			_ = GroupFindings(r.AllAdvice())
		}
	})
}
