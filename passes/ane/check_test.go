package ane

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
)

func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if r.ID == "" || r.Title == "" || r.Message == "" || r.Evidence == "" {
			t.Errorf("rule %q: missing ID, title, message or evidence", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("rule %q twice", r.ID)
		}
		seen[r.ID] = true
		if r.Severity == suspect && (r.Experiment == "" || !strings.HasPrefix(r.Message, "UNCONFIRMED")) {
			t.Errorf("suspect %q must say UNCONFIRMED and name an experiment", r.ID)
		}
		if r.Fix != "" {
			if _, ok := passes.Lookup(r.Fix); !ok {
				t.Errorf("rule %q names unknown fixing pass %q", r.ID, r.Fix)
			}
		}
		if RuleByID(r.ID) != r {
			t.Errorf("RuleByID(%q)", r.ID)
		}
	}
	// Rules that mirror the compiler quote it verbatim.
	if RuleElementType.Message != "Incompatible element type for ANE: expected fp16, f8E4M3, si8, ui8, si16, or ui16" {
		t.Errorf("element-type message drifted from the compiler's: %q", RuleElementType.Message)
	}
	if ruleIOOp.Message != "ANE I/O op isn't a squeeze / expandDims" {
		t.Errorf("io-op message drifted: %q", ruleIOOp.Message)
	}
}

// summary renders findings as sorted "rule opname fix" strings.
func summary(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule.ID+" "+f.OpName+" "+f.FixPass())
	}
	sort.Strings(out)
	return out
}

// The element types of TestRules' weights beyond graph's named ones.
var (
	rulesSI4 = &graph.IntegerType{Width: 4, Signedness: graph.Signed}
	rulesUI4 = &graph.IntegerType{Width: 4, Signedness: graph.Unsigned}
	rulesF8  = &graph.FloatType{Name: "f8E4M3FN"}
)

// rulesWeights dequantizes data of type elem with blockwise_shift_scale and
// feeds the result to a matmul with input x.
func rulesWeights(data *graph.TensorType, palettized bool) func() *graph.Module {
	return func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""})
		w := g.constant(data)
		if palettized {
			w = g.op("coreai.lut_to_dense", "lut", 1, []*graph.Value{g.constant(tensor(rulesUI4, 4, 4)), g.constant(tensor(graph.SI32, 1, 1, 16, 1)), g.constant(tensor(graph.SI16))}, tensor(data.Elem, 4, 4))
		}
		scale := g.op("coreai.reshape", "", 0, []*graph.Value{g.constant(tensor(graph.F16)), g.constant(tensor(graph.UI32, 2))}, tensor(graph.F16, 1, 1))
		d := g.op("coreai.blockwise_shift_scale", "bss", 2, []*graph.Value{w, scale, g.constant(tensor(data.Elem, 1, 1)), g.constant(tensor(graph.F16, 1, 1))}, tensor(graph.F16, 4, 4))
		g.out(g.op("coreai.decomposable.broadcasting_batch_matmul", "mm", 3, []*graph.Value{g.arg(0), d}, tensor(graph.F16, 1, 4)), "y")
		return g.m
	}
}

type rulesCase struct {
	name     string
	build    func() *graph.Module
	findings []string // sorted summaries of blockers and infos
	suspects []string
	regions  int // observed prediction for @main
	segments int
}

