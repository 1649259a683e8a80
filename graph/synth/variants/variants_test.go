package variants

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/oracle"
)

// All is deterministic, large enough, and every name is unique and a file
// name.
func TestAll(t *testing.T) {
	allCases := All()
	if len(allCases) < 200 {
		t.Fatalf("%d cases, want at least 200", len(allCases))
	}
	again := buildAll()
	seen := map[string]bool{}
	for i, c := range allCases {
		if c.Name != again[i].Name || !bytes.Equal(c.Text, again[i].Text) {
			t.Fatalf("case %d (%s) differs between two calls", i, c.Name)
		}
		if seen[c.Name] {
			t.Errorf("name %s repeated", c.Name)
		}
		seen[c.Name] = true
		if strings.ContainsAny(c.Name, "/ \t\n") {
			t.Errorf("name %q is not a file name", c.Name)
		}
	}
}

func values2(ax string) []string {
	return map[string][]string{
		"state": states, "naming": namings, "recurrence": recurrences, "casts": castSites,
		"encoding": encodings, "graphs": graphs, "locations": locations, "conv-shift": convShifts,
	}[ax]
}

// Every value of every axis meets every value of every other axis in some
// case (all pairs), so no combination of two axes is left untested.
func TestAxesCovered(t *testing.T) {
	allCases := All()
	pairs := map[string]bool{}
	for _, c := range allCases {
		m := c.Axes.Map()
		for _, a := range axisNames {
			for _, b := range axisNames {
				pairs[a+"="+m[a]+" "+b+"="+m[b]] = true
			}
		}
	}
	missing := 0
	for i, a := range axisNames {
		for _, b := range axisNames[i+1:] {
			for _, va := range values2(a) {
				for _, vb := range values2(b) {
					if !pairs[a+"="+va+" "+b+"="+vb] {
						missing++
						t.Errorf("no case has %s=%s with %s=%s", a, va, b, vb)
					}
				}
			}
		}
	}
	if missing > 0 {
		t.Logf("%d pairs missing", missing)
	}
}

// Sample covers every axis value, is deterministic and keeps All's order.
func TestSample(t *testing.T) {
	allCases := All()
	for _, n := range []int{10, 12, 16} {
		s := Sample(n)
		if len(s) != n {
			t.Fatalf("Sample(%d) has %d cases", n, len(s))
		}
		again := Sample(n)
		seen := map[string]bool{}
		pos := map[string]int{}
		for i, c := range allCases {
			pos[c.Name] = i
		}
		for i, c := range s {
			if c.Name != again[i].Name {
				t.Fatalf("Sample(%d) differs between two calls", n)
			}
			if i > 0 && pos[c.Name] <= pos[s[i-1].Name] {
				t.Errorf("Sample(%d) is not in All's order", n)
			}
			for ax, v := range c.Axes.Map() {
				seen[ax+"="+v] = true
			}
		}
		for _, ax := range axisNames {
			for _, v := range values2(ax) {
				if !seen[ax+"="+v] {
					t.Errorf("Sample(%d) has no case with %s=%s", n, ax, v)
				}
			}
		}
	}
	if got := len(Sample(len(allCases) + 5)); got != len(allCases) {
		t.Errorf("Sample past the end gives %d cases", got)
	}
}

func parse(t *testing.T, c Case) *graph.Module { return parseAs(t, c, c.Name+".mlir") }

// parseAs parses c's text as the file name (ops without a location get
// one in that file).
func parseAs(t *testing.T, c Case, name string) *graph.Module {
	t.Helper()
	m, form, err := mlirtext.Parse(name, string(c.Text))
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	if form != mlirtext.FormPretty {
		t.Fatalf("%s: read as %v, want the printed form", c.Name, form)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatalf("%s: verifier: %v", c.Name, err)
	}
	return m
}

// producer is the op that defines the value v (nil for an argument).
func producer(v *graph.Value) *graph.Operation { return v.DefiningOp() }

