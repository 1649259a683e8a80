package ane

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/graph/synth/expect"
	"github.com/anefix/anefix/passes/synthd"
)

// placementModels are the synth arms A–E, every testdata/families
// stand-in (a family added there is picked up) and every calibration graph
// (whole-function rules among them), as written and after the default
// rewrite.
func placementModels(t *testing.T) map[string]func(t *testing.T) *graph.Module {
	t.Helper()
	out := map[string]func(t *testing.T) *graph.Module{}
	for _, arm := range []synth.Arm{synth.ArmA, synth.ArmB, synth.ArmC, synth.ArmD, synth.ArmE} {
		out["arm"+arm.String()] = func(t *testing.T) *graph.Module {
			m, err := synthd.Generate(synth.Options{Arm: arm})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	// The recurrence as a composite: its ops are placed with their call.
	out["armA-composite"] = func(t *testing.T) *graph.Module {
		m, err := synthd.Generate(synth.Options{Arm: synth.ArmA, Recurrence: synth.RecurrenceComposite})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, dir := range []string{"families", "calibration"} {
		files, err := filepath.Glob(filepath.Join("..", "..", "testdata", dir, "*.mlir"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no %s: %v", dir, err)
		}
		for _, p := range files {
			out[dir+"/"+strings.TrimSuffix(filepath.Base(p), ".mlir")] = func(t *testing.T) *graph.Module {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				m, _, err := mlirtext.Parse(p, string(b))
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
		}
	}
	for name, gen := range out {
		out[name+"/rewritten"] = func(t *testing.T) *graph.Module {
			m := gen(t)
			runPipeline(t, m, nil)
			return m
		}
	}
	return out
}

// TestPlacementProperties: for every model and architecture (the known
// ones and one without a record), every op of every graph has exactly one
// placement with a unique op id; per entry function the distinct regions
// of its "ane" ops are its predicted region count; an "ane" op is never
// illegal and in no segment; the "gpu" ops of an entry function number its
// OpsOff; a composite's ops have no region or segment of their own.
func TestPlacementProperties(t *testing.T) {
	for name, gen := range placementModels(t) {
		for _, arch := range append(KnownArchitectures(), "h99x") {
			t.Run(name+"/"+arch, func(t *testing.T) {
				rep, err := CheckWith(gen(t), Options{Architecture: arch, Placement: true, NoHazards: true})
				if err != nil {
					t.Fatal(err)
				}
				checkPlacement(t, rep)
			})
		}
	}
}

func checkPlacement(t *testing.T, rep *Report) {
	t.Helper()
	type key struct {
		graph string
		index int
	}
	seen := map[key]bool{}
	ids := map[string]bool{}
	regions := map[string]map[int]bool{}
	gpu := map[string]int{}
	entry := map[string]bool{}
	for i := range rep.Graphs {
		entry[rep.Graphs[i].Name] = rep.Graphs[i].Entry
	}
	for _, p := range rep.Ops {
		if p.Device == DeviceGPU {
			gpu[p.Graph]++
		}
		k := key{p.Graph, p.Index}
		if seen[k] {
			t.Errorf("%s#%d placed twice", p.Graph, p.Index)
		}
		seen[k] = true
		if ids[p.OpID] || p.OpID == "" {
			t.Errorf("op id %q empty or not unique", p.OpID)
		}
		ids[p.OpID] = true
		if !entry[p.Graph] {
			// A composite's ops sit in their callers' regions.
			if p.Region != 0 || p.Segment != 0 {
				t.Errorf("%s: composite op with region %d, segment %d", p.OpID, p.Region, p.Segment)
			}
			if p.Device == DeviceGPU {
				gpu[p.Graph]++
			}
			continue
		}
		switch p.Device {
		case DeviceANE:
			if p.Region < 1 {
				t.Errorf("%s: ane without a region", p.OpID)
			}
			if regions[p.Graph] == nil {
				regions[p.Graph] = map[int]bool{}
			}
			regions[p.Graph][p.Region] = true
		case DeviceGPU, DeviceNone, DeviceUnknown:
			if p.Region != 0 {
				t.Errorf("%s: %s with region %d", p.OpID, p.Device, p.Region)
			}
		default:
			t.Errorf("%s: device %q outside the vocabulary", p.OpID, p.Device)
		}
	}
	for i := range rep.Graphs {
		g := &rep.Graphs[i]
		for _, v := range g.Verdicts {
			if !seen[key{g.Name, v.Index}] {
				t.Errorf("%s#%d (%s) has no placement", g.Name, v.Index, v.Op.Name)
			}
		}
		if g.Entry && g.RegionsKnown && len(regions[g.Name]) != g.PredictedRegions {
			t.Errorf("@%s: %d distinct ane regions, %d predicted", g.Name, len(regions[g.Name]), g.PredictedRegions)
		}
		if g.Entry && g.RegionsKnown && gpu[g.Name] != g.OpsOff {
			t.Errorf("@%s: %d ops on the GPU, %d counted off", g.Name, gpu[g.Name], g.OpsOff)
		}
		if g.Entry && !g.RegionsKnown && len(regions[g.Name]) != 0 {
			t.Errorf("@%s: ane ops where the count is unknown", g.Name)
		}
	}
	if len(seen) != len(rep.Ops) {
		t.Errorf("%d placements for %d ops", len(rep.Ops), len(seen))
	}
	byKey := map[key]OpPlacement{}
	for _, p := range rep.Ops {
		byKey[key{p.Graph, p.Index}] = p
	}
	for i := range rep.Graphs {
		g := &rep.Graphs[i]
		for _, v := range g.Verdicts {
			p := byKey[key{g.Name, v.Index}]
			if p.Blocked != (v.Verdict == Illegal) {
				t.Errorf("%s: blocked %v, verdict %v", p.OpID, p.Blocked, v.Verdict)
			}
			if v.Verdict == Illegal && (p.Device == DeviceANE || p.Segment != 0) {
				t.Errorf("%s: illegal (%v) but %s, segment %d", p.OpID, v.Rules, p.Device, p.Segment)
			}
		}
	}
}

// TestPlacementExpected: devices the generators and the published
// compiles fix, not the placement code. Arm A as written: the seed's h18p
// compile gave 0 regions, so no op is on the Neural Engine; the gated-delta
// recurrence (expect.Retype, _to_copy_4 among it: the cast the compiler
// cited) is off it under h16g too. Arm E: 19 regions over 19 functions on
// h18p, the seed's compile. Arm A after the default rewrite: its blocking
// islands are gone, so under h18p every op but constants and terminators
// is on the Neural Engine; under h16g the fp32 islands the rewrite keeps
// (expect.Keep: norms, RoPE) are GPU islands and the retyped recurrence is
// on the Neural Engine.
func TestPlacementExpected(t *testing.T) {
	ea, err := synth.Expected(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	ee, err := synth.Expected(synth.Options{Arm: synth.ArmE})
	if err != nil {
		t.Fatal(err)
	}
	place := func(m *graph.Module, arch string) (*Report, map[string]OpPlacement) {
		rep, err := CheckWith(m, Options{Architecture: arch, Placement: true, NoHazards: true})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]OpPlacement{}
		for _, p := range rep.Ops {
			byID[p.OpID] = p
		}
		return rep, byID
	}
	inFrames := func(op *graph.Operation, fs []expect.Frame) bool {
		for _, l := range graph.FileLocs(op.Loc)[:min(1, len(graph.FileLocs(op.Loc)))] {
			for _, f := range fs {
				if f.Has(l.File, l.Line) {
					return true
				}
			}
		}
		return false
	}
	touchesF32 := func(op *graph.Operation) bool {
		for _, v := range append(op.Operands(), op.Results()...) {
			if graph.ElementType(v.Type()).String() == "f32" {
				return true
			}
		}
		return false
	}
	ops := func(m *graph.Module, each func(op *graph.Operation, i int)) {
		i := 0
		for _, g := range m.Graphs() {
			g.Op.Walk(func(o *graph.Operation) bool {
				if o != g.Op {
					each(o, i)
					i++
				}
				return true
			})
		}
	}
	t.Run("armA", func(t *testing.T) {
		for _, c := range []struct {
			arch       string
			recurrence string
		}{{"h18p", ""}, {"h16g", ""}, {"h18p", synth.RecurrenceComposite}, {"h16g", synth.RecurrenceComposite}} {
			arch := c.arch
			o := synth.Options{Arm: synth.ArmA, Recurrence: c.recurrence}
			m, err := synth.Generate(o)
			if err != nil {
				t.Fatal(err)
			}
			ea, err := synth.Expected(o)
			if err != nil {
				t.Fatal(err)
			}
			rep, byID := place(m, arch)
			if p := byID["_to_copy_4"]; c.recurrence == "" && p.Device != DeviceGPU {
				t.Errorf("%s: _to_copy_4 on %q (%s), want gpu", arch, p.Device, p.Reason)
			}
			n := 0
			for _, p := range rep.Ops {
				if ea.Published != nil && arch == ea.Published.Architecture && p.Device == DeviceANE {
					t.Errorf("%s: %s on the Neural Engine; the seed's compile gave %d regions", arch, p.OpID, ea.Published.Regions)
				}
			}
			ops(m, func(op *graph.Operation, i int) {
				if op.Name == "coreai.constant" || !inFrames(op, ea.Retype) {
					return
				}
				n++
				if p := rep.Ops[i]; p.Device != DeviceGPU {
					t.Errorf("%s: %s (%s, recurrence) on %q (%s), want gpu", arch, p.OpID, p.OpName, p.Device, p.Reason)
				}
			})
			if n == 0 {
				t.Fatal("no op in the recurrence's frames: the expectation could not fail")
			}
		}
	})
	t.Run("armE", func(t *testing.T) {
		rep, _ := place(genArm(t, synth.ArmE), ee.Published.Architecture)
		regions := map[string]bool{}
		for _, p := range rep.Ops {
			if p.Device == DeviceANE {
				regions[fmt.Sprint(p.Graph, "/", p.Region)] = true
			}
		}
		if len(regions) != ee.Published.Regions {
			t.Errorf("%d (graph, region) pairs on the Neural Engine, the seed's compile %d", len(regions), ee.Published.Regions)
		}
	})
	t.Run("armA/rewritten", func(t *testing.T) {
		for _, arch := range []string{"h18p", "h16g"} {
			m := genArm(t, synth.ArmA)
			runPipeline(t, m, nil)
			rep, _ := place(m, arch)
			keep, retyped := 0, 0
			ops(m, func(op *graph.Operation, i int) {
				p := rep.Ops[i]
				if p.Device == DeviceNone {
					return
				}
				switch {
				case arch == "h18p" && p.Device != DeviceANE:
					t.Errorf("h18p: %s (%s) on %q (%s), want ane", p.OpID, p.OpName, p.Device, p.Reason)
				case arch == "h16g" && inFrames(op, ea.Keep) && touchesF32(op):
					keep++
					if p.Device != DeviceGPU {
						t.Errorf("h16g: %s (%s, a kept fp32 island) on %q, want gpu", p.OpID, p.OpName, p.Device)
					}
				case arch == "h16g" && inFrames(op, ea.Retype):
					retyped++
					if p.Device != DeviceANE {
						t.Errorf("h16g: %s (%s, the retyped recurrence) on %q (%s), want ane", p.OpID, p.OpName, p.Device, p.Reason)
					}
				}
			})
			if arch == "h16g" && (keep == 0 || retyped == 0) {
				t.Errorf("h16g: %d kept-island ops, %d recurrence ops: the expectation could not fail", keep, retyped)
			}
		}
	})
}
