package passes

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// psGraph builds @main with the given inputs (name:type pairs share type T
// unless overridden) and outputs computed as exp(input) (or a fresh value
// of another type), so every output is a distinct value.
func psGraph(ins []tbPort, outs []tbPort) *tbGraph {
	tg := tbModule("main", ins...)
	for _, o := range outs {
		src := tg.arg(0)
		for i, in := range ins {
			if graph.TypeEqual(in.typ, o.typ) {
				src = tg.arg(i)
			}
		}
		if graph.TypeEqual(src.Type(), o.typ) {
			tg.out(tg.op("coreai.exp", "", []*graph.Value{src}, o.typ), o.name)
		} else {
			tg.out(tg.op("coreai.cast", "", []*graph.Value{src}, o.typ), o.name)
		}
	}
	return tg
}

func TestPromoteStates(t *testing.T) {
	f16 := tbT(graph.F16, 1, 8)
	f16b := tbT(graph.F16, 2, 8)
	logits := tbT(graph.F16, 1, 16)
	p := func(name string, typ graph.Type) tbPort { return tbPort{name, typ, ""} }
	cases := []struct {
		name   string
		ctx    *Context
		ins    []tbPort
		outs   []tbPort
		states []string // "input<-output" promoted
		notes  int
		err    string
	}{
		{"snake _out", nil,
			[]tbPort{p("input_ids", logits), p("conv_state", f16), p("rec_state", f16b)},
			[]tbPort{p("logits", logits), p("conv_state_out", f16), p("rec_state_out", f16b)},
			[]string{"conv_state<-conv_state_out", "rec_state<-rec_state_out"}, 0, ""},
		{"new_ prefix, _new suffix, camelCase Out", nil,
			[]tbPort{p("convState", f16), p("ssm_state", f16b), p("recState", logits)},
			[]tbPort{p("convStateOut", f16), p("new_ssm_state", f16b), p("rec_state_new", logits)},
			[]string{"convState<-convStateOut", "ssm_state<-new_ssm_state", "recState<-rec_state_new"}, 0, ""},
		{"per-layer suffixes pair by layer", nil,
			[]tbPort{p("conv_state_0", f16), p("conv_state_1", f16)},
			[]tbPort{p("new_conv_state_1", f16), p("conv_state_0_out", f16)},
			[]string{"conv_state_0<-conv_state_0_out", "conv_state_1<-new_conv_state_1"}, 0, ""},
		{"same-name output pairs", nil,
			[]tbPort{p("recurrent_states", f16)},
			[]tbPort{p("recurrent_states", f16)},
			[]string{"recurrent_states<-recurrent_states"}, 0, ""},
		{"kv caches left alone by default", nil,
			[]tbPort{p("key_cache", f16), p("value_cache", f16)},
			[]tbPort{p("new_k_cache", f16), p("new_v_cache", f16)},
			nil, 0, ""},
		{"include-kv pairs Apple's names", withStates(func(o *StateSettings) { o.IncludeKV = true }),
			[]tbPort{p("key_cache", f16), p("value_cache", f16)},
			[]tbPort{p("new_k_cache", f16), p("new_v_cache", f16)},
			[]string{"key_cache<-new_k_cache", "value_cache<-new_v_cache"}, 0, ""},
		{"explicit names", withStates(func(o *StateSettings) { o.Pairs, o.Auto = []StatePairOption{{"hidden", "hidden_next"}}, false }),
			[]tbPort{p("hidden", f16), p("conv_state", f16b)},
			[]tbPort{p("hidden_next", f16), p("conv_state_out", f16b)},
			[]string{"hidden<-hidden_next"}, 0, ""},
		{"state-looking input without an output is noted", nil,
			[]tbPort{p("conv_state", f16)},
			[]tbPort{p("logits", f16)},
			nil, 1, ""},
		// Named alike, typed differently: not a state, noted; a pair the
		// user names is refused.
		{"type mismatch noted", nil,
			[]tbPort{p("conv_state", f16)},
			[]tbPort{p("conv_state_out", tbT(graph.F32, 1, 8))},
			nil, 1, ""},
		{"named type mismatch refused", withStates(func(o *StateSettings) { o.Pairs = []StatePairOption{{"conv_state", "conv_state_out"}} }),
			[]tbPort{p("conv_state", f16)},
			[]tbPort{p("conv_state_out", tbT(graph.F32, 1, 8))},
			nil, 0, "graph @main: input conv_state is tensor<1x8xf16> but output conv_state_out is tensor<1x8xf32>"},
		{"named shape mismatch refused", withStates(func(o *StateSettings) { o.Pairs = []StatePairOption{{"rec_state", "new_rec_state"}} }),
			[]tbPort{p("rec_state", f16)},
			[]tbPort{p("new_rec_state", f16b)},
			nil, 0, "input rec_state is tensor<1x8xf16> but output new_rec_state is tensor<2x8xf16>"},
		// Left alone with notes (the dataflow tie, then the names'), not an
		// error: the rest of the graph is still promoted.
		{"ambiguous outputs noted", nil,
			[]tbPort{p("conv_state", f16), p("rec_state", f16b)},
			[]tbPort{p("conv_state_out", f16), p("new_conv_state", f16), p("rec_state_out", f16b)},
			[]string{"rec_state<-rec_state_out"}, 2, ""},
		{"explicit unknown name", withStates(func(o *StateSettings) { o.Pairs = []StatePairOption{{"nope", "conv_state_out"}} }),
			[]tbPort{p("conv_state", f16)},
			[]tbPort{p("conv_state_out", f16)},
			nil, 0, `no entry graph has input "nope"`},
		// Residual-looking pairs: an update whose names do not agree.
		{"update without names left alone", nil,
			[]tbPort{p("x", f16), p("hidden_states", f16b)},
			[]tbPort{p("y", f16), p("hidden_states", f16b)},
			nil, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := psGraph(c.ins, c.outs)
			tbVerify(t, tg.m, "built")
			before := tbDump(tg.m)
			ch, err := tbRunIn(t, c.ctx, "promote-states", tg.m, nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				if tbDump(tg.m) != before {
					t.Errorf("failed run changed the IR")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tbVerify(t, tg.m, "after")
			var got []string
			for _, s := range ch.States {
				got = append(got, s.Input+"<-"+s.Output)
				if s.Graph != "main" {
					t.Errorf("graph %q", s.Graph)
				}
			}
			if strings.Join(got, " ") != strings.Join(c.states, " ") {
				t.Errorf("promoted %q, want %q", got, c.states)
			}
			if len(ch.Notes) != c.notes {
				t.Errorf("notes %q, want %d", ch.Notes, c.notes)
			}
			if len(ch.IOChanges) != 2*len(c.states) {
				t.Errorf("%d IOChanges for %d states", len(ch.IOChanges), len(c.states))
			}
			// The state contract: the input names its output, the output
			// carries the state's name, and the graph view sees both as states.
			g := tg.m.Graph("main")
			outs := g.Outputs()
			for _, s := range ch.States {
				in, n := graph.FindPort(g.Inputs(), s.Input)
				if n != 1 || !in.IsState || in.StateOutput != s.Input {
					t.Errorf("input %s: %+v", s.Input, in)
				}
				o, n := graph.FindPort(outs, s.Input)
				if n != 1 || !o.IsState {
					t.Errorf("output for state %s: %+v (outputs %s)", s.Input, o, graph.PortLabels(outs))
				}
			}
			// Idempotent.
			mid := tbDump(tg.m)
			ch2, err := tbRunIn(t, c.ctx, "promote-states", tg.m, nil)
			if err != nil {
				t.Fatalf("second run: %v", err)
			}
			if tbDump(tg.m) != mid || len(ch2.States) != 0 {
				t.Errorf("second run changed things: %+v", ch2)
			}
		})
	}
}

// An already-stateful graph (arm B) is left exactly as it is.
func TestPromoteStatesAlreadyStateful(t *testing.T) {
	tg := tbModule("main", tbPort{"conv_state", tbT(graph.F16, 4), "conv_state"}, tbPort{"x", tbT(graph.F16, 4), ""})
	tg.out(tg.op("coreai.exp", "", []*graph.Value{tg.arg(0)}, tbT(graph.F16, 4)), "conv_state")
	tg.out(tg.op("coreai.exp", "", []*graph.Value{tg.arg(1)}, tbT(graph.F16, 4)), "y")
	before := tbDump(tg.m)
	ch, err := tbRunIn(t, withStates(func(o *StateSettings) { o.Pairs = []StatePairOption{{"conv_state", "conv_state_out"}} }), "promote-states", tg.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tbDump(tg.m) != before || len(ch.States) != 0 {
		t.Errorf("stateful graph changed: %+v", ch)
	}
}
