package passes_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/synthd"
)

// analysisVariant is a synth module, possibly edited after generation.
type analysisVariant struct {
	o    synth.Options
	edit func(m *graph.Module) error
	name string
}

// analysisVariants are the modules the Preserves check runs over: every
// arm, arm A and C with handle states and with the composite recurrence,
// arm A with linear INT4 and palettized weights (what legalize-weights and
// the compression passes act on), and arm A with a stand-in -1e9 mask (what
// finite-masks acts on; synth writes none).
func analysisVariants() []analysisVariant {
	var out []analysisVariant
	for _, a := range []synth.Arm{synth.ArmA, synth.ArmB, synth.ArmC, synth.ArmD, synth.ArmE} {
		out = append(out, analysisVariant{o: synth.Options{Arm: a}})
	}
	for _, a := range []synth.Arm{synth.ArmA, synth.ArmC} {
		out = append(out, analysisVariant{o: synth.Options{Arm: a, StateForm: "handle"}}, analysisVariant{o: synth.Options{Arm: a, Recurrence: synth.RecurrenceComposite}})
	}
	return append(out,
		analysisVariant{o: synth.Options{Arm: synth.ArmA, Weights: synth.WeightsLinearInt4}},
		analysisVariant{o: synth.Options{Arm: synth.ArmA, Weights: synth.WeightsPalettized}},
		analysisVariant{o: synth.Options{Arm: synth.ArmA}, edit: hugeNegativeConstant, name: "-1e9 constant"})
}

// hugeNegativeConstant sets the first element of the module's first f32
// constant to -1e9, a stand-in for a mask written that way.
func hugeNegativeConstant(m *graph.Module) error {
	done := false
	m.Walk(func(op *graph.Operation) bool {
		d, ok := op.Inherent("value").(*graph.DenseElementsAttr)
		if done || op.Name != "coreai.constant" || !ok || !graph.IsFloat(d.Type.Elem, "f32") || len(d.Raw) < 4 {
			return !done
		}
		raw := slices.Clone(d.Raw)
		binary.LittleEndian.PutUint32(raw, math.Float32bits(-1e9))
		op.SetInherent("value", &graph.DenseElementsAttr{Type: d.Type, Raw: raw, Splat: d.Splat})
		done = true
		return false
	})
	if !done {
		return fmt.Errorf("no f32 constant")
	}
	return nil
}

// TestPreservedAnalyses runs the default pipeline, and the default
// pipeline with each other pass enabled, over every variant with
// RunOptions.CheckPreserved: each analysis a pass declares it preserves
// is compared with the analysis made afresh after it, and each analysis
// a pass asks for must be in its Requires. Every pass that declares
// Preserves must have changed the module on some variant (a pass that
// changes nothing preserves everything and proves nothing).
func TestPreservedAnalyses(t *testing.T) {
	changed := map[string]int{}
	refused := 0
	for _, v := range analysisVariants() {
		o := v.o
		for _, extra := range append([]string{""}, passes.Names()...) {
			spec := passes.Spec{}
			if extra != "" {
				if p, _ := passes.Lookup(extra); p.DefaultOn {
					continue
				}
				spec.Enable = []string{extra}
			}
			name := fmt.Sprintf("arm %s %s %s %s %s +%s", o.Arm, o.StateForm, o.Recurrence, o.Weights, v.name, extra)
			m, err := synthd.Generate(o)
			if err == nil && v.edit != nil {
				err = v.edit(m)
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := passes.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			// A pass changed the module when its printed text changed.
			text, err := mlirtext.Format(m, mlirtext.FormGeneric)
			if err != nil {
				t.Fatal(err)
			}
			after := func(pass string, m *graph.Module) error {
				now, err := mlirtext.Format(m, mlirtext.FormGeneric)
				if !bytes.Equal(now, text) {
					changed[pass]++
				}
				text = now
				return err
			}
			_, err = p.Run(m, passes.RunOptions{CheckPreserved: true, AfterPass: after})
			if err != nil && (strings.Contains(err.Error(), "declares it preserves") || strings.Contains(err.Error(), "Requires")) {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if err != nil {
				refused++
				t.Logf("%s: refused: %v", name, err)
			}
		}
	}
	for _, n := range passes.Names() {
		if p, _ := passes.Lookup(n); len(p.Preserves) > 0 && changed[n] == 0 {
			t.Errorf("pass %s declares it preserves %v but changed no variant", n, passes.AnalysisNames(p.Preserves))
		}
	}
	t.Logf("pipelines in which each pass changed the module: %v; %d pipelines refused", changed, refused)
}
