package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/mlirtext"
)

// stateModule builds a one-graph module: ins and outs are "name:type"
// (an input's type may carry " state=<target>" for buffer_mutation), body
// is generic-form ops ending in the values returned, in order.
func stateModule(t *testing.T, ins, outs []string, body string, ret []string, extra string) *graph.Graph {
	t.Helper()
	var args, res, retTypes []string
	types := map[string]string{}
	for i, s := range ins {
		name, typ, _ := strings.Cut(s, ":")
		attrs := fmt.Sprintf("coreai.name = %q", name)
		if typ2, target, ok := strings.Cut(typ, " state="); ok {
			typ = typ2
			attrs = fmt.Sprintf("MutableBuffers.buffer_mutation = %q, ", target) + attrs
		}
		args = append(args, fmt.Sprintf("%%arg%d: %s {%s}", i, typ, attrs))
		types[fmt.Sprintf("%%arg%d", i)] = typ
	}
	for _, s := range outs {
		name, typ, _ := strings.Cut(s, ":")
		res = append(res, fmt.Sprintf("%s {coreai.name = %q}", typ, name))
		retTypes = append(retTypes, typ)
	}
	text := fmt.Sprintf("module {\n  coreai.graph @main(%s) -> (%s) {\n%s\n    coreai.output %s : %s\n  }\n%s}\n",
		strings.Join(args, ", "), strings.Join(res, ", "), body, strings.Join(ret, ", "), strings.Join(retTypes, ", "), extra)
	m, _, err := mlirtext.Parse("states_test.mlir", text)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatalf("verify: %v\n%s", err, text)
	}
	return m.Graph("main")
}

const (
	st  = "tensor<1x4x8xf16>"
	st2 = "tensor<1x4x7xf16>"
	x1  = "tensor<1x4x1xf16>"
	lg  = "tensor<1x16xf16>"
)

// logitsOf is a body fragment computing %lg from %x (the last input): a
// stand-in for the rest of the model.
func logitsFrom(x string) string {
	return fmt.Sprintf(`    %%c = "coreai.constant"() <{value = dense<[1, 16]> : tensor<2xui32>}> : () -> tensor<2xui32>
    %%lgt = "coreai.reshape"(%s, %%c) : (%s, tensor<2xui32>) -> %s`, x, "tensor<1x4x4xf16>", lg)
}

