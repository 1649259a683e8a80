// Package synthd builds every synth arm, arm D included: arm D is arm A
// after the rewrite's own arm-d pass (passes.ArmD at its default options,
// the code `anefix rewrite --arm-d` runs; never a second copy), and
// graph/synth sits below passes, so the pass is supplied from here.
package synthd

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

// Generate is synth.Generate for every arm. Blobs only the regions arm-d
// removes read (A_log, dt_bias) stay in arm D's resource table,
// unreferenced, as the pass leaves them; the dce pass would drop them.
// Weights other than fp16 come from the rewrite's own compression passes
// at the settings below (never a second copy of them): linear-int4 is
// quantize-weights with dtype=si4, per-block 32 (the form of the linear
// INT4 exports apple/coreai-models #55 and #205 report), palettized is
// palettize at its defaults (4-bit, one palette per 32 output channels).
func Generate(o synth.Options) (*graph.Module, error) {
	m, err := synth.GenerateWith(o, armD)
	if err != nil {
		return nil, err
	}
	var pass string
	var set []string
	switch o.Weights {
	case synth.WeightsLinearInt4:
		pass, set = "quantize-weights", []string{"dtype=si4", "granularity=per-block", "block-size=32"}
	case synth.WeightsPalettized:
		pass = "palettize"
	default:
		return m, nil
	}
	p, _ := passes.Lookup(pass)
	opts, err := p.ParseOptions(set...)
	if err != nil {
		return nil, err
	}
	if _, err := p.Run(m, opts); err != nil {
		return nil, fmt.Errorf("synth --weights %s: %w", o.Weights, err)
	}
	return m, nil
}

// armD is the synth.ArmDFunc that runs the arm-d pass at its defaults.
func armD(m *graph.Module) error {
	_, err := passes.ArmD(m, nil)
	return err
}
