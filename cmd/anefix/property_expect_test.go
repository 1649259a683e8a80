package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/graph/synth/expect"
	"github.com/anefix/anefix/graph/synth/variants"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// The generators' intent (graph/synth/expect), compared with what a model
// holds: these read the model's ops, locations, port names, types and
// attributes, never an analysis of anefix's (islands, state pairing, check).

// f32Census counts, in the model at path, the f32 values (op results and
// block arguments, ElementTypeCounts) and, per frame, the ops located in it
// that touch an f32 value (an operand or a result).
func f32Census(path string, frames []expect.Frame) (all int64, in []int, err error) {
	ld, err := modelio.Load(path, modelio.LoadOptions{})
	if err != nil {
		return 0, nil, err
	}
	defer ld.Close()
	m := ld.Module
	all = graph.ElementTypeCounts(m.Op)["f32"]
	in = make([]int, len(frames))
	if len(frames) == 0 {
		return all, in, nil
	}
	isF32 := func(v *graph.Value) bool { return v.Type() != nil && graph.ElementType(v.Type()).String() == "f32" }
	m.Walk(func(op *graph.Operation) bool {
		touches := false
		for _, v := range op.Operands() {
			touches = touches || isF32(v)
		}
		for _, v := range op.Results() {
			touches = touches || isF32(v)
		}
		if !touches {
			return true
		}
		fls := graph.FileLocs(op.Loc)
		for i, f := range frames {
			for _, fl := range fls {
				if f.Has(fl.File, fl.Line) {
					in[i]++
					break
				}
			}
		}
		return true
	})
	return all, in, nil
}

func frameString(f expect.Frame) string {
	file := f.File[strings.LastIndexByte(f.File, '/')+1:]
	if f.To == 0 {
		return file
	}
	return fmt.Sprintf("%s:%d-%d", file, f.From, f.To)
}

// islands checks P2's half against the generator: the fp32 the default
// rewrite must retype is gone from OUT, the fp32 it must keep is there.
// Each frame must hold f32 in IN, or the expectation could not fail.
func (c *checker) islands(prop, in, out string, e expect.Expect) {
	if !e.NoF32 && len(e.Retype) == 0 && len(e.Keep) == 0 {
		return
	}
	c.expected = append(c.expected, prop)
	frames := append(append([]expect.Frame(nil), e.Retype...), e.Keep...)
	_, before, err := f32Census(in, frames)
	if err != nil {
		c.fail(prop, "IN does not load: "+classOf(err.Error()), err.Error(), cliResult{})
		return
	}
	all, after, err := f32Census(out, frames)
	if err != nil {
		c.fail(prop, "OUT does not load: "+classOf(err.Error()), err.Error(), cliResult{})
		return
	}
	show := cliResult{args: []string{"rewrite", in, "--dry-run"}}
	for i, f := range frames {
		if before[i] == 0 {
			c.fail(prop, "expectation without fp32 in IN: "+frameString(f), "the generator places fp32 ops there, IN has none: the expectation cannot fail", show)
		}
	}
	for i, f := range e.Retype {
		if after[i] > 0 {
			c.fail(prop, "blocking fp32 island left in OUT at "+frameString(f),
				fmt.Sprintf("%d of %d ops there still touch f32 after the default rewrite", after[i], before[i]), show)
		}
	}
	for i, f := range e.Keep {
		if j := len(e.Retype) + i; after[j] == 0 && before[j] > 0 {
			c.fail(prop, "fp32 island that does not block retyped at "+frameString(f),
				fmt.Sprintf("%d ops there touched f32 in IN, none in OUT (strip-fp32-casts retypes only blocking islands by default)", before[j]), show)
		}
	}
	if e.NoF32 && all > 0 {
		c.fail(prop, "blocking fp32 left in OUT (every fp32 value of IN blocks)", fmt.Sprintf("%d f32 values", all), show)
	}
}

// inspectJSON reads path's inspect --json report.
func (c *checker) inspectJSON(prop, path string) *pb.InspectReport {
	r := runGuarded("inspect", path, "--json")
	if c.crashed(prop, r) {
		return nil
	}
	var rep pb.InspectReport
	if r.code != exitOK || protojson.Unmarshal([]byte(r.stdout), &rep) != nil {
		c.fail(prop, fmt.Sprintf("inspect exit %d: %s", r.code, classOf(r.stderr)), oneLine(r.stderr), r)
		return nil
	}
	return &rep
}