func TestStatesForms(t *testing.T) {
	type want struct {
		in, out string
		form    graph.StateForm
		ev      graph.StateEvidence
		kind    graph.StateKind
	}
	shift := func(s, x string) string {
		return fmt.Sprintf(`    %%b = "coreai.constant"() <{value = dense<[0, 0, 1]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%e = "coreai.constant"() <{value = dense<[1, 4, 8]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%s1 = "coreai.constant"() <{value = dense<1> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%old = "coreai.slice"(%s, %%b, %%e, %%s1) : (%s, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> %s
    %%ax = "coreai.constant"() <{value = dense<2> : tensor<si32>}> : () -> tensor<si32>
    %%new = "coreai.concat"(%%old, %s, %%ax) : (%s, %s, tensor<si32>) -> %s`, s, st, st2, x, st2, x1, st)
	}
	window := func(s, x string) string { // slice(concat(S, x))[…, 1:]
		return fmt.Sprintf(`    %%ax = "coreai.constant"() <{value = dense<2> : tensor<si32>}> : () -> tensor<si32>
    %%cat = "coreai.concat"(%%ax, %s, %s) : (tensor<si32>, %s, %s) -> %s
    %%b = "coreai.constant"() <{value = dense<[0, 0, 1]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%e = "coreai.constant"() <{value = dense<[1, 4, 8]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%s1 = "coreai.constant"() <{value = dense<1> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%new = "coreai.slice"(%%cat, %%b, %%e, %%s1) : (%s, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> %s`, s, x, st2, x1, st, st, st2)
	}
	update := func(s string) string { // S' = g·S + S·S (shape kept), through fp32 casts
		return fmt.Sprintf(`    %%f = "coreai.cast"(%s) : (%s) -> tensor<1x4x8xf32>
    %%g = "coreai.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %%d = "coreai.decomposable.broadcasting_mul"(%%f, %%g) : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
    %%q = "coreai.decomposable.broadcasting_mul"(%%f, %%f) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %%u = "coreai.decomposable.broadcasting_add"(%%d, %%q) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %%new = "coreai.cast"(%%u) : (tensor<1x4x8xf32>) -> %s`, s, st, st)
	}
	write := func(s, x string) string {
		return fmt.Sprintf(`    %%b = "coreai.constant"() <{value = dense<[0, 0, 3]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%e = "coreai.constant"() <{value = dense<[1, 4, 4]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%s1 = "coreai.constant"() <{value = dense<1> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %%new = "coreai.slice_update"(%s, %s, %%b, %%e, %%s1) : (%s, %s, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> %s`, s, x, st, x1, st)
	}
	for _, c := range []struct {
		name      string
		ins, outs []string
		body      string
		ret       []string
		want      []want
		notes     int
	}{
		{name: "attribute", ins: []string{"conv:" + st + " state=conv", "x:" + x1}, outs: []string{"conv:" + st},
			body: shift("%arg0", "%arg1"), ret: []string{"%new"},
			want: []want{{"conv", "conv", graph.StateAttribute, graph.EvidenceContract, graph.StateRecurrent}}},
		{name: "shift/unnamed", ins: []string{"w0:" + st, "x:" + x1}, outs: []string{"w1:" + st},
			body: shift("%arg0", "%arg1"), ret: []string{"%new"},
			want: []want{{"w0", "w1", graph.StatePlain, graph.EvidenceShift, graph.StateRecurrent}}},
		{name: "shift/conv_cache", ins: []string{"conv_cache:" + st, "x:" + x1}, outs: []string{"updated_conv_cache:" + st},
			body: shift("%arg0", "%arg1"), ret: []string{"%new"},
			want: []want{{"conv_cache", "updated_conv_cache", graph.StatePlain, graph.EvidenceShift, graph.StateRecurrent}}},
		{name: "shift/slice-of-concat", ins: []string{"w0:" + st2, "x:" + x1}, outs: []string{"w1:" + st2},
			body: window("%arg0", "%arg1"), ret: []string{"%new"},
			want: []want{{"w0", "w1", graph.StatePlain, graph.EvidenceShift, graph.StateRecurrent}}},
		{name: "write/past-present", ins: []string{"past_key_values.0.key:" + st, "x:" + x1}, outs: []string{"present.0.key:" + st},
			body: write("%arg0", "%arg1"), ret: []string{"%new"},
			want: []want{{"past_key_values.0.key", "present.0.key", graph.StatePlain, graph.EvidenceWrite, graph.StateKV}}},
		{name: "write/unnamed", ins: []string{"a:" + st, "x:" + x1}, outs: []string{"b:" + st},
			body: write("%arg0", "%arg1"), ret: []string{"%new"},
			want: []want{{"a", "b", graph.StatePlain, graph.EvidenceWrite, graph.StateUnknownKind}}},
		{name: "update/camel", ins: []string{"recState:" + st}, outs: []string{"new_recState:" + st},
			body: update("%arg0"), ret: []string{"%new"},
			want: []want{{"recState", "new_recState", graph.StatePlain, graph.EvidenceUpdate, graph.StateRecurrent}}},
		{name: "update/layers.N", ins: []string{"layers.3.ssm:" + st}, outs: []string{"layers.3.ssm_out:" + st},
			body: update("%arg0"), ret: []string{"%new"},
			want: []want{{"layers.3.ssm", "layers.3.ssm_out", graph.StatePlain, graph.EvidenceUpdate, graph.StateRecurrent}}},
		{name: "update/in-out", ins: []string{"s_in:" + st}, outs: []string{"s_out:" + st},
			body: update("%arg0"), ret: []string{"%new"},
			want: []want{{"s_in", "s_out", graph.StatePlain, graph.EvidenceUpdate, graph.StateRecurrent}}},
		// A successor's name backs an update (h0 → h1, PyTorch's h_0 → h_n).
		{name: "update/h0-h1", ins: []string{"h0.3:" + st}, outs: []string{"h1.3:" + st},
			body: update("%arg0"), ret: []string{"%new"},
			want: []want{{"h0.3", "h1.3", graph.StatePlain, graph.EvidenceUpdate, graph.StateRecurrent}}},
		{name: "update/h_0-h_n", ins: []string{"h_0:" + st}, outs: []string{"h_n:" + st},
			body: update("%arg0"), ret: []string{"%new"},
			want: []want{{"h_0", "h_n", graph.StatePlain, graph.EvidenceUpdate, graph.StateRecurrent}}},
		// Weak evidence without names: a residual stream looks the same.
		{name: "update/x-y", ins: []string{"x:" + st}, outs: []string{"y:" + st},
			body: update("%arg0"), ret: []string{"%new"}},
		{name: "update/h0-h2", ins: []string{"h0:" + st}, outs: []string{"h2:" + st},
			body: update("%arg0"), ret: []string{"%new"}},
		{name: "update/in0-out0", ins: []string{"in0:" + st}, outs: []string{"out0:" + st},
			body: update("%arg0"), ret: []string{"%new"}},
		{name: "update/hidden_states", ins: []string{"hidden_states:" + st}, outs: []string{"hidden_states:" + st},
			body: update("%arg0"), ret: []string{"%new"}},
		{name: "names/unread", ins: []string{"conv_state:" + st, "x:" + st}, outs: []string{"conv_state_out:" + st},
			body: "", ret: []string{"%arg1"},
			want: []want{{"conv_state", "conv_state_out", graph.StatePlain, graph.EvidenceName, graph.StateRecurrent}}},
		{name: "names/type-differs", ins: []string{"conv_state:" + st, "x:" + x1}, outs: []string{"conv_state_out:" + x1},
			body: "", ret: []string{"%arg1"}, notes: 1},
		{name: "update/suffix-on-affixed", ins: []string{"s0_in:" + st}, outs: []string{"s0_in_out:" + st},
			body: update("%arg0"), ret: []string{"%new"},
			want: []want{{"s0_in", "s0_in_out", graph.StatePlain, graph.EvidenceUpdate, graph.StateRecurrent}}},
		// An update needs the names on both sides: y may be the model's
		// output of the state's shape.
		{name: "update/state-named", ins: []string{"rec_state:" + st}, outs: []string{"y:" + st},
			body: update("%arg0"), ret: []string{"%new"}, notes: 1},
		{name: "update/both-state-named", ins: []string{"rec_state:" + st}, outs: []string{"state_3:" + st},
			body: update("%arg0"), ret: []string{"%new"},
			want: []want{{"rec_state", "state_3", graph.StatePlain, graph.EvidenceUpdate, graph.StateRecurrent}}},
		{name: "no-output", ins: []string{"rec_state:" + st, "x:" + st}, outs: []string{"y:" + st},
			body: "", ret: []string{"%arg1"}, notes: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := stateModule(t, c.ins, c.outs, c.body, c.ret, "")
			sa := graph.States(g, graph.StateOptions{})
			var got []want
			for _, p := range sa.Pairs {
				got = append(got, want{p.Name, p.OutName, p.Form, p.Evidence, p.Kind})
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("pairs = %v, want %v (notes %q)", got, c.want, sa.Notes)
			}
			if len(sa.Notes) != c.notes {
				t.Errorf("notes = %q, want %d", sa.Notes, c.notes)
			}
		})
	}
}