// Every case parses as the printed form, passes anefix's verifier and has
// the structure its axes claim: a generator whose axes stopped meaning
// anything would fail here.
func TestStructure(t *testing.T) {
	allCases := All()
	for _, c := range allCases {
		a := c.Axes
		m := parse(t, c)
		var entries, privates []*graph.Graph
		for _, g := range m.Graphs() {
			if g.Visibility() == "private" {
				privates = append(privates, g)
			} else {
				entries = append(entries, g)
			}
		}
		wantEntries := []string{a.Graphs}
		if a.Graphs == "multi" {
			wantEntries = []string{"extend_8_1", "extend_16_1"}
		}
		if len(entries) != len(wantEntries) {
			t.Fatalf("%s: %d entry graphs, want %v", c.Name, len(entries), wantEntries)
		}
		for i, g := range entries {
			if g.Name() != wantEntries[i] {
				t.Errorf("%s: entry graph %d is @%s, want @%s", c.Name, i, g.Name(), wantEntries[i])
			}
		}
		// Recurrence: one private composite per linear layer and entry.
		wantPriv := 0
		if a.Recurrence == "composite" {
			wantPriv = linLayers * len(entries)
		}
		if len(privates) != wantPriv {
			t.Errorf("%s: %d private graphs, want %d", c.Name, len(privates), wantPriv)
		}
		for _, p := range privates {
			if p.CompositeDecl() == nil || !strings.HasPrefix(p.Name(), compositeDef+"_") {
				t.Errorf("%s: private @%s is not a %s composite", c.Name, p.Name(), compositeDef)
			}
			ins := p.Inputs()
			wantQ, wantS := "f16", "f16"
			switch a.Casts {
			case "site":
				wantQ, wantS = "f32", "f32"
			case "state-ports", "f32-state":
				wantS = "f32"
			}
			if e := elem(ins[0].Type); e != wantQ {
				t.Errorf("%s: @%s takes query in %s, want %s (casts %s)", c.Name, p.Name(), e, wantQ, a.Casts)
			}
			if e := elem(ins[5].Type); e != wantS {
				t.Errorf("%s: @%s takes the state in %s, want %s (casts %s)", c.Name, p.Name(), e, wantS, a.Casts)
			}
		}
		for _, g := range entries {
			checkPorts(t, c, g)
		}
		// Locations.
		text := string(c.Text)
		hasName, hasDI := nameLoc.MatchString(text), strings.Contains(text, "loc(#debuginfo.location")
		if hasName != (a.Locations == "name") || hasDI != (a.Locations == "debuginfo") {
			t.Errorf("%s: name locations %v, debuginfo locations %v", c.Name, hasName, hasDI)
		}
	}
}

var nameLoc = regexp.MustCompile(`loc\("[^"]*"\("`)

func elem(t graph.Type) string {
	if tt, ok := graph.AsTensor(t); ok {
		return tt.Elem.String()
	}
	if o, ok := t.(*graph.OpaqueType); ok {
		if inner := graph.HandleInner(o); inner != nil {
			return inner.Elem.String()
		}
	}
	return t.String()
}

// checkPorts checks an entry graph's state ports against the state form,
// naming convention, cast placement and conv shift.
func checkPorts(t *testing.T, c Case, g *graph.Graph) {
	t.Helper()
	a := c.Axes
	ins, outs := g.Inputs(), g.Outputs()
	inByName := map[string]graph.Port{}
	for _, p := range ins {
		inByName[p.Name] = p
	}
	outByName := map[string]int{}
	for i, p := range outs {
		outByName[p.Name] = i
	}
	term := g.Terminator()
	for _, k := range []string{"conv", "rec"} {
		layers := []int{0, 1}
		if a.State == "plain-update" {
			layers = []int{-1}
		}
		for _, l := range layers {
			in, out := portName(a.Naming, k, l)
			p, ok := inByName[in]
			if !ok {
				t.Fatalf("%s @%s: no input %q", c.Name, g.Name(), in)
			}
			wantElem := "f16"
			if k == "rec" && a.Casts == "f32-state" {
				wantElem = "f32"
			}
			if e := elem(p.Type); e != wantElem {
				t.Errorf("%s: input %s is %s, want %s", c.Name, in, e, wantElem)
			}
			switch a.State {
			case "attr", "handle":
				if !p.IsState || p.StateOutput != in {
					t.Errorf("%s: input %s is not a buffer of its own name", c.Name, in)
				}
				if graph.IsHandle(p.Type) != (a.State == "handle") {
					t.Errorf("%s: input %s handle=%v", c.Name, in, graph.IsHandle(p.Type))
				}
				out = in
			default:
				if p.IsState {
					t.Errorf("%s: plain input %s is a state", c.Name, in)
				}
			}
			oi, ok := outByName[out]
			if !ok {
				t.Fatalf("%s @%s: no output %q", c.Name, g.Name(), out)
			}
			if a.State == "handle" {
				if !graph.IsToken(outs[oi].Type) {
					t.Errorf("%s: output %s is not a token", c.Name, out)
				}
				continue
			}
			def := producer(term.Operand(oi))
			name := ""
			if def != nil {
				name = def.Name
			}
			// What makes the returned value, by the case's axes.
			var want string
			switch {
			case k == "rec" && a.Casts == "state-ports":
				want = "coreai.cast" // cast back to fp16 at the port
			case a.State == "plain-update":
				want = "coreai.slice_update"
			case k == "conv" && a.ConvShift == "window":
				want = "coreai.slice"
			case k == "conv":
				want = "coreai.concat"
			case a.Recurrence == "composite" && a.Casts != "site":
				want = "coreai.invoke"
			case a.Casts == "f32-state":
				want = "coreai.decomposable.broadcasting_add" // the state update itself
			default:
				want = "coreai.cast" // back to fp16 after the recurrence
			}
			if name != want {
				t.Errorf("%s: output %s is made by %s, want %s", c.Name, out, name, want)
			}
		}
	}
}

