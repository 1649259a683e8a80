package ane

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

func TestParseArchitecture(t *testing.T) {
	for _, c := range []struct {
		in   string
		want behaviour
		err  bool
	}{
		{"", allOrNothing, false},
		{"h18p", allOrNothing, false},
		{"h16g", partitionFp32, false},
		{"h17p", unknownBehaviour, false},
		{"h16c", unknownBehaviour, false},
		{"foo", 0, true},
		{"H18P", 0, true},
		{"h18p ", 0, true},
	} {
		a, err := ParseArchitecture(c.in)
		if (err != nil) != c.err || (!c.err && a.Behaviour != c.want) {
			t.Errorf("ParseArchitecture(%q) = %v, %v; want behaviour %v, error %v", c.in, a.Behaviour, err, c.want, c.err)
		}
	}
}

// lutGraph is an fp16 matmul against a 64x64 weight palettized with bits
// and group (0: one palette for the whole tensor).
func lutGraph(bits, group int) *graph.Module {
	f16 := graph.F16
	idx := &graph.IntegerType{Width: bits, Signedness: graph.Unsigned}
	g := newGraph(nil, "main", "", port{"x", tensor(f16, 1, 8, 64), ""})
	groups := int64(1)
	if group > 0 {
		groups = int64(64 / group)
	}
	w := g.op("coreai.lut_to_dense", "lut", 1, []*graph.Value{g.constant(tensor(idx, 64, 64)),
		g.constant(tensor(f16, groups, 1, 1<<bits, 1)), g.constant(tensor(graph.SI16))}, tensor(f16, 64, 64))
	g.out(g.op("coreai.decomposable.broadcasting_batch_matmul", "mm", 2, []*graph.Value{g.arg(0), w}, tensor(f16, 1, 8, 64)), "y")
	return g.m
}

// softmaxChains is an fp16 graph with n fp32 softmax chains
// (cast → softmax f32 → cast) between fp16 adds.
func softmaxChains(n int) *graph.Module {
	f16, f32 := graph.F16, graph.F32
	g := newGraph(nil, "main", "", port{"x", tensor(f16, 1, 8, 8), ""})
	h := g.arg(0)
	ax := g.constant(tensor(graph.SI32))
	for i := 0; i < n; i++ {
		a := g.op("coreai.decomposable.broadcasting_add", "add", 1, []*graph.Value{h, h}, tensor(f16, 1, 8, 8))
		c := g.op("coreai.cast", "_to_copy", 2, []*graph.Value{a}, tensor(f32, 1, 8, 8))
		s := g.op("coreai.softmax", "softmax", 2, []*graph.Value{c, ax}, tensor(f32, 1, 8, 8))
		h = g.op("coreai.cast", "_to_copy_1", 2, []*graph.Value{s}, tensor(f16, 1, 8, 8))
	}
	g.out(g.op("coreai.decomposable.broadcasting_add", "add", 3, []*graph.Value{h, h}, tensor(f16, 1, 8, 8)), "y")
	return g.m
}

func metalGraph() *graph.Module {
	f16 := graph.F16
	g := newGraph(nil, "main", "", port{"x", tensor(f16, 1, 64), ""})
	a := g.op("coreai.decomposable.broadcasting_add", "add", 1, []*graph.Value{g.arg(0), g.arg(0)}, tensor(f16, 1, 64))
	k := g.op("coreai.metal4_kernel", "kernel", 2, []*graph.Value{a}, tensor(f16, 1, 64))
	g.out(g.op("coreai.decomposable.broadcasting_add", "add", 3, []*graph.Value{k, k}, tensor(f16, 1, 64)), "y")
	return g.m
}

func TestArchitectureRegions(t *testing.T) {
	for _, c := range []struct {
		name    string
		m       *graph.Module
		arch    string
		regions int // -1: unknown
		blocked bool
		finding string // a blocker rule expected ("" none)
	}{
		{"4-bit group 8", lutGraph(4, 8), "h18p", 0, true, "lut4-small-group"},
		{"4-bit group 16 on h16g", lutGraph(4, 16), "h16g", 0, true, "lut4-small-group"},
		{"4-bit group 32", lutGraph(4, 32), "h18p", 1, false, ""},
		{"4-bit group 64 (one palette per tensor)", lutGraph(4, 0), "h18p", 1, false, ""},
		{"6-bit group 8", lutGraph(6, 8), "h18p", 1, false, ""},
		{"8-bit group 8", lutGraph(8, 8), "h18p", 1, false, ""},
		{"metal4_kernel on h18p", metalGraph(), "h18p", 0, true, "metal4-kernel"},
		{"metal4_kernel on h16g", metalGraph(), "h16g", 0, true, "metal4-kernel"},
		{"metal4_kernel on an unknown architecture", metalGraph(), "h17p", -1, true, "metal4-kernel"},
		{"two fp32 softmax chains on h18p", softmaxChains(2), "h18p", 1, false, ""},
		{"two fp32 softmax chains on h16g", softmaxChains(2), "h16g", 3, false, ""},
		{"twelve fp32 softmax chains on h16g", softmaxChains(12), "h16g", 13, false, ""},
		{"no chain on h16g", softmaxChains(0), "h16g", 1, false, ""},
		{"legal graph on an unknown architecture", softmaxChains(0), "h15g", -1, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := graph.Verify(c.m); err != nil {
				t.Fatal(err)
			}
			rep, err := CheckWith(c.m, Options{Architecture: c.arch})
			if err != nil {
				t.Fatal(err)
			}
			gr := rep.Graphs[0]
			n, known := rep.PredictedRegions()
			if c.regions < 0 {
				if known || gr.RegionsKnown {
					t.Errorf("predicted %d regions on %s, want none (unknown)", n, c.arch)
				}
				if !strings.HasPrefix(gr.RegionModel, "unknown") {
					t.Errorf("region model %q does not say unknown", gr.RegionModel)
				}
			} else if !known || n != c.regions {
				t.Errorf("predicted %d (known %v), want %d; model %q", n, known, c.regions, gr.RegionModel)
			}
			if gr.Blocked != c.blocked {
				t.Errorf("blocked %v, want %v", gr.Blocked, c.blocked)
			}
			var blockers []string
			for _, f := range gr.Findings {
				if f.Rule.Severity == blocker {
					blockers = append(blockers, f.Rule.ID)
				}
			}
			if got := strings.Join(blockers, ","); got != c.finding {
				t.Errorf("blockers %q, want %q", got, c.finding)
			}
		})
	}
}