// ports checks P7: every entry graph's state pairs and port types in OUT
// against the generator's, IN giving the ports the rewrite must leave.
func (c *checker) ports(prop, in, out string, e expect.Expect) {
	if len(e.Pairs) == 0 && e.Ports == nil {
		return
	}
	c.expected = append(c.expected, prop)
	repIn, repOut := c.inspectJSON(prop, in), c.inspectJSON(prop, out)
	if repIn == nil || repOut == nil {
		return
	}
	before := map[string]*pb.GraphInspection{}
	for _, g := range repIn.GetGraphs() {
		before[g.GetName()] = g
	}
	show := cliResult{args: []string{"inspect", out}}
	entries := 0
	for _, g := range repOut.GetGraphs() {
		if g.GetVisibility() != "public" {
			continue
		}
		entries++
		gi := before[g.GetName()]
		if gi == nil {
			c.fail(prop, "entry graph not in IN", "@"+g.GetName(), show)
			continue
		}
		var bad []string
		ins := map[string]*pb.Port{}
		for _, p := range g.GetInputs() {
			ins[p.GetName()] = p
		}
		// The output the generator wrote as a pair's Out, at its position,
		// carries the state's name.
		// A pair applies to the graphs whose input in IN has its name (arm
		// E's embedding functions take no cache).
		had := map[string]bool{}
		for _, p := range gi.GetInputs() {
			had[p.GetName()] = true
		}
		rename := map[string]string{}
		for _, p := range e.Pairs {
			if !had[p.In] {
				continue
			}
			rename[p.Out] = p.State()
			mark := fmt.Sprintf("MutableBuffers.buffer_mutation = %q", p.State())
			if ip := ins[p.In]; ip == nil || !slices.Contains(ip.GetAttributes(), mark) {
				bad = append(bad, "input "+p.In+" is not state "+p.State())
			}
		}
		if len(g.GetOutputs()) != len(gi.GetOutputs()) || len(g.GetInputs()) != len(gi.GetInputs()) {
			bad = append(bad, fmt.Sprintf("%d inputs, %d outputs; IN has %d, %d", len(g.GetInputs()), len(g.GetOutputs()), len(gi.GetInputs()), len(gi.GetOutputs())))
		} else {
			for i, p := range gi.GetInputs() {
				bad = append(bad, portDiff("input", p.GetName(), p.GetType(), g.GetInputs()[i], e.Ports)...)
			}
			for i, p := range gi.GetOutputs() {
				name := p.GetName()
				if n, ok := rename[name]; ok {
					name = n
				}
				bad = append(bad, portDiff("output", name, p.GetType(), g.GetOutputs()[i], e.Ports)...)
			}
		}
		if len(bad) > 0 {
			c.fail(prop, "ports not as the generator intends: "+classOf(bad[0]), "@"+g.GetName()+": "+strings.Join(bad, "; "), show)
		}
	}
	if entries == 0 {
		c.fail(prop, "OUT has no entry graph", "", show)
	}
}

// portDiff compares one port of OUT with the name and type the generator
// intends for it (ports: the types the rewrite changes; else IN's type).
func portDiff(kind, name, inType string, got *pb.Port, ports map[string]string) []string {
	var bad []string
	if got.GetName() != name {
		bad = append(bad, fmt.Sprintf("%s #%d is %s, want %s", kind, got.GetIndex(), got.GetName(), name))
	}
	if ports == nil {
		return bad
	}
	want := inType
	if t, ok := ports[kind+" "+name]; ok {
		want = t
	}
	if got.GetType() != want {
		bad = append(bad, fmt.Sprintf("%s %s is %s, want %s", kind, name, got.GetType(), want))
	}
	return bad
}

// published checks P8: check's region prediction for IN against what the
// published compile measured.
func (c *checker) published(prop, in string, p *expect.Published) {
	c.expected = append(c.expected, prop)
	r := runGuarded("check", in, "--architecture", p.Architecture, "--json")
	if c.crashed(prop, r) {
		return
	}
	var rep pb.CheckReport
	if (r.code != exitOK && r.code != exitGate) || protojson.Unmarshal([]byte(r.stdout), &rep) != nil {
		c.fail(prop, fmt.Sprintf("check IN exit %d: %s", r.code, classOf(r.stderr)), oneLine(r.stderr), r)
		return
	}
	got := "none"
	if rep.PredictedRegions != nil {
		if int(rep.GetPredictedRegions()) == p.Regions {
			return
		}
		got = fmt.Sprint(rep.GetPredictedRegions())
	}
	if p.Disagree != "" {
		c.accepted = append(c.accepted, failure{Prop: prop, Source: c.source, Case: c.name, Class: "recorded disagreement: " + p.Disagree})
		return
	}
	c.fail(prop, "check's regions differ from the published compile's", fmt.Sprintf("%s (%s): predicts %s, measured %d per function", p.ID, p.Architecture, got, p.Regions), r)
}

// TestExpectationsCanFail feeds the expectation checks an "output" that
// is the input itself (no rewrite at all): on arm A the recurrence is
// still f32 and conv/rec are still plain, on a variant with f32 state
// ports those ports are still f32; each check must say so. It keeps P2's
// and P7's generator halves from passing vacuously (say, after a change of
// the generator's frames or port names).
func TestExpectationsCanFail(t *testing.T) {
	arm := filepath.Join("..", "..", "testdata", "synth", "armA.aimodel")
	e, err := synth.Expected(synth.Options{Arm: synth.ArmA})
	if err != nil {
		t.Fatal(err)
	}
	var v variants.Case
	for _, c := range variants.All() {
		if c.Axes.State == "plain-return" && c.Axes.Casts == "f32-state" {
			v = c
			break
		}
	}
	vin, err := v.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, in string
		e        expect.Expect
		check    func(*checker, string, expect.Expect)
		want     []string // classes that must be among the failures
	}{
		{"armA islands", arm, e, func(c *checker, in string, e expect.Expect) { c.islands("P2", in, in, e) },
			[]string{"blocking fp32 island left in OUT at qwen3_5.py"}},
		{"armA ports", arm, e, func(c *checker, in string, e expect.Expect) { c.ports("P7", in, in, e) },
			[]string{"ports not as the generator intends: input conv_state is not state conv_state"}},
		{"variant islands", vin, v.Expect, func(c *checker, in string, e expect.Expect) { c.islands("P2", in, in, e) },
			[]string{"blocking fp32 left in OUT (every fp32 value of IN blocks)"}},
		{"variant ports", vin, v.Expect, func(c *checker, in string, e expect.Expect) { c.ports("P7", in, in, e) },
			[]string{"ports not as the generator intends"}},
	} {
		ck := &checker{t: t, source: "test", name: c.name}
		c.check(ck, c.in, c.e)
		for _, w := range c.want {
			found := false
			for _, f := range ck.failures {
				found = found || strings.HasPrefix(f.Class, w)
			}
			if !found {
				t.Errorf("%s: no failure of class %q; got %+v", c.name, w, ck.failures)
			}
		}
	}
}
