package passes_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/inspect"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/ane"
)

// workCase is one step whose cost the tests below bound: a pass alone, a
// pipeline, or an analysis rewrite runs before it writes.
type workCase struct {
	name string
	arm  synth.Arm
	// run does the step on m.
	run func(m *graph.Module) error
	// scansValues: the step's job is to look at every float constant's
	// values (finite-masks finds -inf masks wherever they are), so it may
	// read each blob once; every other step may read only the blobs it
	// converts.
	scansValues bool
	// f32Blobs moves the arm's inline f32 constants into dense_resource
	// blobs (f32Resources), so that strip-fp32-casts converts blobs.
	f32Blobs bool
}

func pipelineCase(name string, arm synth.Arm, spec passes.Spec) workCase {
	return workCase{name: name, arm: arm, run: func(m *graph.Module) error {
		p, err := passes.Build(spec)
		if err != nil {
			return err
		}
		_, err = p.Run(m, passes.RunOptions{VerifyEach: true, VerifyAfter: true})
		return err
	}}
}

// workCases are every pass alone on an arm where it has work to do (arm B
// holds the states states-as-outputs makes plain), the default pipeline with
// and without externalize-constant, and what rewrite runs on the result
// before writing it: check's verdict without the hazard rules (cmd/anefix's
// rwVerdict) and the whole-module check graph.VerifyWritable.
func workCases() []workCase {
	var cs []workCase
	for _, name := range passes.Names() {
		arm := synth.ArmA
		if name == "states-as-outputs" {
			arm = synth.ArmB
		}
		c := pipelineCase(name, arm, passes.Spec{Passes: []string{name}})
		c.scansValues = name == "finite-masks"
		cs = append(cs, c)
	}
	stripBlobs := pipelineCase("strip-fp32-casts, f32 blobs", synth.ArmA, passes.Spec{Passes: []string{"strip-fp32-casts"}})
	stripBlobs.f32Blobs = true
	pipelineBlobs := pipelineCase("default pipeline, f32 blobs", synth.ArmA, passes.Spec{})
	pipelineBlobs.f32Blobs = true
	cs = append(cs, stripBlobs, pipelineBlobs,
		pipelineCase("default pipeline", synth.ArmA, passes.Spec{}),
		pipelineCase("default pipeline + externalize-constant", synth.ArmA, passes.Spec{Enable: []string{"externalize-constant"}}),
		workCase{name: "check NoHazards", arm: synth.ArmA, run: func(m *graph.Module) error {
			_, err := ane.CheckWith(m, ane.Options{NoHazards: true})
			return err
		}},
		workCase{name: "check placement (check --ops)", arm: synth.ArmA, run: func(m *graph.Module) error {
			rep, err := ane.CheckWith(m, ane.Options{NoHazards: true, Placement: true})
			if err == nil && len(rep.Ops) == 0 {
				err = fmt.Errorf("no placement")
			}
			return err
		}},
		workCase{name: "VerifyWritable", arm: synth.ArmA, run: graph.VerifyWritable},
	)
	return cs
}