// A rule that keeps a whole function off the Neural Engine reaches the
// callers of the composite that holds it.
func TestArchitectureWholeFunctionThroughComposite(t *testing.T) {
	f16 := graph.F16
	m := graph.NewModule()
	callee := newGraph(m, "kern", "private", port{"a", tensor(f16, 1, 64), ""})
	callee.out(callee.op("coreai.metal4_kernel", "k", 1, []*graph.Value{callee.arg(0)}, tensor(f16, 1, 64)), "b")
	g := newGraph(m, "main", "", port{"x", tensor(f16, 1, 64), ""})
	g.out(g.invoke("kern", []*graph.Value{g.arg(0)}, tensor(f16, 1, 64)), "y")
	for _, arch := range []string{"h18p", "h16g"} {
		rep, err := CheckWith(m, Options{Architecture: arch})
		if err != nil {
			t.Fatal(err)
		}
		if n, known := rep.PredictedRegions(); !known || n != 0 {
			t.Errorf("%s: predicted %d (known %v), want 0", arch, n, known)
		}
	}
}

// Advice and Apple's contradicted rules never change a verdict or a count.
func TestAdviceIsAdvisory(t *testing.T) {
	f16 := graph.F16
	g := newGraph(nil, "main", "", port{"x", tensor(f16, 1, 7, 1), ""}, port{"y", tensor(f16, 1, 3, 4, 8), ""})
	s := g.op("coreai.silu", "silu", 1, []*graph.Value{g.arg(0)}, tensor(f16, 1, 7, 1))
	sm := g.op("coreai.softmax", "softmax", 2, []*graph.Value{g.arg(1), g.constant(tensor(graph.SI32))}, tensor(f16, 1, 3, 4, 8))
	g.out(s, "a")
	g.out(sm, "b")
	rep, err := CheckWith(g.m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gr := rep.Graphs[0]
	if gr.Blocked || gr.RegionsObserved != 1 || gr.PredictedRegions != 1 || !rep.Legal() {
		t.Errorf("advice changed the verdict: blocked %v, regions %d/%d", gr.Blocked, gr.RegionsObserved, gr.PredictedRegions)
	}
	var ids []string
	for _, f := range gr.Advice {
		ids = append(ids, f.Rule.ID)
	}
	want := "perf.io-alignment,perf.io-alignment,perf.singleton-last-axis,perf.singleton-last-axis,perf.softmax-axis" // ports first (index 0), then rule order
	if strings.Join(ids, ",") != want {
		t.Errorf("advice %q, want %q", strings.Join(ids, ","), want)
	}
	if len(gr.Findings) != 1 || gr.Findings[0].Rule != AppleSilu {
		t.Errorf("findings %v, want the apple.silu info only", summary(gr.Findings))
	}
}

func TestCalibratedRulesInTable(t *testing.T) {
	for _, r := range []*Rule{RuleLUT4SmallGroup, RuleMetalKernel, RuleFp32GatherTable, AppleSilu, AppleGatherRoPE,
		AdviceAlignment, AdviceSingletonLast, AdviceSoftmaxAxis, AdviceLinear} {
		if RuleByID(r.ID) != r {
			t.Errorf("%s is not in Rules", r.ID)
		}
		if !strings.Contains(r.Evidence, "/") {
			t.Errorf("%s: evidence names no source (repository/path): %q", r.ID, r.Evidence)
		}
	}
	for _, r := range []*Rule{AppleSilu, AppleGatherRoPE} {
		if !strings.Contains(r.Message, "CONTRADICTED") || r.Severity != info {
			t.Errorf("%s must be info and say which measurement contradicts it", r.ID)
		}
	}
}