// Two layers' states of one type: each output is traced to its own input,
// though layer 1's output depends on layer 0's state through the model.
func TestStatesTwoLayersSameType(t *testing.T) {
	body := `    %b = "coreai.constant"() <{value = dense<[0, 0, 1]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %e = "coreai.constant"() <{value = dense<[1, 4, 8]> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %s1 = "coreai.constant"() <{value = dense<1> : tensor<3xsi32>}> : () -> tensor<3xsi32>
    %ax = "coreai.constant"() <{value = dense<2> : tensor<si32>}> : () -> tensor<si32>
    %o0 = "coreai.slice"(%arg0, %b, %e, %s1) : (tensor<1x4x8xf16>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x4x7xf16>
    %n0 = "coreai.concat"(%o0, %arg2, %ax) : (tensor<1x4x7xf16>, tensor<1x4x1xf16>, tensor<si32>) -> tensor<1x4x8xf16>
    %r = "coreai.constant"() <{value = dense<2> : tensor<1xsi32>}> : () -> tensor<1xsi32>
    %h = "coreai.reduce_sum"(%n0, %r) <{keep_dims = true}> : (tensor<1x4x8xf16>, tensor<1xsi32>) -> tensor<1x4x1xf16>
    %o1 = "coreai.slice"(%arg1, %b, %e, %s1) : (tensor<1x4x8xf16>, tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>) -> tensor<1x4x7xf16>
    %n1 = "coreai.concat"(%o1, %h, %ax) : (tensor<1x4x7xf16>, tensor<1x4x1xf16>, tensor<si32>) -> tensor<1x4x8xf16>`
	// Outputs in the other order than inputs, names that do not line up.
	g := stateModule(t, []string{"conv_state_0:" + st, "conv_state_1:" + st, "x:" + x1},
		[]string{"out_b:" + st, "out_a:" + st}, body, []string{"%n1", "%n0"}, "")
	sa := graph.States(g, graph.StateOptions{})
	var got []string
	for _, p := range sa.Pairs {
		got = append(got, p.Name+"→"+p.OutName)
	}
	if want := "[conv_state_0→out_a conv_state_1→out_b]"; fmt.Sprint(got) != want {
		t.Errorf("pairs = %v, want %s (notes %q)", got, want, sa.Notes)
	}
}