func genLayers(t testing.TB, arm synth.Arm, layers int) *graph.Module {
	t.Helper()
	m, err := synth.Generate(synth.Options{Arm: arm, Layers: layers})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (c workCase) module(t testing.TB, layers int) *graph.Module {
	m := genLayers(t, c.arm, layers)
	if c.f32Blobs {
		if n := f32Resources(m); n == 0 {
			t.Fatal("no f32 constant to move into a blob")
		}
	}
	return m
}

// f32Resources moves every inline f32 constant (splats written out) into a
// dense_resource blob of its own, as an exporter may store them (synth
// keeps its f32 constants inline, its f16 weights in blobs). It returns how
// many it moved.
func f32Resources(m *graph.Module) int {
	n := 0
	m.Walk(func(op *graph.Operation) bool {
		d, ok := op.Inherent("value").(*graph.DenseElementsAttr)
		if op.Name != "coreai.constant" || !ok || !graph.IsFloat(d.Type.Elem, "f32") || !d.Type.IsStatic() {
			return true
		}
		raw := make([]byte, 0, 4*d.NumElements())
		for i := range d.NumElements() {
			raw = append(raw, d.Element(i)...)
		}
		key := fmt.Sprintf("f32_const_%d", n)
		m.AddResource(key, 4, graph.MemBlob(raw))
		op.SetInherent("value", &graph.DenseResourceAttr{Key: key, Type: d.Type})
		n++
		return true
	})
	return n
}

// TestPassReadsOnlyConvertedBlobs counts, with an instrumented resource
// reader (graph.CountReads), the bytes each pass reads from weight blobs
// and fails when a pass reads a blob it does not convert. A blob the pass
// converts (or removes) is one the module refers to before and not after
// it; the pass may read it once (strip-fp32-casts scans an f32 blob for
// overflow; its conversion happens while the output is written). Weights
// read for an analysis that converts nothing (check's fp16 hazard rules,
// asked for an element-type verdict) were the cause of issue 22's rewrite
// regression: strip-fp32-casts read all 1.5 GB of full-scale arm A.
func TestPassReadsOnlyConvertedBlobs(t *testing.T) {
	for _, c := range workCases() {
		t.Run(c.name, func(t *testing.T) {
			m := c.module(t, 24)
			before, ok := m.ResourceRefs()
			if !ok {
				t.Fatal("synth module has references the test cannot see")
			}
			reads := graph.CountReads(m)
			if len(reads.Keys()) == 0 {
				t.Fatal("no blobs: the case proves nothing")
			}
			if err := c.run(m); err != nil {
				t.Fatal(err)
			}
			after, _ := m.ResourceRefs()
			converted := 0
			for _, k := range reads.Keys() {
				n, size := reads.Read(k), reads.Size(k)
				gone := before[k] > 0 && after[k] == 0
				if gone {
					converted++
				}
				switch {
				case n > size:
					t.Errorf("read %d bytes of blob %q (%d bytes): more than once", n, k, size)
				case n > 0 && !gone && !c.scansValues:
					t.Errorf("read %d bytes of blob %q (%d bytes), which it does not convert (the module still refers to it)", n, k, size)
				}
			}
			t.Logf("%d blobs, %d converted or removed, %d bytes read", len(reads.Keys()), converted, reads.Total())
		})
	}
}

// TestPassWorkLinear bounds each step's work per op, counted by the graph
// package (graph.CountWork: ops visited, uses scanned, island look-ups,
// resource-table entries scanned; not a timer), on arm graphs of 24 and 96
// layers: the work per op may not grow with the graph, which a step that
// scans the module (or its islands, or its resources) once per op, island
// or constant does by a factor near 4 here.
func TestPassWorkLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 96-layer graphs (about 26k ops)")
	}
	const small, large = 24, 96
	for _, c := range workCases() {
		t.Run(c.name, func(t *testing.T) {
			var perOp [2]float64
			var works [2]graph.Work
			for i, layers := range []int{small, large} {
				m := c.module(t, layers)
				n := m.NumOps()
				var err error
				works[i] = graph.CountWork(func() { err = c.run(m) })
				if err != nil {
					t.Fatal(err)
				}
				perOp[i] = float64(works[i].Total()) / float64(n)
			}
			growth := perOp[1] / perOp[0]
			msg := fmt.Sprintf("work per op %.1f at %d layers, %.1f at %d (×%.2f); %d layers: %+v; %d layers: %+v",
				perOp[0], small, perOp[1], large, growth, small, works[0], large, works[1])
			if works[0].Total() == 0 {
				t.Fatalf("nothing counted: the case proves nothing (%s)", msg)
			}
			// Linear steps measure ×1.00–1.08 here (union-find paths
			// and values read by every layer grow a little); a scan of
			// the module, its islands or its resources per op, island or
			// constant gives ×2–3.
			if growth > 1.15 {
				t.Errorf("work grows faster than the graph: %s", msg)
			} else {
				t.Log(msg)
			}
		})
	}
}

// workDoubles counts (graph.CountWork) the work of run on build(n) and
// build(2n), n being a count of graphs or state pairs, and fails when the
// work more than doubles (×2.2: the modules grow by a few fixed ops too); a
// step quadratic in n gives ×4.
func workDoubles(t *testing.T, n int, build func(t *testing.T, n int) *graph.Module, run func(m *graph.Module) error) {
	t.Helper()
	var works [2]graph.Work
	for i, k := range []int{n, 2 * n} {
		m := build(t, k)
		var err error
		works[i] = graph.CountWork(func() { err = run(m) })
		if err != nil {
			t.Fatal(err)
		}
	}
	ratio := float64(works[1].Total()) / float64(works[0].Total())
	msg := fmt.Sprintf("work %d at n=%d, %d at n=%d (×%.2f); %+v; %+v", works[0].Total(), n, works[1].Total(), 2*n, ratio, works[0], works[1])
	switch {
	case works[0].Total() == 0:
		t.Fatalf("nothing counted: the case proves nothing (%s)", msg)
	case ratio > 2.2:
		t.Errorf("work grows faster than n: %s", msg)
	default:
		t.Log(msg)
	}
}

