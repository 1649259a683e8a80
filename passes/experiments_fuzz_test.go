package passes

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

// FuzzExperimentPasses runs promote-states (handle form), states-as-outputs
// and externalize-constant (any size) on any text that parses and
// verifies: no panic, and a pass that succeeds leaves the module
// verifiable. Seeds: testdata/passes and this package's experiment tests.
func FuzzExperimentPasses(f *testing.F) {
	files, _ := filepath.Glob("../testdata/passes/*.mlir")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(ecTied)
	f.Add(saoHandleText)
	f.Fuzz(func(t *testing.T, text string) {
		m, _, err := mlirtext.Parse("fuzz.mlir", text)
		if err != nil || graph.Verify(m) != nil {
			return
		}
		steps := []struct {
			pass *Pass
			opts Options
		}{
			{lookup("promote-states"), with(func(o *promoteStatesOptions) { o.Form = "handle" })},
			{lookup("states-as-outputs"), Defaults[statesAsOutputsOptions]()},
			{lookup("externalize-constant"), with(func(o *externalizeConstantOptions) { o.MinBytes = 0 })},
		}
		for _, s := range steps {
			if _, err := runPass(withStates(func(o *StateSettings) { o.IncludeKV = true }), s.pass, m, s.opts); err != nil {
				continue // a refusal is fine; it must name the problem (tested elsewhere)
			}
			if err := graph.Verify(m); err != nil {
				t.Fatalf("%s left an unverifiable module: %v\ninput:\n%s", s.pass.Name, err, text)
			}
		}
	})
}