// The recurrence inside a private composite, called with coreai.invoke.
func TestStatesThroughComposite(t *testing.T) {
	callee := `  coreai.graph private noinline @gdn(%arg0: tensor<1x4x8xf32> {coreai.name = "state"}) -> tensor<1x4x8xf32> attributes {composite_decl = #coreai.composite_declaration<"gated_delta_update" = {input_names = ["state"], op_attrs = {}, output_names = ["new_state"]}>} {
    %g = "coreai.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %d = "coreai.decomposable.broadcasting_mul"(%arg0, %g) : (tensor<1x4x8xf32>, tensor<f32>) -> tensor<1x4x8xf32>
    coreai.output %d : tensor<1x4x8xf32>
  }
`
	body := `    %f = "coreai.cast"(%arg0) : (tensor<1x4x8xf16>) -> tensor<1x4x8xf32>
    %u = coreai.invoke @gdn(%f) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %new = "coreai.cast"(%u) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf16>`
	g := stateModule(t, []string{"rec_state:" + st}, []string{"next_rec_state:" + st}, body, []string{"%new"}, callee)
	sa := graph.States(g, graph.StateOptions{})
	if len(sa.Pairs) != 1 || sa.Pairs[0].Evidence != graph.EvidenceUpdate || sa.Pairs[0].OutName != "next_rec_state" {
		t.Fatalf("pairs = %+v (notes %q)", sa.Pairs, sa.Notes)
	}
}

// A handle state whose token output has no name of the handle's: traced
// through its write_handle.
func TestStatesHandleTracedByWrite(t *testing.T) {
	text := `module {
  coreai.graph @main(%arg0: !coreai.handle<tensor<1x4xf16>> {coreai.name = "acc"}, %arg1: tensor<1x4xf16> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "tok"}, tensor<1x4xf16> {coreai.name = "y"}) {
    %0 = coreai.create_token : !coreai.token
    %1, %2 = coreai.read_handle %arg0, %0 : (<tensor<1x4xf16>>, !coreai.token) -> (tensor<1x4xf16>, !coreai.token)
    %3 = "coreai.decomposable.broadcasting_add"(%1, %arg1) : (tensor<1x4xf16>, tensor<1x4xf16>) -> tensor<1x4xf16>
    %4 = coreai.write_handle %arg0, %3, %2 : (<tensor<1x4xf16>>, tensor<1x4xf16>, !coreai.token) -> !coreai.token
    coreai.output %4, %3 : !coreai.token, tensor<1x4xf16>
  }
}
`
	m, _, err := mlirtext.Parse("h.mlir", text)
	if err != nil {
		t.Fatal(err)
	}
	sa := graph.States(m.Graph("main"), graph.StateOptions{})
	if len(sa.Pairs) != 1 || sa.Pairs[0].Form != graph.StateHandle || sa.Pairs[0].Out != 0 {
		t.Fatalf("pairs = %+v", sa.Pairs)
	}
}