var rulesCases = []rulesCase{
	{"fp16 graph is legal", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""})
		y := g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 4))
		g.out(g.op("coreai.silu", "silu", 2, []*graph.Value{y}, tensor(graph.F16, 1, 4)), "y")
		return g.m
	}, []string{"apple.silu coreai.silu "}, nil, 1, 1}, // info only: the verdict stays legal
	{"fp32 input read by an add", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F32, 1, 4), ""})
		c := g.constant(tensor(graph.F32))
		g.out(g.op("coreai.decomposable.broadcasting_add", "add", 1, []*graph.Value{g.arg(0), c}, tensor(graph.F32, 1, 4)), "y")
		return g.m
	}, []string{"element-type coreai.decomposable.broadcasting_add strip-fp32-casts",
		"io-op coreai.decomposable.broadcasting_add strip-fp32-casts"}, nil, 0, 0},
	{"expand_dims on an input", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
		e := g.op("coreai.expand_dims", "unsqueeze", 1, []*graph.Value{g.arg(0), g.constant(tensor(graph.SI32, 1))}, tensor(graph.F16, 1, 4))
		g.out(g.op("coreai.exp", "exp", 2, []*graph.Value{e}, tensor(graph.F16, 1, 4)), "y")
		return g.m
	}, []string{"io-op coreai.expand_dims fold-io-unsqueeze"}, nil, 0, 1},
	{"si32 in_step building slice_update begin is exempt", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"in_step", tensor(graph.SI32, 1), ""}, port{"x", tensor(graph.F16, 1, 8), ""},
			port{"cache", tensor(graph.F16, 1, 8), "new_cache"})
		zero := g.constant(tensor(graph.SI32, 1))
		axis := g.constant(tensor(graph.SI32))
		begin := g.op("coreai.concat", "cat", 1, []*graph.Value{axis, zero, g.arg(0)}, tensor(graph.SI32, 2))
		end := g.op("coreai.concat", "cat_1", 1, []*graph.Value{axis, zero, g.arg(0)}, tensor(graph.SI32, 2))
		stride := g.constant(tensor(graph.SI32, 2))
		u := g.op("coreai.slice_update", "slice_update", 2, []*graph.Value{g.arg(2), g.arg(1), begin, end, stride}, tensor(graph.F16, 1, 8))
		g.out(u, "new_cache")
		return g.m
	}, nil, []string{"suspect.state-last-axis state \"cache\" ", "suspect.state-write coreai.slice_update "}, 1, 1},
	{"position ids cast to fp16 is exempt", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"pos", tensor(graph.SI32, 1, 4), ""})
		c := g.op("coreai.cast", "_to_copy", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 4))
		g.out(g.op("coreai.cos", "cos", 2, []*graph.Value{c}, tensor(graph.F16, 1, 4)), "y")
		return g.m
	}, nil, nil, 1, 1},
	{"inline fp32 chain between casts is a suspect", inlineChain, nil, []string{"suspect.fp32-chain coreai.cast strip-fp32-casts"}, 1, 1},
	{"fp32 round trip through a state is reported at the opening casts", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 4), ""}, port{"s", tensor(graph.F16, 1, 4), "s"})
		xs := g.op("coreai.cast", "_to_copy", 199, []*graph.Value{g.arg(0)}, tensor(graph.F32, 1, 4))
		ss := g.op("coreai.cast", "_to_copy_1", 199, []*graph.Value{g.arg(1)}, tensor(graph.F32, 1, 4))
		n := g.op("coreai.decomposable.broadcasting_add", "add", 200, []*graph.Value{xs, ss}, tensor(graph.F32, 1, 4))
		back := g.op("coreai.cast", "_to_copy_2", 201, []*graph.Value{n}, tensor(graph.F16, 1, 4))
		g.out(back, "s")
		return g.m
	}, []string{"element-type coreai.cast strip-fp32-casts", "element-type coreai.cast strip-fp32-casts"}, []string{"suspect.state-last-axis state \"s\" "}, 0, 0},
	{"rank 6", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 1, 1, 1, 1, 2, 2), ""})
		y := g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 1, 1, 1, 1, 2, 2))
		g.out(g.op("coreai.exp", "exp_1", 1, []*graph.Value{y}, tensor(graph.F16, 1, 1, 1, 1, 2, 2)), "y")
		return g.m
	}, []string{"rank coreai.exp ", "rank coreai.exp "}, nil, 0, 0},
	{"dynamic shape", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, graph.Dynamic, 4), ""})
		g.out(g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, graph.Dynamic, 4)), "y")
		return g.m
	}, []string{"static-shape coreai.exp "}, nil, 0, 0},
	{"foreign dialect, linear int4, unknown coreai op", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 4), ""})
		a := g.op("coreai.exp", "exp", 1, []*graph.Value{g.arg(0)}, tensor(graph.F16, 4))
		b := g.op("arith.negf", "neg", 2, []*graph.Value{a}, tensor(graph.F16, 4))
		c := g.op("coreai.exp", "exp_1", 3, []*graph.Value{b}, tensor(graph.F16, 4))
		_ = c
		w := g.constant(tensor(rulesSI4, 4))
		d := g.op("coreai.blockwise_shift_scale", "bss", 4, []*graph.Value{w, g.constant(tensor(graph.F16, 1)), g.constant(tensor(rulesSI4, 1)), g.constant(tensor(graph.F16, 1))}, tensor(graph.F16, 4))
		e := g.op("coreai.exp", "exp_2", 5, []*graph.Value{d}, tensor(graph.F16, 4))
		f := g.op("coreai.frobnicate", "frob", 6, []*graph.Value{e}, tensor(graph.F16, 4))
		g.out(f, "y")
		return g.m
	}, []string{"linear-int4 coreai.blockwise_shift_scale legalize-weights", "no-lowering arith.negf ", "unverified-op coreai.frobnicate "}, nil, 0, 3},
	{"linear int4 weights", rulesWeights(tensor(rulesSI4, 4, 4), false), []string{"linear-int4 coreai.blockwise_shift_scale legalize-weights"}, nil, 0, 2},
	{"linear ui4 weights", rulesWeights(tensor(rulesUI4, 4, 4), false), []string{"linear-int4 coreai.blockwise_shift_scale legalize-weights"}, nil, 0, 2},
	{"si8 weights compile", rulesWeights(tensor(graph.SI8, 4, 4), false), nil, nil, 1, 1},
	{"f8E4M3FN weights compile", rulesWeights(tensor(rulesF8, 4, 4), false), nil, nil, 1, 1},
	{"palettized (ui4 indices, lut_to_dense) weights compile", rulesWeights(tensor(graph.SI8, 4, 4), true), nil, nil, 1, 1},
	{"quantize/dequantize axis operands are parameters", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 2, 4), ""})
		sc, o1, o2 := g.constant(tensor(graph.F16, 2)), g.constant(tensor(graph.SI8, 2)), g.constant(tensor(graph.F16, 2))
		axis := g.constant(tensor(graph.SI32))
		q := g.op("coreai.quantize", "q", 1, []*graph.Value{g.arg(0), sc, o1, o2, axis}, tensor(graph.SI8, 2, 4))
		dq := g.op("coreai.dequantize", "dq", 2, []*graph.Value{q, sc, o1, o2, axis}, tensor(graph.F16, 2, 4))
		g.out(g.op("coreai.exp", "exp", 3, []*graph.Value{dq}, tensor(graph.F16, 2, 4)), "y")
		return g.m
	}, nil, nil, 1, 1},
	{"scatter_nd (x, updates, indices): si32 indices exempt, f32 updates not", func() *graph.Module {
		g := newGraph(nil, "main", "", port{"x", tensor(graph.F16, 5, 3), ""}, port{"idx", tensor(graph.SI32, 2, 1), ""}, port{"vals", tensor(graph.F16, 2, 3), ""})
		r := g.op("coreai.scatter_nd", "index_put", 1, []*graph.Value{g.arg(0), g.arg(2), g.arg(1)}, tensor(graph.F16, 5, 3))
		g.out(g.op("coreai.exp", "exp", 2, []*graph.Value{r}, tensor(graph.F16, 5, 3)), "y")
		return g.m
	}, nil, nil, 1, 1},
	{"scatter_nd with f32 updates", scatterF32Updates, nil, []string{"suspect.fp32-chain coreai.cast strip-fp32-casts", "suspect.fp32-chain coreai.cast strip-fp32-casts"}, 1, 1},
	{"slice_update of a state that is not stored back is no state write", stateNotStoredBack, nil, []string{"suspect.state-last-axis state \"cache\" "}, 1, 1},
	{"tied head constant", tiedHead, []string{"apple.gather-rope coreai.gather_nd "}, []string{"suspect.tied-head-constant coreai.constant "}, 1, 1},
}

