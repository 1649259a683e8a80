package passes_test

// fold-io-unsqueeze, promote-states and arm-d on graph/synth's tiny arm A
// (an external test package: graph/synth imports passes for arm D).

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/synthd"
)

func armA(t *testing.T, layers int) *graph.Module {
	t.Helper()
	m, err := synth.Generate(synth.Options{Arm: synth.ArmA, Layers: layers})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func run(t *testing.T, name string, m *graph.Module, opts passes.Options) *passes.Change {
	t.Helper()
	p, ok := passes.Lookup(name)
	if !ok {
		t.Fatalf("%s not registered", name)
	}
	if opts == nil {
		d, err := p.Defaults()
		if err != nil {
			t.Fatal(err)
		}
		opts = d
	}
	ch, err := p.Run(m, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatalf("after %s: %v", name, err)
	}
	return ch
}

func text(t *testing.T, m *graph.Module) string {
	t.Helper()
	b, err := mlirtext.Format(m, mlirtext.FormGeneric)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// frames reports whether any stack frame of op's location is file:line in
// [lo, hi] (file matched by suffix).
func hasFrame(l graph.Loc, file string, lo, hi int) bool {
	switch x := l.(type) {
	case *graph.FileLoc:
		return strings.HasSuffix(x.File, file) && x.Line >= lo && x.Line <= hi
	case *graph.NameLoc:
		return x.Child != nil && hasFrame(x.Child, file, lo, hi)
	case *graph.FusedLoc:
		for _, c := range x.Locs {
			if hasFrame(c, file, lo, hi) {
				return true
			}
		}
	case *graph.CallSiteLoc:
		return hasFrame(x.Callee, file, lo, hi) || hasFrame(x.Caller, file, lo, hi)
	}
	return false
}

func TestArmDOnSynthArmA(t *testing.T) {
	const layers = 8 // 6 linear + 2 full attention
	m := armA(t, layers)
	count := func(pred func(*graph.Operation) bool) int {
		n := 0
		m.Walk(func(op *graph.Operation) bool {
			if pred(op) {
				n++
			}
			return true
		})
		return n
	}
	recurrence := func(op *graph.Operation) bool { return hasFrame(op.Loc, "ios/qwen3_5_ios.py", 290, 290) }
	rope := func(op *graph.Operation) bool { return hasFrame(op.Loc, "ios/qwen3_5_ios.py", 140, 147) }
	sdpa := func(op *graph.Operation) bool { return hasFrame(op.Loc, "primitives/ios/sdpa.py", 1, 1<<30) }
	slices := func(op *graph.Operation) bool { return op.Name == "coreai.slice_update" }
	castsAt199 := func(op *graph.Operation) bool {
		return op.Name == "coreai.cast" && hasFrame(op.Loc, "macos/qwen3_5.py", 199, 199)
	}
	if n := count(castsAt199); n != 6*6 {
		t.Fatalf("arm A has %d _to_copy casts at qwen3_5.py:199, want 36 (6 per linear layer); synth changed?", n)
	}
	nSlices := count(slices)
	if count(recurrence) == 0 || count(rope) == 0 || count(sdpa) == 0 {
		t.Fatalf("arm A lacks a region: recurrence %d rope %d sdpa %d", count(recurrence), count(rope), count(sdpa))
	}
	ch, err := passes.ArmD(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatal(err)
	}
	for name, pred := range map[string]func(*graph.Operation) bool{"recurrence": recurrence, "rope": rope, "sdpa": sdpa} {
		// Only arm-d's own pass-through ops may still carry the frames.
		if n := count(func(op *graph.Operation) bool { return pred(op) && op.OpID() != "anefix.arm-d" }); n != 0 {
			t.Errorf("%d %s ops remain", n, name)
		}
	}
	if n := count(slices); n != nSlices {
		t.Errorf("state writes: %d slice_update before, %d after", nSlices, n)
	}
	// One region per linear layer, one SDPA and two RoPE per full layer.
	regions := map[string]int{}
	for _, n := range ch.Notes {
		for _, k := range []string{"recurrence", "sdpa", "rope"} {
			if strings.HasPrefix(n, "replaced "+k+" region") {
				regions[k]++
			}
		}
	}
	if regions["recurrence"] != 6 || regions["sdpa"] != 2 || regions["rope"] != 4 {
		t.Errorf("regions replaced %v, want recurrence 6, sdpa 2, rope 4\n%s", regions, strings.Join(ch.Notes, "\n"))
	}
	var sawCast bool
	for _, r := range ch.Replaced {
		if strings.HasPrefix(r.OpID, "_to_copy") && strings.HasSuffix(r.Source, "macos/qwen3_5.py:199") {
			sawCast = true
		}
	}
	if !sawCast {
		t.Errorf("report does not list the _to_copy casts at qwen3_5.py:199 among %d replaced ops", len(ch.Replaced))
	}
	// What f32 is left is the builder's local norms only.
	m.Walk(func(op *graph.Operation) bool {
		for _, r := range op.Results() {
			if strings.Contains(r.Type().String(), "f32") && !hasFrame(op.Loc, "ios/qwen3_5_ios.py", 58, 64) && !hasFrame(op.Loc, "ios/qwen3_5_ios.py", 96, 103) {
				t.Errorf("f32 outside the norms after arm-d: %s", op.Describe())
			}
		}
		return true
	})
	// Idempotent, checked on the printed IR.
	before := text(t, m)
	if _, err := passes.ArmD(m, nil); err != nil {
		t.Fatal(err)
	}
	if after := text(t, m); after != before {
		t.Errorf("second arm-d run changed the printed IR")
	}
	// The printed result parses back and verifies. (Text equality after a
	// round trip is mlirtext's business: today a one-element splat prints
	// as dense<2> and parses back as dense<[2]>, in arm A too.)
	m2, _, err := mlirtext.Parse("armd.mlir", before)
	if err != nil {
		t.Fatalf("printed arm D does not parse: %v", err)
	}
	if err := graph.Verify(m2); err != nil {
		t.Errorf("parsed arm D does not verify: %v", err)
	}
}

// synth's arm D (passes/synthd) is arm-d applied to arm A, then dead ops removed: same
// printed IR. synth keeps the blobs only the removed regions read
// (graph/synth/synth.go's armD), so dce runs with resources=false (and
// graphs=false). Before options were typed, this test passed no options
// and dce read both as false (a missing map entry); now it says so.
func TestSynthArmDIsArmDPass(t *testing.T) {
	d, err := synthd.Generate(synth.Options{Arm: synth.ArmD})
	if err != nil {
		t.Fatal(err)
	}
	a := armA(t, 0)
	if _, err := passes.ArmD(a, nil); err != nil {
		t.Fatal(err)
	}
	dce, err := passes.ParseOptions[passes.DCEOptions]("graphs=false", "resources=false")
	if err != nil {
		t.Fatal(err)
	}
	run(t, "dce", a, dce)
	if text(t, a) != text(t, d) {
		t.Errorf("synth --arm D differs from arm-d on arm A")
	}
}

func TestIOPassesOnSynthArmA(t *testing.T) {
	m := armA(t, 0)
	ch := run(t, "fold-io-unsqueeze", m, nil)
	main := m.Graph("main")
	got := map[string]string{}
	for _, c := range ch.IOChanges {
		got[c.Port] = c.Before + "->" + c.After
	}
	for port, want := range map[string]string{
		"position_ids": "tensor<1x1xsi32>->tensor<1x1x1xsi32>",
		"input_ids":    "", // only feeds the embedding's gather_nd indices
	} {
		if got[port] != want {
			t.Errorf("%s: %q, want %q (all: %v)", port, got[port], want, got)
		}
	}
	// No rank op reads an entry input or produces an output any more,
	// except the pass's own inverse reshapes and index-only ones.
	for _, a := range main.Body().Args() {
		for _, u := range a.Uses() {
			if (u.Op.Name == "coreai.expand_dims" || u.Op.Name == "coreai.shrink_dims") && u.Index == 0 && u.Op.OpID() != "embedding" {
				t.Errorf("%s still reads an input", u.Op.Describe())
			}
		}
	}
	for _, v := range main.Terminator().Operands() {
		if d := v.DefiningOp(); d != nil && (d.Name == "coreai.expand_dims" || d.Name == "coreai.shrink_dims") {
			t.Errorf("output produced by %s", d.Describe())
		}
	}
	ps := run(t, "promote-states", m, nil)
	var pairs []string
	for _, s := range ps.States {
		pairs = append(pairs, s.Input+"<-"+s.Output)
	}
	if strings.Join(pairs, " ") != "conv_state<-new_conv_state rec_state<-new_rec_state" {
		t.Errorf("promoted %q", pairs)
	}
	for _, p := range main.Inputs() {
		if (p.Name == "conv_state" || p.Name == "rec_state" || p.Name == "key_cache") != p.IsState && p.Name != "value_cache" {
			t.Errorf("input %s state=%v", p.Name, p.IsState)
		}
	}
	// Both idempotent on the result.
	before := text(t, m)
	run(t, "fold-io-unsqueeze", m, nil)
	run(t, "promote-states", m, nil)
	if text(t, m) != before {
		t.Errorf("second run of the I/O passes changed the IR")
	}
}

// Every synth arm: the three passes succeed, verify, and are idempotent;
// promote-states leaves arm B (already stateful) alone.
func TestIOAndArmDPassesOnAllArms(t *testing.T) {
	for _, arm := range []synth.Arm{synth.ArmA, synth.ArmB, synth.ArmC, synth.ArmE} {
		t.Run(arm.String(), func(t *testing.T) {
			m, err := synth.Generate(synth.Options{Arm: arm})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"fold-io-unsqueeze", "promote-states", "arm-d"} {
				ch := run(t, name, m, nil)
				if name == "promote-states" && arm == synth.ArmB && len(ch.States) != 0 {
					t.Errorf("arm B is already stateful, yet promoted %+v", ch.States)
				}
				before := text(t, m)
				run(t, name, m, nil)
				if text(t, m) != before {
					t.Errorf("%s is not idempotent on arm %s", name, arm)
				}
			}
		})
	}
}