// Explicit pairs come first; NoAuto turns the rest off.
func TestStatesOptions(t *testing.T) {
	body := `    %f = "coreai.decomposable.broadcasting_mul"(%arg0, %arg0) : (tensor<1x4x8xf16>, tensor<1x4x8xf16>) -> tensor<1x4x8xf16>`
	g := stateModule(t, []string{"a:" + st}, []string{"b:" + st}, body, []string{"%f"}, "")
	if sa := graph.States(g, graph.StateOptions{}); len(sa.Pairs) != 0 {
		t.Fatalf("a/b paired without names: %+v", sa.Pairs)
	}
	sa := graph.States(g, graph.StateOptions{Pairs: []string{"a=b"}})
	if len(sa.Pairs) != 1 || sa.Pairs[0].Evidence != graph.EvidenceOption || len(sa.Named) != 1 {
		t.Fatalf("explicit pair: %+v", sa)
	}
	g2 := stateModule(t, []string{"conv_state:" + st}, []string{"conv_state_out:" + st}, body, []string{"%f"}, "")
	if sa := graph.States(g2, graph.StateOptions{NoAuto: true}); len(sa.Pairs) != 0 {
		t.Fatalf("NoAuto paired: %+v", sa.Pairs)
	}
	if sa := graph.States(g2, graph.StateOptions{Kinds: []string{"ssm"}}); len(sa.Pairs) != 1 {
		// the output is still affixed to the input's name: update + names.
		t.Fatalf("kinds=ssm: %+v %q", sa.Pairs, sa.Notes)
	}
}

// manyGraphs is a module of main plus n private graphs, as text: with calls
// false each graph is empty (issue 28's 10,000-graph input); with calls true
// each graph returns a call of one shared @leaf on a state-named input, so
// the state analysis of every graph follows a call.
func manyGraphs(n int, calls bool) string {
	var b strings.Builder
	b.WriteString("module {\n  coreai.graph @main(%arg0: tensor<4xf16> {coreai.name = \"x\"}) -> (tensor<4xf16> {coreai.name = \"y\"}) {\n    coreai.output %arg0 : tensor<4xf16>\n  }\n")
	if calls {
		b.WriteString("  coreai.graph private @leaf(%arg0: tensor<4xf16>) -> tensor<4xf16> {\n    coreai.output %arg0 : tensor<4xf16>\n  }\n")
	}
	for i := range n {
		if calls {
			fmt.Fprintf(&b, "  coreai.graph private @g%d(%%arg0: tensor<4xf16> {coreai.name = \"conv_state\"}) -> (tensor<4xf16> {coreai.name = \"conv_state_out\"}) {\n", i)
			b.WriteString("    %0 = coreai.invoke @leaf(%arg0) : (tensor<4xf16>) -> tensor<4xf16>\n    coreai.output %0 : tensor<4xf16>\n  }\n")
		} else {
			fmt.Fprintf(&b, "  coreai.graph private @g%d() {\n    coreai.output\n  }\n", i)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// TestStatesWorkLinearInGraphs counts (graph.CountWork: ops visited, not a
// timer) the work of analyzing every graph's states in modules of n and 2n
// graphs: it must double. It grew ×4 when each graph's analysis listed
// every graph of the module to resolve calls (issue 28: 10,000 empty
// private graphs took 81 s in inspect, check and rewrite).
func TestStatesWorkLinearInGraphs(t *testing.T) {
	for _, calls := range []bool{false, true} {
		t.Run(fmt.Sprintf("calls=%v", calls), func(t *testing.T) {
			const n = 400
			var works [2]graph.Work
			for i, k := range []int{n, 2 * n} {
				m, _, err := mlirtext.Parse("many.mlir", manyGraphs(k, calls))
				if err != nil {
					t.Fatal(err)
				}
				var sas map[*graph.Operation]*graph.StateAnalysis
				works[i] = graph.CountWork(func() { sas = graph.StatesOf(m, graph.StateOptions{}) })
				want := k + 1 // main
				if calls {
					want++ // leaf
				}
				if len(sas) != want {
					t.Fatalf("%d analyses for %d graphs", len(sas), k)
				}
				if calls {
					// The call is followed: each graph's pair is found
					// through @leaf (dataflow, not names alone).
					g := m.Graph("g0")
					if sa := sas[g.Op]; len(sa.Pairs) != 1 || sa.Pairs[0].Evidence != graph.EvidenceIdentity {
						t.Fatalf("@g0 pairs = %+v (notes %q)", sa.Pairs, sa.Notes)
					}
				}
			}
			ratio := float64(works[1].Total()) / float64(works[0].Total())
			msg := fmt.Sprintf("work %d at %d graphs, %d at %d (×%.2f)", works[0].Total(), n, works[1].Total(), 2*n, ratio)
			if works[0].Total() == 0 {
				t.Fatalf("nothing counted: %s", msg)
			}
			if ratio > 2.2 {
				t.Errorf("work grows faster than the graph count: %s", msg)
			} else {
				t.Log(msg)
			}
		})
	}
}