func TestRules(t *testing.T) {
	cases := rulesCases
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.build()
			if err := graph.Verify(m); err != nil {
				t.Fatalf("test graph does not verify: %v", err)
			}
			rep, err := Check(m)
			if err != nil {
				t.Fatal(err)
			}
			gr := rep.Graphs[0]
			if got := summary(gr.Findings); strings.Join(got, "|") != strings.Join(c.findings, "|") {
				t.Errorf("findings:\n got %q\nwant %q", got, c.findings)
			}
			if got := summary(gr.Suspects); strings.Join(got, "|") != strings.Join(c.suspects, "|") {
				t.Errorf("suspects:\n got %q\nwant %q", got, c.suspects)
			}
			if gr.RegionsObserved != c.regions || gr.Segments != c.segments {
				t.Errorf("regions %d segments %d, want %d %d", gr.RegionsObserved, gr.Segments, c.regions, c.segments)
			}
			if rep.Legal() != (c.regions == 1) {
				t.Errorf("Legal() = %v", rep.Legal())
			}
		})
	}
}

func TestCompositeBlocksCaller(t *testing.T) {
	f16 := graph.F16
	main := newGraph(nil, "main", "", port{"x", tensor(f16, 4), ""})
	callee := newGraph(main.m, "norm", "private", port{"input", tensor(f16, 4), ""})
	bad := callee.op("arith.negf", "neg", 1, []*graph.Value{callee.arg(0)}, tensor(f16, 4))
	callee.out(bad, "output")
	y := main.invoke("norm", []*graph.Value{main.arg(0)}, tensor(f16, 4))
	main.out(main.op("coreai.exp", "exp", 2, []*graph.Value{y}, tensor(f16, 4)), "y")
	if err := graph.Verify(main.m); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(main.m)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Graphs[0].Entry || rep.Graphs[1].Entry {
		t.Fatalf("entry flags: %v %v", rep.Graphs[0].Entry, rep.Graphs[1].Entry)
	}
	if !rep.Graphs[0].Blocked || rep.Graphs[0].RegionsObserved != 0 || rep.Graphs[0].Segments != 1 {
		t.Errorf("main: blocked %v regions %d segments %d", rep.Graphs[0].Blocked, rep.Graphs[0].RegionsObserved, rep.Graphs[0].Segments)
	}
	if r, n := rep.Regions(); r != 0 || n != 1 {
		t.Errorf("Regions() = %d/%d", r, n)
	}
}

