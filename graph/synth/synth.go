package synth

import (
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes"
)

// Generate builds the module for o. Weights are dense_resource blobs backed
// by generators (*Blob), so nothing large is held in memory: a writer pulls
// the bytes when it streams the resource section. The result passes
// graph.Verify.
func Generate(o Options) (m *graph.Module, err error) {
	o, err = o.normalize()
	if err != nil {
		return nil, err
	}
	defer func() {
		// The builders panic only on an internal shape inconsistency (a bug
		// here, not bad input); report it as an error naming the arm.
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("synth: internal error building arm %s: %v", o.Arm, r)
		}
	}()
	m = graph.NewModule()
	switch o.Arm {
	case ArmA, ArmB, ArmC:
		err = buildHybrid(m, o)
	case ArmD:
		err = buildHybrid(m, o)
	case ArmE:
		err = buildDense(m, o)
	}
	if err == nil && o.StateForm == StateHandle {
		err = toHandleStates(m)
	}
	if err == nil && o.Arm == ArmD {
		err = armD(m)
	}
	if err == nil && o.Locations == LocDebugInfo {
		toDialectLocs(m)
	}
	if err != nil {
		return nil, err
	}
	if err := graph.Verify(m); err != nil {
		return nil, fmt.Errorf("synth: arm %s does not verify: %w", o.Arm, err)
	}
	return m, nil
}

// armD turns arm A into arm D with the rewrite's own arm-d pass at its
// default options (passes.ArmD, the code `anefix rewrite` runs; never a
// second copy here). Blobs only the removed regions read (A_log, dt_bias)
// stay in the resource table, unreferenced, as the pass leaves them; the
// dce pass would drop them.
func armD(m *graph.Module) error {
	if _, err := passes.ArmD(m, nil); err != nil {
		return fmt.Errorf("synth: arm D: %w", err)
	}
	return nil
}

// Metadata is the metadata.json written into an .aimodel made by synth: it
// says what the graph is, with the effective (defaulted) options.
func Metadata(o Options) ([]byte, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	locNote := "" // absent for the default, so shipped arms stay as they were
	if o.Locations != LocBuiltin {
		locNote = fmt.Sprintf("\n  \"locations\": %q,", o.Locations)
	}
	layers := o.hybridDims().Layers
	if o.Arm == ArmE {
		layers = o.denseDims().Layers
	}
	return []byte(fmt.Sprintf(`{
  "generatedBy": "anefix synth",
  "arm": %q,
  "scale": %q,
  "layers": %d,
  "ctx": %d,
  "seed": %d,
  "stateForm": %q,
  "recurrence": %q,%s
  "note": "stand-in graph with pseudo-random weights, not a trained model"
}
`, o.Arm.String(), o.Scale, layers, o.Ctx, o.Seed, o.StateForm, o.Recurrence, locNote)), nil
}
