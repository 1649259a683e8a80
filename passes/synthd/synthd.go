// Package synthd builds every synth arm, arm D included: arm D is arm A
// after the rewrite's own arm-d pass (passes.ArmD at its default options,
// the code `anefix rewrite --arm-d` runs; never a second copy), and
// graph/synth sits below passes, so the pass is supplied from here.
package synthd

import (
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// Generate is synth.Generate for every arm. Blobs only the regions arm-d
// removes read (A_log, dt_bias) stay in arm D's resource table,
// unreferenced, as the pass leaves them; the dce pass would drop them.
func Generate(o synth.Options) (*graph.Module, error) {
	return synth.GenerateWith(o, ArmD)
}

// ArmD is the synth.ArmDFunc that runs the arm-d pass at its defaults.
func ArmD(m *graph.Module) error {
	_, err := passes.ArmD(m, nil)
	return err
}