// parseText parses MLIR text built by a test.
func parseText(t *testing.T, text string) *graph.Module {
	t.Helper()
	m, _, err := mlirtext.Parse("work.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// graphsModule is main plus n private graphs in one of three shapes: empty
// (issue 28's 10,000-graph input), each calling one shared @leaf, or a
// chain where each calls the one before it (the state analysis of each
// follows the whole chain below it unless callees are summarized; dce can
// remove the chain only from its end).
func graphsModule(shape string) func(t *testing.T, n int) *graph.Module {
	return func(t *testing.T, n int) *graph.Module {
		var b strings.Builder
		b.WriteString("module {\n  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = \"x\"}) -> (tensor<4xf16> {coreai.name = \"y\"}) {\n    coreai.output %arg0 : tensor<4xf16>\n  }\n")
		b.WriteString("  coreai.graph private @leaf(%arg0: tensor<4xf16>) -> tensor<4xf16> {\n    coreai.output %arg0 : tensor<4xf16>\n  }\n")
		for i := range n {
			callee := "leaf"
			switch shape {
			case "empty":
				fmt.Fprintf(&b, "  coreai.graph private @g%d() {\n    coreai.output\n  }\n", i)
				continue
			case "chain":
				if i > 0 {
					callee = fmt.Sprintf("g%d", i-1)
				}
			}
			fmt.Fprintf(&b, "  coreai.graph private @g%d(%%arg0: tensor<4xf16> {coreai.name = \"conv_state\"}) -> (tensor<4xf16> {coreai.name = \"conv_state_out\"}) {\n", i)
			fmt.Fprintf(&b, "    %%0 = coreai.invoke @%s(%%arg0) : (tensor<4xf16>) -> tensor<4xf16>\n    coreai.output %%0 : tensor<4xf16>\n  }\n", callee)
		}
		b.WriteString("}\n")
		return parseText(t, b.String())
	}
}

// TestWorkLinearInGraphs doubles the number of graphs under inspect's
// report, check, the default pipeline and VerifyWritable: the work must
// double. Issue 28 measured 81 s for 10,000 empty private graphs (the state
// analysis listed every graph per graph; dce walked the module per private
// graph, and once more per link of a chain of dead graphs).
func TestWorkLinearInGraphs(t *testing.T) {
	steps := []struct {
		name string
		run  func(m *graph.Module) error
	}{
		{"inspect", func(m *graph.Module) error { inspect.Report(m); return nil }},
		{"check", func(m *graph.Module) error { _, err := ane.CheckWith(m, ane.Options{}); return err }},
		{"check placement", func(m *graph.Module) error {
			_, err := ane.CheckWith(m, ane.Options{Placement: true})
			return err
		}},
		{"default pipeline", func(m *graph.Module) error {
			p, err := passes.Build(passes.Spec{})
			if err != nil {
				return err
			}
			_, err = p.Run(m, passes.RunOptions{VerifyAfter: true})
			if err == nil && len(m.Graphs()) != 1 {
				err = fmt.Errorf("%d graphs left, want main alone (dce removes the rest)", len(m.Graphs()))
			}
			return err
		}},
		{"VerifyWritable", graph.VerifyWritable},
	}
	for _, shape := range []string{"empty", "leaf", "chain"} {
		for _, s := range steps {
			t.Run(shape+"/"+s.name, func(t *testing.T) {
				workDoubles(t, 300, graphsModule(shape), s.run)
			})
		}
	}
}

// pairsModule is one graph with n plain state pairs (layers.<i>.conv_state
// → layers.<i>.conv_state_out, each output computed from its input), which
// promote-states turns into n states, as in issue 28's 8,000-pair input.
func pairsModule(t *testing.T, n int) *graph.Module { return statePairs(t, n, false) }

// namedPairsModule is pairsModule with outputs that are a constant, not
// computed from the inputs, so that names alone pair them.
func namedPairsModule(t *testing.T, n int) *graph.Module { return statePairs(t, n, true) }

func statePairs(t *testing.T, n int, byName bool) *graph.Module {
	var ins, outs, ret, types []string
	var body strings.Builder
	if byName {
		body.WriteString("    %c = coreai.constant dense<0.0> : tensor<1x4xf16>\n")
	}
	for i := range n {
		ins = append(ins, fmt.Sprintf("%%arg%d: tensor<1x4xf16> {coreai.name = \"layers.%d.conv_state\"}", i, i))
		outs = append(outs, fmt.Sprintf("tensor<1x4xf16> {coreai.name = \"layers.%d.conv_state_out\"}", i))
		if byName {
			ret = append(ret, "%c")
		} else {
			fmt.Fprintf(&body, "    %%%d = coreai.neg %%arg%d : tensor<1x4xf16> -> tensor<1x4xf16>\n", i, i)
			ret = append(ret, fmt.Sprintf("%%%d", i))
		}
		types = append(types, "tensor<1x4xf16>")
	}
	return mainGraph(t, ins, outs, body.String(), ret, types)
}

// TestWorkLinearInStatePairs doubles the number of state pairs of a graph
// under the state analysis, promote-states in both forms and its inverse
// states-as-outputs: the work must double. Issue 28 measured 3.5 s for
// 4,000 pairs and 15.1 s for 8,000 (the signature was copied per pair, and
// outputs compared per pair).
func TestWorkLinearInStatePairs(t *testing.T) {
	pass := func(spec string) func(m *graph.Module) error {
		return func(m *graph.Module) error {
			p, err := passes.ParsePipeline(spec)
			if err != nil {
				return err
			}
			res, err := p.Run(m, passes.RunOptions{})
			if err != nil {
				return err
			}
			if got := len(res.Steps[0].Change.States); got == 0 {
				return fmt.Errorf("%s promoted nothing", spec)
			}
			return nil
		}
	}
	states := func(m *graph.Module) error {
		sa := graph.States(m.Graph("main"), graph.StateOptions{})
		if len(sa.Pairs) != len(m.Graph("main").Inputs()) {
			return fmt.Errorf("%d pairs of %d inputs (notes %q)", len(sa.Pairs), len(m.Graph("main").Inputs()), sa.Notes)
		}
		return nil
	}
	promoted := func(t *testing.T, n int) *graph.Module {
		m := pairsModule(t, n)
		if err := pass("promote-states")(m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	steps := []struct {
		name  string
		build func(t *testing.T, n int) *graph.Module
		run   func(m *graph.Module) error
	}{
		{"states by dataflow", pairsModule, states},
		{"states by names alone", namedPairsModule, states},
		{"states of promoted states", promoted, states},
		{"promote-states form=attribute", pairsModule, pass("promote-states{form=attribute}")},
		{"promote-states form=handle", pairsModule, pass("promote-states{form=handle}")},
		{"states-as-outputs handle form", handleStates, func(m *graph.Module) error {
			p, err := passes.ParsePipeline("states-as-outputs")
			if err != nil {
				return err
			}
			res, err := p.Run(m, passes.RunOptions{})
			if err == nil && len(res.Steps[0].Change.PlainStates) != len(m.Graph("main").Inputs()) {
				err = fmt.Errorf("states-as-outputs made %d of %d handle states plain", len(res.Steps[0].Change.PlainStates), len(m.Graph("main").Inputs()))
			}
			return err
		}},
		{"states-as-outputs", promoted, func(m *graph.Module) error {
			p, err := passes.ParsePipeline("states-as-outputs")
			if err != nil {
				return err
			}
			res, err := p.Run(m, passes.RunOptions{})
			if err == nil && len(res.Steps[0].Change.PlainStates) == 0 {
				err = fmt.Errorf("states-as-outputs made no state plain")
			}
			return err
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { workDoubles(t, 300, s.build, s.run) })
	}
}

// portsModule is one graph of n f32 inputs, each negated and returned:
// n islands that reach the graph's inputs and outputs, which
// strip-fp32-casts (io=true, the default) retypes to f16.
func portsModule(t *testing.T, n int) *graph.Module {
	var ins, outs, ret, types []string
	var body strings.Builder
	for i := range n {
		ins = append(ins, fmt.Sprintf("%%arg%d: tensor<4xf32> {coreai.name = \"x%d\"}", i, i))
		outs = append(outs, fmt.Sprintf("tensor<4xf32> {coreai.name = \"y%d\"}", i))
		fmt.Fprintf(&body, "    %%%d = coreai.neg %%arg%d : tensor<4xf32> -> tensor<4xf32>\n", i, i)
		ret = append(ret, fmt.Sprintf("%%%d", i))
		types = append(types, "tensor<4xf32>")
	}
	return mainGraph(t, ins, outs, body.String(), ret, types)
}

// TestDCEWorkLinearInOpaqueText doubles the private graphs of a module
// whose ops carry attribute text anefix cannot read (one opaque attribute
// in main and in every private graph, main's naming g0 and a graph that
// is not there): dce must search the text once for all graph names, so the
// work doubles. It searched every text once per private graph
// (strings.Contains each time: ×4 when counted the same way).
func TestDCEWorkLinearInOpaqueText(t *testing.T) {
	build := func(t *testing.T, n int) *graph.Module {
		var b strings.Builder
		b.WriteString("module {\n  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {\n")
		b.WriteString("    \"other.use\"() {ref = #other.thing<\"@g0 @missing\">} : () -> ()\n    coreai.output %x : tensor<4xf16>\n  }\n")
		for i := range n {
			fmt.Fprintf(&b, "  coreai.graph private @g%d(%%x: tensor<4xf16>) -> tensor<4xf16> {\n", i)
			fmt.Fprintf(&b, "    \"other.use\"() {ref = #other.thing<\"note %d\">} : () -> ()\n    coreai.output %%x : tensor<4xf16>\n  }\n", i)
		}
		b.WriteString("}\n")
		return parseText(t, b.String())
	}
	workDoubles(t, 300, build, func(m *graph.Module) error {
		p, err := passes.ParsePipeline("dce")
		if err != nil {
			return err
		}
		if _, err := p.Run(m, passes.RunOptions{}); err != nil {
			return err
		}
		if gs := m.Graphs(); len(gs) != 2 || m.Graph("g0") == nil {
			return fmt.Errorf("%d graphs left, want main and g0 (named in main's opaque text)", len(gs))
		}
		return nil
	})
}

// handleStates is one graph of n handle-form states (the form of
// testdata/states/handle-f32.mlir), each read, reshaped to rank 1, negated,
// reshaped back and written, its token returned, the accesses on one token
// chain as exports write them: fold-io-unsqueeze folds
// both reshapes of each, states-as-outputs makes each a plain input and
// output.
func handleStates(t *testing.T, n int) *graph.Module {
	var ins, outs, ret, types []string
	var body strings.Builder
	body.WriteString("    %t = coreai.create_token : !coreai.token\n")
	body.WriteString("    %s1 = coreai.constant dense<[4]> : tensor<1xsi32>\n")
	body.WriteString("    %s2 = coreai.constant dense<[1, 4]> : tensor<2xsi32>\n")
	for i := range n {
		ins = append(ins, fmt.Sprintf("%%arg%d: !coreai.handle<tensor<1x4xf16>> {MutableBuffers.buffer_mutation = \"s%d\", coreai.name = \"s%d\"}", i, i, i))
		outs = append(outs, fmt.Sprintf("!coreai.token {coreai.name = \"s%d\"}", i))
		tok := "%t"
		if i > 0 {
			tok = fmt.Sprintf("%%w%d", i-1)
		}
		fmt.Fprintf(&body, "    %%r%d, %%rt%d = coreai.read_handle %%arg%d, %s : (<tensor<1x4xf16>>, !coreai.token) -> (tensor<1x4xf16>, !coreai.token)\n", i, i, i, tok)
		fmt.Fprintf(&body, "    %%a%d = coreai.reshape %%r%d, %%s1 : (tensor<1x4xf16>, tensor<1xsi32>) -> tensor<4xf16>\n", i, i)
		fmt.Fprintf(&body, "    %%n%d = coreai.neg %%a%d : tensor<4xf16> -> tensor<4xf16>\n", i, i)
		fmt.Fprintf(&body, "    %%b%d = coreai.reshape %%n%d, %%s2 : (tensor<4xf16>, tensor<2xsi32>) -> tensor<1x4xf16>\n", i, i)
		fmt.Fprintf(&body, "    %%w%d = coreai.write_handle %%arg%d, %%b%d, %%rt%d : (<tensor<1x4xf16>>, tensor<1x4xf16>, !coreai.token) -> !coreai.token\n", i, i, i, i)
		ret = append(ret, fmt.Sprintf("%%w%d", i))
		types = append(types, "!coreai.token")
	}
	return mainGraph(t, ins, outs, body.String(), ret, types)
}

// rankPorts is one graph of n f16 inputs, each reshaped to 1x4, negated
// and reshaped back to 4 for its output: fold-io-unsqueeze folds every
// input and output.
func rankPorts(t *testing.T, n int) *graph.Module {
	var ins, outs, ret, types []string
	var body strings.Builder
	body.WriteString("    %s1 = coreai.constant dense<[4]> : tensor<1xsi32>\n")
	body.WriteString("    %s2 = coreai.constant dense<[1, 4]> : tensor<2xsi32>\n")
	for i := range n {
		ins = append(ins, fmt.Sprintf("%%arg%d: tensor<4xf16> {coreai.name = \"x%d\"}", i, i))
		outs = append(outs, fmt.Sprintf("tensor<4xf16> {coreai.name = \"y%d\"}", i))
		fmt.Fprintf(&body, "    %%a%d = coreai.reshape %%arg%d, %%s2 : (tensor<4xf16>, tensor<2xsi32>) -> tensor<1x4xf16>\n", i, i)
		fmt.Fprintf(&body, "    %%n%d = coreai.neg %%a%d : tensor<1x4xf16> -> tensor<1x4xf16>\n", i, i)
		fmt.Fprintf(&body, "    %%b%d = coreai.reshape %%n%d, %%s1 : (tensor<1x4xf16>, tensor<1xsi32>) -> tensor<4xf16>\n", i, i)
		ret = append(ret, fmt.Sprintf("%%b%d", i))
		types = append(types, "tensor<4xf16>")
	}
	return mainGraph(t, ins, outs, body.String(), ret, types)
}

// TestWorkLinearInFoldedPorts doubles the ports fold-io-unsqueeze retypes,
// plain inputs and outputs and handle states: the work must double (each
// retyped port copied the whole signature).
func TestWorkLinearInFoldedPorts(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(t *testing.T, n int) *graph.Module
		want  func(m *graph.Module) int // I/O changes
	}{
		{"inputs and outputs", rankPorts, func(m *graph.Module) int { return 2 * len(m.Graph("main").Inputs()) }},
		{"handle states", handleStates, func(m *graph.Module) int { return len(m.Graph("main").Inputs()) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			workDoubles(t, 300, c.build, func(m *graph.Module) error {
				want := c.want(m)
				p, err := passes.ParsePipeline("fold-io-unsqueeze")
				if err != nil {
					return err
				}
				res, err := p.Run(m, passes.RunOptions{})
				if err == nil && len(res.Steps[0].Change.IOChanges) != want {
					err = fmt.Errorf("%d I/O changes, want %d (notes %q)", len(res.Steps[0].Change.IOChanges), want, res.Steps[0].Change.Notes)
				}
				return err
			})
		})
	}
}

// TestWorkLinearInPorts doubles the number of a graph's inputs that
// strip-fp32-casts retypes: the work must double (it copied the signature
// and listed the inputs once per retyped input).
func TestWorkLinearInPorts(t *testing.T) {
	workDoubles(t, 300, portsModule, func(m *graph.Module) error {
		p, err := passes.ParsePipeline("strip-fp32-casts")
		if err != nil {
			return err
		}
		res, err := p.Run(m, passes.RunOptions{})
		if err == nil && len(res.Steps[0].Change.IOChanges) < 2*len(m.Graph("main").Inputs()) {
			err = fmt.Errorf("%d I/O changes for %d inputs", len(res.Steps[0].Change.IOChanges), len(m.Graph("main").Inputs()))
		}
		return err
	})
}

// mainGraph parses a module of one graph @main with inputs INS, outputs
// OUTS (their attributed types), ops BODY, and the output op returning RET
// of TYPES.
func mainGraph(t *testing.T, ins, outs []string, body string, ret, types []string) *graph.Module {
	return parseText(t, fmt.Sprintf("module {\n  coreai.graph @main(%s) -> (%s) {\n%s    coreai.output %s : %s\n  }\n}\n",
		strings.Join(ins, ", "), strings.Join(outs, ", "), body, strings.Join(ret, ", "), strings.Join(types, ", ")))
}
