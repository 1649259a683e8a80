package synth

import (
	"fmt"

	"github.com/anefix/anefix/graph"
)

// ArmDFunc turns arm A's module into arm D in place. Arm D is arm A after
// the rewrite's own arm-d pass, and passes sit above graph/..., so the
// caller supplies the pass (passes/synthd does, with the pass at its
// default options).
type ArmDFunc func(*graph.Module) error

// Generate builds the module for o, for arms A, B, C and E. Weights are
// dense_resource blobs backed by generators (*Blob), so nothing large is
// held in memory: a writer pulls the bytes when it streams the resource
// section. The result passes graph.Verify. Arm D needs the arm-d pass:
// build it with GenerateWith, or passes/synthd.Generate for every arm.
func Generate(o Options) (*graph.Module, error) { return GenerateWith(o, nil) }

// GenerateWith is Generate with armD, the step that turns arm A into arm D;
// it is called only for arm D, after the states take their form and before
// locations take theirs, and may be nil for the other arms.
func GenerateWith(o Options, armD ArmDFunc) (m *graph.Module, err error) {
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
	if o.Arm == ArmD && armD == nil {
		return nil, fmt.Errorf("synth: arm D is arm A after the arm-d pass, which graph/synth does not import; build it with passes/synthd")
	}
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
		if err = armD(m); err != nil {
			err = fmt.Errorf("synth: arm D: %w", err)
		}
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

// Metadata is the metadata.json written into an .aimodel made by synth: it
// says what the graph is, with the effective (defaulted) options.
func Metadata(o Options) ([]byte, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	locNote := "" // absent for the default, so shipped arms stay as they were
	if o.Locations != locBuiltin {
		locNote = fmt.Sprintf("\n  \"locations\": %q,", o.Locations)
	}
	if o.Weights != weightsF16 {
		locNote += fmt.Sprintf("\n  \"weights\": %q,", o.Weights)
	}
	layers := o.hybridDims().Layers
	if o.Arm == ArmE {
		layers = o.denseDims().Layers
	} else {
		locNote += fmt.Sprintf("\n  \"trainedGates\": %t,\n  \"massiveActivations\": %t,", !o.NoTrainedGates, !o.NoMassiveActivations)
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
