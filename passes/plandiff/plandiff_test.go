package plandiff

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/graph/synth/expect"
	"github.com/anefix/anefix/graph/synth/variants"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
	"github.com/anefix/anefix/passes/synthd"
)

// side checks m with placements under the default architecture.
func side(t *testing.T, m *graph.Module) Side {
	t.Helper()
	r, err := ane.CheckWith(m, ane.Options{Placement: true})
	if err != nil {
		t.Fatal(err)
	}
	return Side{Module: m, Report: r}
}

// rewritten runs the default pipeline on m (in place) and returns it.
func rewritten(t *testing.T, m *graph.Module) *graph.Module {
	t.Helper()
	p, err := passes.Build(passes.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(m, passes.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

func genArm(t *testing.T, o synth.Options) *graph.Module {
	t.Helper()
	m, err := synthd.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func parseText(t *testing.T, name string, text []byte) *graph.Module {
	t.Helper()
	m, _, err := mlirtext.Parse(name+".mlir", string(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func compute(t *testing.T, a, b Side) *Diff {
	t.Helper()
	d, err := Compute(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// opAt names an op of A by graph and pre-order index.
type opAt struct {
	graph string
	index int
}

func (o opAt) String() string { return fmt.Sprintf("@%s#%d", o.graph, o.index) }

// expectedOps is what the generator's expectation says of A's ops, read
// from A's ops, locations and types alone: the ops that touch f32 (an
// operand or a result) and sit in a Retype frame (every one, with NoF32)
// must come out retyped, except the f16↔f32 casts there, which the
// rewrite must remove (a cast left would touch f32 or be a no-op).
func expectedOps(m *graph.Module, e expect.Expect) (retyped, removedCasts []opAt) {
	isF32 := func(v *graph.Value) bool { return v.Type() != nil && graph.ElementType(v.Type()).String() == "f32" }
	for _, g := range m.Graphs() {
		// Pre-order, the graph op left out: OpPlacement.Index's order.
		var ops []*graph.Operation
		g.Op.Walk(func(o *graph.Operation) bool {
			if o != g.Op {
				ops = append(ops, o)
			}
			return true
		})
		for i, op := range ops {
			touches := slices.ContainsFunc(op.Operands(), isF32) || slices.ContainsFunc(op.Results(), isF32)
			if !touches {
				continue
			}
			in := e.NoF32
			for _, fl := range graph.FileLocs(op.Loc) {
				for _, f := range e.Retype {
					in = in || f.Has(fl.File, fl.Line)
				}
			}
			switch {
			case !in:
			case op.Name == "coreai.cast":
				removedCasts = append(removedCasts, opAt{g.Name(), i})
			default:
				retyped = append(retyped, opAt{g.Name(), i})
			}
		}
	}
	return retyped, removedCasts
}

// expectedPorts is the port changes the expectation implies, as
// "input|output NAME-IN-B: kinds": Ports' retyped or reshaped ports, each
// plain pair's input becoming a state and its output renamed after it.
func expectedPorts(t *testing.T, a *graph.Module, e expect.Expect) []string {
	t.Helper()
	var out []string
	for _, g := range graph.EntryGraphs(a, graph.EntryPublic) {
		had := map[string]graph.Port{}
		for _, p := range g.Inputs() {
			had["input "+p.Name] = p
		}
		rename := map[string]string{}
		became := map[string]bool{}
		for _, p := range e.Pairs {
			if _, ok := had["input "+p.In]; ok && p.Plain {
				rename[p.Out] = p.State()
				became["input "+p.In], became["output "+p.State()] = true, true
			}
		}
		for _, p := range g.Outputs() {
			had["output "+p.Name] = p
		}
		for _, dir := range []string{"input", "output"} {
			ports := g.Inputs()
			if dir == "output" {
				ports = g.Outputs()
			}
			for _, p := range ports {
				var kinds []string
				name := p.Name
				if n, ok := rename[p.Name]; ok && dir == "output" {
					name = n
					kinds = append(kinds, "renamed")
				}
				key := dir + " " + name
				if want, ok := e.Ports[key]; ok {
					wt, err := mlirtext.ParseType("expectation", want)
					if err != nil {
						t.Fatalf("expectation's type %q: %v", want, err)
					}
					if elemString(wt) != elemString(p.Type) {
						kinds = append(kinds, "retyped")
					}
					if shapeString(wt) != shapeString(p.Type) {
						kinds = append(kinds, "reshaped")
					}
				}
				if became[key] {
					kinds = append(kinds, "became state")
				}
				if len(kinds) > 0 {
					out = append(out, "@"+g.Name()+" "+key+": "+strings.Join(kinds, ", "))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func gotPorts(d *Diff) []string {
	var out []string
	for _, p := range d.Ports {
		dir := map[bool]string{false: "input", true: "output"}[p.Output]
		out = append(out, "@"+p.Graph+" "+dir+" "+p.NameB+": "+strings.Join(p.Kinds, ", "))
	}
	sort.Strings(out)
	return out
}

// expectedStates: every plain pair of the expectation is promoted (a graph
// holding its input); nothing else changes.
func expectedStates(a *graph.Module, e expect.Expect) []string {
	var out []string
	for _, g := range graph.EntryGraphs(a, graph.EntryPublic) {
		for _, p := range e.Pairs {
			if _, n := graph.FindPort(g.Inputs(), p.In); n == 1 && p.Plain {
				out = append(out, "@"+g.Name()+" "+p.In+" promoted")
			}
		}
	}
	sort.Strings(out)
	return out
}

func gotStates(d *Diff) []string {
	var out []string
	for _, s := range d.States {
		out = append(out, "@"+s.Graph+" "+s.Name+" "+s.Kind)
	}
	sort.Strings(out)
	return out
}

// checkAgainstExpect compares diff(a, rewrite(a)) with the generator's
// expectation e: exactly the retyped ops, the port changes and the
// promoted states it implies.
func checkAgainstExpect(t *testing.T, gen func() *graph.Module, e expect.Expect) *Diff {
	t.Helper()
	a := gen()
	d := compute(t, side(t, a), side(t, rewritten(t, gen())))
	wantRetyped, wantCasts := expectedOps(a, e)
	var retyped []opAt
	removed := map[opAt]bool{}
	for _, c := range d.Ops {
		switch {
		case c.Retyped:
			retyped = append(retyped, opAt{c.Graph, c.A.Index})
		case c.Removed():
			removed[opAt{c.Graph, c.A.Index}] = true
		}
	}
	sortOps := func(s []opAt) {
		slices.SortFunc(s, func(x, y opAt) int { return strings.Compare(x.String(), y.String()) })
	}
	sortOps(retyped)
	sortOps(wantRetyped)
	if !slices.Equal(retyped, wantRetyped) {
		t.Errorf("retyped ops: %d, the expectation %d\n got %v\nwant %v", len(retyped), len(wantRetyped), retyped, wantRetyped)
	}
	for _, c := range wantCasts {
		if !removed[c] {
			t.Errorf("cast %s in a retyped island is not listed as removed", c)
		}
	}
	if got, want := gotPorts(d), expectedPorts(t, a, e); !slices.Equal(got, want) {
		t.Errorf("I/O changes:\n got %q\nwant %q", got, want)
	}
	wantStates := expectedStates(a, e)
	if got := gotStates(d); !slices.Equal(got, wantStates) {
		t.Errorf("state changes:\n got %q\nwant %q", got, wantStates)
	}
	wantPorts := expectedPorts(t, a, e)
	t.Logf("expected: %d ops retyped, %d casts removed, %d port changes, %d states promoted", len(wantRetyped), len(wantCasts), len(wantPorts), len(wantStates))
	return d
}

// TestDiffSynthArmsAgainstExpect: the diff of each synth arm against its
// default rewrite lists exactly the retyped ops, the folded or retyped
// I/O and the promoted states that graph/synth's Expected (the generator's
// intent, not anefix's analyses) says the rewrite makes.
func TestDiffSynthArmsAgainstExpect(t *testing.T) {
	for _, arm := range synth.ShippedArms {
		t.Run(arm.Name, func(t *testing.T) {
			e, err := synth.Expected(arm.Options)
			if err != nil {
				t.Fatal(err)
			}
			d := checkAgainstExpect(t, func() *graph.Module { return genArm(t, arm.Options) }, e)
			ra, _ := d.Total(false)
			rb, _ := d.Total(true)
			t.Logf("%s: %d op changes, %d port changes, %d state changes, regions %d → %d", arm.Name, len(d.Ops), len(d.Ports), len(d.States), ra, rb)
		})
	}
}

// TestDiffVariantsAgainstExpect does the same for a sample of the
// generated variants (state forms, namings, cast sites, no locations).
func TestDiffVariantsAgainstExpect(t *testing.T) {
	for _, c := range variants.Sample(12) {
		t.Run(c.Name, func(t *testing.T) {
			checkAgainstExpect(t, func() *graph.Module { return parseText(t, c.Name, c.Text) }, c.Expect)
		})
	}
}

// islandA is an fp32 island that holds the graph's output, which blocks
// the Neural Engine (the element-type rule); islandB is the graph as
// strip-fp32-casts leaves it, written by hand. Neither has locations: the
// text reader gives each op its position in the text ("a":3), which must
// not keep the exp from pairing with itself.
const islandA = `module {
  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf32> {coreai.name = "y"}) {
    %v0 = coreai.cast %x : tensor<1x4xf16> to tensor<1x4xf32>
    %v1 = coreai.exp %v0 : (tensor<1x4xf32>) -> tensor<1x4xf32>
    coreai.output %v1 : tensor<1x4xf32>
  }
}
`

const islandB = `module {
  coreai.graph @main(%x: tensor<1x4xf16> {coreai.name = "x"}) -> (tensor<1x4xf16> {coreai.name = "y"}) {

    %v1 = coreai.exp %x : (tensor<1x4xf16>) -> tensor<1x4xf16>
    coreai.output %v1 : tensor<1x4xf16>
  }
}
`

// TestDiffByHand: the island's diff, derived by hand: under h18p the
// blocked function has 0 regions and every op but the terminator (no
// device) is on the GPU; after, one region. The exp pairs with itself (one
// of its name on each side), retyped f32 → f16 and moved GPU → ANE; the
// cast is removed; the terminator is retyped; output y is retyped; no state
// changes.
func TestDiffByHand(t *testing.T) {
	a := side(t, parseText(t, "a", []byte(islandA)))
	b := side(t, parseText(t, "b", []byte(islandB)))
	a.Path, b.Path = "a.mlir", "b.mlir"
	d := compute(t, a, b)
	var got []string
	for _, c := range d.Ops {
		switch {
		case c.Removed():
			got = append(got, fmt.Sprintf("removed #%d %s on %s", c.A.Index, c.A.OpName, c.A.Device))
		case c.Added():
			got = append(got, fmt.Sprintf("added #%d %s", c.B.Index, c.B.OpName))
		default:
			got = append(got, fmt.Sprintf("#%d→#%d %s %v→%v %s→%s", c.A.Index, c.B.Index, c.A.OpName, c.A.ElementTypes, c.B.ElementTypes, c.A.Device, c.B.Device))
		}
	}
	want := []string{
		"removed #0 coreai.cast on gpu",
		"#1→#0 coreai.exp [f32]→[f16] gpu→ane",
		"#2→#1 coreai.output [f32]→[f16] none→none",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ops:\n got %q\nwant %q", got, want)
	}
	if ra, oka := d.Total(false); ra != 0 || !oka {
		t.Errorf("regions before: %d (known %v), want 0", ra, oka)
	}
	if rb, okb := d.Total(true); rb != 1 || !okb {
		t.Errorf("regions after: %d (known %v), want 1", rb, okb)
	}
	if got := gotPorts(d); !slices.Equal(got, []string{"@main output y: retyped"}) || d.Ports[0].TypeA != "tensor<1x4xf32>" || d.Ports[0].TypeB != "tensor<1x4xf16>" {
		t.Errorf("ports %q %+v", got, d.Ports)
	}
	if len(d.States) != 0 || d.Empty() {
		t.Errorf("states %v, empty %v", d.States, d.Empty())
	}
}

// TestDiffSelfAndMirror: a module against itself (two copies) gives an
// empty diff; diff(B, A) is diff(A, B) with the sides swapped (added ↔
// removed, became ↔ no longer state, promoted ↔ demoted, the regions'
// sides).
func TestDiffSelfAndMirror(t *testing.T) {
	cases := []struct {
		name string
		gen  func() *graph.Module
	}{
		{"armA", func() *graph.Module { return genArm(t, synth.Options{Arm: synth.ArmA}) }},
		{"armE", func() *graph.Module { return genArm(t, synth.Options{Arm: synth.ArmE}) }},
		{"island", func() *graph.Module { return parseText(t, "island", []byte(islandA)) }},
	}
	for _, c := range variants.Sample(4) {
		cases = append(cases, struct {
			name string
			gen  func() *graph.Module
		}{c.Name, func() *graph.Module { return parseText(t, c.Name, c.Text) }})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, a2, b := side(t, c.gen()), side(t, c.gen()), side(t, rewritten(t, c.gen()))
			if d := compute(t, a, a2); !d.Empty() {
				t.Errorf("diff(A, A) not empty: %d ops, %d ports, %d states, regions %v", len(d.Ops), len(d.Ports), len(d.States), d.Regions)
			}
			ab, ba := compute(t, a, b), compute(t, b, a)
			if ab.Empty() {
				t.Fatal("diff(A, rewrite(A)) is empty: the mirror would hold trivially")
			}
			if x, y := canon(ab, false), canon(ba, true); !slices.Equal(x, y) {
				t.Errorf("diff(B, A) does not mirror diff(A, B):\n%s", firstDiff(x, y))
			}
		})
	}
}

// canon lists d's changes as sorted lines, from A's point of view; swap
// reads d as diff(B, A).
func canon(d *Diff, swap bool) []string {
	var out []string
	op := func(p *ane.OpPlacement) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("#%d %s %s %v", p.Index, p.OpName, p.Device, p.ElementTypes)
	}
	for _, c := range d.Ops {
		x, y := c.A, c.B
		if swap {
			x, y = y, x
		}
		out = append(out, fmt.Sprintf("op @%s %s | %s | %v %v", c.Graph, op(x), op(y), c.Placement, c.Retyped))
	}
	flip := map[string]string{"added": "removed", "removed": "added", "became state": "no longer state", "no longer state": "became state",
		"promoted": "demoted", "demoted": "promoted"}
	kind := func(k string) string {
		if f, ok := flip[k]; ok && swap {
			return f
		}
		return k
	}
	for _, p := range d.Ports {
		ia, ib, na, nb, ta, tb := p.IndexA, p.IndexB, p.NameA, p.NameB, p.TypeA, p.TypeB
		if swap {
			ia, ib, na, nb, ta, tb = ib, ia, nb, na, tb, ta
		}
		var ks []string
		for _, k := range p.Kinds {
			ks = append(ks, kind(k))
		}
		sort.Strings(ks)
		out = append(out, fmt.Sprintf("port @%s %v %d %d %s %s %s %s %v", p.Graph, p.Output, ia, ib, na, nb, ta, tb, ks))
	}
	for _, s := range d.States {
		fa, fb, oa, ob := s.FormA, s.FormB, s.OutA, s.OutB
		if swap {
			fa, fb, oa, ob = fb, fa, ob, oa
		}
		out = append(out, fmt.Sprintf("state @%s %s %s %s %s %s %s", s.Graph, s.Name, fa, fb, oa, ob, kind(s.Kind)))
	}
	for _, r := range d.Regions {
		a, b := fmt.Sprint(r.InA, r.A, r.KnownA, r.SegmentsA), fmt.Sprint(r.InB, r.B, r.KnownB, r.SegmentsB)
		if swap {
			a, b = b, a
		}
		out = append(out, "regions @"+r.Graph+" "+a+" | "+b)
	}
	sort.Strings(out)
	return out
}

func firstDiff(x, y []string) string {
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return fmt.Sprintf("line %d:\n  A→B %s\n  B→A %s", i, x[i], y[i])
		}
	}
	return fmt.Sprintf("lengths %d, %d", len(x), len(y))
}

// TestAlignLargeGroups: past lcsCells, align pairs each shape's
// occurrences in order (in linear space) and stays symmetric.
func TestAlignLargeGroups(t *testing.T) {
	a := make([]string, 1500)
	b := make([]string, 1400)
	for i := range a {
		a[i] = fmt.Sprint(i % 3)
	}
	for j := range b {
		b[j] = fmt.Sprint((j + 1) % 3)
	}
	if len(a)*len(b) <= lcsCells {
		t.Fatal("the lists must exceed lcsCells")
	}
	ab, ba := align(a, b), align(b, a)
	if len(ab) != 1400 || len(ba) != 1400 {
		t.Fatalf("%d, %d pairs, want 1400 (every shape of b has a partner)", len(ab), len(ba))
	}
	mirror := map[[2]int]bool{}
	for _, p := range ba {
		mirror[[2]int{p[1], p[0]}] = true
	}
	for _, p := range ab {
		if a[p[0]] != b[p[1]] || !mirror[p] {
			t.Fatalf("pair %v: shapes %s, %s; mirrored %v", p, a[p[0]], b[p[1]], mirror[p])
		}
	}
}

// TestDiffOneArchitecture: reports made for two architectures are not
// compared; under h16g the island's regions are h16g's (one region after,
// both ops of the island off the Neural Engine before: 0).
func TestDiffOneArchitecture(t *testing.T) {
	at := func(text, arch string) Side {
		m := parseText(t, "m", []byte(text))
		r, err := ane.CheckWith(m, ane.Options{Placement: true, Architecture: arch})
		if err != nil {
			t.Fatal(err)
		}
		return Side{Module: m, Report: r}
	}
	if _, err := Compute(at(islandA, "h18p"), at(islandB, "h16g")); err == nil || !strings.Contains(err.Error(), "different architectures") {
		t.Errorf("h18p against h16g: %v, want a refusal", err)
	}
	d := compute(t, at(islandA, "h16g"), at(islandB, "h16g"))
	ra, _ := d.Total(false)
	rb, _ := d.Total(true)
	if d.Architecture != "h16g" || ra != 0 || rb != 1 {
		t.Errorf("h16g: architecture %q, regions %d → %d; want h16g, 0 → 1", d.Architecture, ra, rb)
	}
}