func TestGroupFindings(t *testing.T) {
	fs := []Finding{
		{Rule: RuleElementType, Graph: "main", OpID: "_to_copy_4", OpName: "coreai.cast", Source: "q.py:199"},
		{Rule: ruleIOOp, Graph: "main", OpID: "unsqueeze", OpName: "coreai.expand_dims", Source: "q.py:120", rare: &findingRare{fix: "fold-io-unsqueeze"}},
		{Rule: RuleElementType, Graph: "main", OpID: "_to_copy_5", OpName: "coreai.cast", Source: "q.py:199"},
		{Rule: RuleElementType, Graph: "other", OpID: "_to_copy_5", OpName: "coreai.cast", Source: "q.py:199"},
	}
	gs := GroupFindings(fs)
	if len(gs) != 2 {
		t.Fatalf("groups: %+v", gs)
	}
	g := gs[0]
	if g.Rule != RuleElementType || g.Count != 3 || strings.Join(g.OpIDs, ",") != "_to_copy_4,_to_copy_5" ||
		strings.Join(g.Graphs, ",") != "main,other" || g.Fix != "strip-fp32-casts" {
		t.Errorf("group 0: %+v", g)
	}
	if gs[1].Fix != "fold-io-unsqueeze" || gs[1].Count != 1 {
		t.Errorf("group 1: %+v", gs[1])
	}
}