// Every form Write produces reads back (graph/modelio, as anefix reads
// inputs) to the module the printed text holds.
func TestWriteForms(t *testing.T) {
	allCases := All()
	dir := t.TempDir()
	done := map[string]bool{}
	for _, c := range allCases {
		key := c.Form + "/" + c.Axes.Locations
		if done[key] {
			continue
		}
		done[key] = true
		path, err := c.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Ext(path) != c.Ext() {
			t.Errorf("%s: wrote %s", c.Name, path)
		}
		ld, err := modelio.Load(path, modelio.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		got, err := mlirtext.Format(ld.Module, mlirtext.FormGeneric)
		ld.Close()
		if err != nil {
			t.Fatal(err)
		}
		src := c.Name + ".mlir" // the name Write parses the text under
		if c.Form == "printed" {
			src = path
		}
		want, err := mlirtext.Format(parseAs(t, c, src), mlirtext.FormGeneric)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the %s file reads back to another module", c.Name, c.Form)
		}
		if c.Form == "aimodel" {
			md, err := os.ReadFile(filepath.Join(path, "metadata.json"))
			if err != nil || string(md) != appleMetadata {
				t.Errorf("%s: metadata.json %q, %v", c.Name, md, err)
			}
		}
	}
	if len(done) != len(encodings)*len(locations) {
		t.Errorf("checked %d form/location pairs, want %d", len(done), len(encodings)*len(locations))
	}
}

// mlir-opt 22 (an independent reader) accepts the generic form of the
// cases without dialect locations, which it refuses (README "Known limits").
func TestMlirOptAccepts(t *testing.T) {
	bin := oracle.MlirOpts[1].Require(t)
	dir := t.TempDir()
	n := 0
	for _, c := range Sample(24) {
		if c.Axes.Locations == "debuginfo" {
			continue
		}
		text, err := mlirtext.Format(parse(t, c), mlirtext.FormGeneric)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, c.Name+".mlir")
		if err := os.WriteFile(f, text, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := oracle.RunMlirOpt(bin, "", f, "-o", os.DevNull); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		n++
	}
	if n < 8 {
		t.Fatalf("only %d cases checked", n)
	}
}

// One decode step of every tensor-state case runs in anefix's interpreter
// and gives finite logits that differ between tokens, so verify compares
// something (weights and wiring are not degenerate).
func TestOneStepRuns(t *testing.T) {
	for _, c := range Sample(24) {
		if c.Axes.State == "handle" {
			continue // the interpreter takes handle states through verify's driver
		}
		m := parse(t, c)
		g := m.Graphs()[0]
		in := interp.New(m, interp.Options{})
		var first []float32
		for _, tok := range []int64{3, 17} {
			var args []*interp.Tensor
			for _, p := range g.Inputs() {
				tt, _ := graph.AsTensor(p.Type)
				e, err := interp.ElemOf(tt.Elem)
				if err != nil {
					t.Fatal(err)
				}
				shape := make([]int, len(tt.Shape))
				for i, d := range tt.Shape {
					shape[i] = int(d)
				}
				x := interp.Zeros(e, shape)
				if p.Name == "input_ids" {
					x = interp.NewInt(e, shape, []int64{tok})
				}
				args = append(args, x)
			}
			outs, err := in.Run(g.Name(), args)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			var logits []float32
			for i, p := range g.Outputs() {
				if p.Name == "logits" {
					logits = outs[i].Floats()
				}
			}
			if len(logits) != vocab {
				t.Fatalf("%s: %d logits", c.Name, len(logits))
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range logits {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%s: logit %v", c.Name, v)
				}
				lo, hi = min(lo, float64(v)), max(hi, float64(v))
			}
			if hi-lo < 1e-3 {
				t.Errorf("%s: logits are flat (%g..%g)", c.Name, lo, hi)
			}
			if first == nil {
				first = logits
			} else if equalFloats(first, logits) {
				t.Errorf("%s: two tokens give the same logits", c.Name)
			}
		}
		in.Close()
	}
}

func equalFloats(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func BenchmarkAll(b *testing.B) {
	for b.Loop() {
		buildAll()
	}
}