// TestGroupFindingsManyIDs: a group listing more op ids than it searches
// by list (GroupFindings indexes them past 8) still lists each id once, in
// first-seen order, and groups of the first graph do not share an appended
// graph list.
func TestGroupFindingsManyIDs(t *testing.T) {
	var fs []Finding
	var want []string
	for i := range 20 {
		id := fmt.Sprintf("op%d", i)
		want = append(want, id)
		for range 1 + i%3 { // ids repeat: 1, 2 or 3 findings each
			fs = append(fs, Finding{Rule: RuleElementType, Graph: "main", OpID: id, OpName: "coreai.cast", Source: "q.py:1"})
		}
	}
	fs = append(fs, Finding{Rule: RuleElementType, Graph: "main", OpID: "op3", OpName: "coreai.cast", Source: "q.py:2"},
		Finding{Rule: RuleElementType, Graph: "other", OpID: "op3", OpName: "coreai.cast", Source: "q.py:2"})
	gs := GroupFindings(fs)
	if len(gs) != 2 {
		t.Fatalf("%d groups, want 2", len(gs))
	}
	if got := strings.Join(gs[0].OpIDs, ","); got != strings.Join(want, ",") || gs[0].Count != 39 {
		t.Errorf("group 0: count %d, ids %s", gs[0].Count, got)
	}
	if g := gs[0].Graphs; len(g) != 1 || g[0] != "main" {
		t.Errorf("group 0 graphs %v", g)
	}
	if g := gs[1].Graphs; strings.Join(g, ",") != "main,other" || strings.Join(gs[1].OpIDs, ",") != "op3" {
		t.Errorf("group 1: graphs %v ids %v", g, gs[1].OpIDs)
	}
}

func TestMetadataOpID(t *testing.T) {
	op := graph.NewOp("coreai.cast", nil, nil, nil, &graph.FusedLoc{
		Metadata: &graph.OpaqueAttr{Text: `#debuginfo.metadata<sources = [{name = "torch", id = 12 : ui64, identifiers = ["_to_copy_12"]}]>`},
		Locs:     []graph.Loc{&graph.FileLoc{File: "/a/models/macos/qwen3_5.py", Line: 199}},
	})
	if got := op.OpID(); got != "_to_copy_12" {
		t.Errorf("OpID = %q", got)
	}
}

func TestCheckEmptyModule(t *testing.T) {
	if _, err := Check(nil); err == nil {
		t.Error("Check(nil) should fail")
	}
	rep, err := Check(graph.NewModule())
	if err != nil || !rep.Legal() {
		t.Errorf("empty module: %v %v", rep, err)
	}
}

// coreai-torch's #debuginfo.location op locations give the same findings,
// op ids, sources and caller frames as the builtin fused locations.
func TestDialectLocationsSameFindings(t *testing.T) {
	for _, o := range []synth.Options{{Arm: synth.ArmA}, {Arm: synth.ArmB, StateForm: synth.StateHandle}} {
		plain, err := synth.Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		o.Locations = synth.LocDebugInfo
		dl, err := synth.Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		key := func(m *graph.Module) []string {
			rep, err := Check(m)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, f := range append(rep.AllFindings(), rep.AllSuspects()...) {
				out = append(out, f.Rule.ID+" "+f.OpID+" "+f.Source+" via "+f.Via()+" "+f.Detail)
			}
			return out
		}
		a, b := key(plain), key(dl)
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("%+v: findings differ:\nbuiltin:\n%s\ndebuginfo:\n%s", o, strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
		if len(a) == 0 || !strings.Contains(strings.Join(b, "\n"), "/ios/qwen3_5_ios.py:290 opens") {
			t.Errorf("%+v: want findings with caller frames, got %d findings", o, len(b))
		}
	}
}
