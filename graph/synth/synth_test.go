package synth

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

func gen(t testing.TB, o Options) *graph.Module {
	t.Helper()
	m, err := GenerateWith(o, armDPass)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", o, err)
	}
	return m
}

func portSig(ps []graph.Port) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		s := p.Name + ":" + p.Type.String()
		if p.IsState {
			s += ":state"
		}
		out[i] = s
	}
	return out
}

// The signatures are the contract every other package and the README rely
// on; pin them for the tiny scale.
func TestSignatures(t *testing.T) {
	cases := []struct {
		arm       Arm
		ins, outs string
	}{
		{ArmA,
			"input_ids:tensor<1x1xsi32> position_ids:tensor<1x1xsi32> in_step:tensor<1xsi32> causal_mask:tensor<1x256x1x1xf16> key_cache:tensor<1x1x16x1x256xf16>:state value_cache:tensor<1x1x16x1x256xf16>:state conv_state:tensor<3x1x4x48xf16> rec_state:tensor<3x1x2x8x8xf16>",
			"key_cache:tensor<1x1x16x1x256xf16>:state value_cache:tensor<1x1x16x1x256xf16>:state logits:tensor<1x1x256xf16> new_conv_state:tensor<3x1x4x48xf16> new_rec_state:tensor<3x1x2x8x8xf16>"},
		{ArmB,
			"input_ids:tensor<1x1xsi32> position_ids:tensor<1x1xsi32> in_step:tensor<1xsi32> causal_mask:tensor<1x256x1x1xf16> key_cache:tensor<1x1x16x1x256xf16>:state value_cache:tensor<1x1x16x1x256xf16>:state conv_state:tensor<3x1x4x48xf16>:state rec_state:tensor<3x1x2x8x8xf16>:state",
			"key_cache:tensor<1x1x16x1x256xf16>:state value_cache:tensor<1x1x16x1x256xf16>:state conv_state:tensor<3x1x4x48xf16>:state rec_state:tensor<3x1x2x8x8xf16>:state logits:tensor<1x1x256xf16>"},
		{ArmC,
			"input_ids:tensor<1x1xsi32> position_ids:tensor<1x1xsi32> in_step:tensor<1xsi32> causal_mask:tensor<1x256x1x1xf16> key_cache:tensor<1x1x16x1x256xf16>:state value_cache:tensor<1x1x16x1x256xf16>:state conv_state:tensor<5x1x4x48xf16> rec_state:tensor<5x1x2x8x8xf16>",
			"key_cache:tensor<1x1x16x1x256xf16>:state value_cache:tensor<1x1x16x1x256xf16>:state logits:tensor<1x1x256xf16> new_conv_state:tensor<5x1x4x48xf16> new_rec_state:tensor<5x1x2x8x8xf16>"},
	}
	for _, c := range cases {
		g := gen(t, Options{Arm: c.arm}).Graph("main")
		if g == nil {
			t.Fatalf("arm %s: no @main", c.arm)
		}
		if got := strings.Join(portSig(g.Inputs()), " "); got != c.ins {
			t.Errorf("arm %s inputs:\n got %s\nwant %s", c.arm, got, c.ins)
		}
		if got := strings.Join(portSig(g.Outputs()), " "); got != c.outs {
			t.Errorf("arm %s outputs:\n got %s\nwant %s", c.arm, got, c.outs)
		}
	}
}

// fp32 island: per gated-delta layer, six f16→f32 `_to_copy` casts at
// models/macos/qwen3_5.py:199 called from qwen3_5_ios.py:290, and the two
// casts back at :208/:209 — the op ids and sources the compiler cites.
func TestRecurrenceIsland(t *testing.T) {
	for _, c := range []struct {
		o   Options
		lin int
	}{{Options{Arm: ArmA}, 3}, {Options{Arm: ArmC}, 5}, {Options{Arm: ArmA, Layers: 24, Ctx: 64}, 18}} {
		m := gen(t, c.o)
		in, back, other := 0, 0, 0
		ids := map[string]bool{}
		m.Walk(func(op *graph.Operation) bool {
			if op.Name != "coreai.cast" {
				return true
			}
			from, to := elemOf(op.Operand(0)), elemOf(op.Result(0))
			src := graph.ShortSource(op.Loc)
			if !strings.HasPrefix(op.OpID(), "_to_copy") {
				t.Errorf("cast %s has op id %q, want _to_copy*", op.Describe(), op.OpID())
			}
			ids[op.OpID()] = true
			switch {
			case src == "macos/qwen3_5.py:199" && graph.IsFloat(from, "f16") && graph.IsFloat(to, "f32"):
				if !hasFrame(op.Loc, fileIOS, lineRecurrence) {
					t.Errorf("%s lacks the qwen3_5_ios.py:290 caller frame", op.Describe())
				}
				in++
			case (src == "macos/qwen3_5.py:208" || src == "macos/qwen3_5.py:209") && graph.IsFloat(to, "f16"):
				back++
			default:
				other++
			}
			return true
		})
		if in != 6*c.lin || back != 2*c.lin {
			t.Errorf("%+v: %d casts in and %d back at the recurrence, want %d and %d", c.o, in, back, 6*c.lin, 2*c.lin)
		}
		if other == 0 {
			t.Errorf("%+v: no norm/RoPE casts outside the recurrence", c.o)
		}
		if len(ids) != in+back+other {
			t.Errorf("%+v: op ids not unique: %d ids for %d casts", c.o, len(ids), in+back+other)
		}
	}
}

func hasFrame(l graph.Loc, file string, line int) bool {
	f, ok := l.(*graph.FusedLoc)
	if !ok {
		return false
	}
	for _, c := range f.Locs[1:] {
		if fl, ok := c.(*graph.FileLoc); ok && fl.File == file && fl.Line == line {
			return true
		}
	}
	return false
}

func TestResidualAdds(t *testing.T) {
	m := gen(t, Options{Arm: ArmA, Layers: 8})
	got := map[string]int{}
	m.Walk(func(op *graph.Operation) bool {
		if src := graph.ShortSource(op.Loc); strings.HasPrefix(src, "ios/qwen3_5_ios.py:33") && op.Name == "coreai.decomposable.broadcasting_add" {
			if !strings.HasPrefix(op.OpID(), "add") {
				t.Errorf("residual %s has op id %q", op.Describe(), op.OpID())
			}
			got[src]++
		}
		return true
	})
	want := map[string]int{"ios/qwen3_5_ios.py:330": 6, "ios/qwen3_5_ios.py:331": 2, "ios/qwen3_5_ios.py:332": 6, "ios/qwen3_5_ios.py:333": 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("residual adds by source = %v, want %v", got, want)
	}
}

// expand_dims touching graph I/O: on position_ids and input_ids, and on
// every state update before its slice_update.
func TestIOExpandDims(t *testing.T) {
	g := gen(t, Options{Arm: ArmA}).Graph("main")
	args := map[*graph.Value]string{}
	for i, p := range g.Inputs() {
		args[g.Body().Arg(i)] = p.Name
	}
	onInput := map[string]bool{}
	feedsUpdate := 0
	for _, op := range g.Body().Ops() {
		if op.Name != "coreai.expand_dims" {
			continue
		}
		if n, ok := args[op.Operand(0)]; ok {
			onInput[n] = true
		}
		for _, u := range op.Result(0).Uses() {
			if u.Op.Name == "coreai.slice_update" && u.Index == 1 {
				feedsUpdate++
			}
		}
	}
	if !onInput["input_ids"] || !onInput["position_ids"] {
		t.Errorf("expand_dims on inputs: %v, want input_ids and position_ids", onInput)
	}
	// 3 linear layers × (conv + rec) + 1 full layer × (k + v).
	if feedsUpdate != 8 {
		t.Errorf("%d expand_dims feed a state write, want 8", feedsUpdate)
	}
}

func TestTiedHead(t *testing.T) {
	m := gen(t, Options{Arm: ArmA})
	users := 0
	m.Walk(func(op *graph.Operation) bool {
		if r, ok := op.Inherent("value").(*graph.DenseResourceAttr); ok && r.Key == "model.embed_tokens.weight" {
			users += len(op.Result(0).Uses())
			if s := r.Type.Shape; s[0] != int64(qwen35Tiny.Vocab) || s[1] != int64(qwen35Tiny.Hidden) {
				t.Errorf("embedding shape %v", s)
			}
		}
		return true
	})
	if users != 2 {
		t.Errorf("embedding constant has %d users, want 2 (gather and lm_head)", users)
	}
}

func TestArmE(t *testing.T) {
	m := gen(t, Options{Arm: ArmE})
	var names []string
	for _, g := range m.Graphs() {
		names = append(names, g.Name())
	}
	want := denseFunctionNames(1024)
	if len(want) != 19 || strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("graphs = %v, want the 19 %v", names, want)
	}
	m.Walk(func(op *graph.Operation) bool {
		for _, r := range op.Results() {
			if e := elemOf(r); graph.BitWidth(e) == 32 && graph.IsFloat(e, "f32") {
				t.Errorf("f32 value from %s", op.Describe())
			}
		}
		return true
	})
	g := m.Graph("extend_512_16")
	if got := strings.Join(portSig(g.Outputs()), " "); got != "new_k_cache:tensor<2x1x16x1x512xf16>:state new_v_cache:tensor<2x1x16x1x512xf16>:state out_logits:tensor<1x1x16x256xf16>" {
		t.Errorf("extend_512_16 outputs: %s", got)
	}
	if in := g.Inputs()[4]; in.StateOutput != "new_k_cache" {
		t.Errorf("key_cache state output %q", in.StateOutput)
	}
	// All functions share the weights: one resource per parameter.
	keys := map[string]int{}
	for _, r := range m.Resources {
		keys[r.Key]++
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("resource %s appears %d times", k, n)
		}
	}
}

func TestOptionsErrors(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{}, "no arm"},
		{Options{Arm: 'Z'}, "no arm"},
		{Options{Arm: ArmA, Scale: "huge"}, `unknown --scale value "huge"`},
		{Options{Arm: ArmA, Layers: -1}, "out of range"},
		{Options{Arm: ArmA, Ctx: 1}, "out of range"},
		{Options{Arm: ArmE, Ctx: 100}, "out of range"},
	}
	for _, c := range cases {
		_, err := Generate(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Generate(%+v) = %v, want error containing %q", c.o, err, c.want)
		}
	}
	if _, err := ParseArm("F"); err == nil {
		t.Error("ParseArm(F) accepted")
	}
	if a, err := ParseArm("b"); err != nil || a != ArmB {
		t.Errorf("ParseArm(b) = %v, %v", a, err)
	}
}

// Layer counts and the layer pattern: every 4th layer is full attention.
func TestLayerPattern(t *testing.T) {
	for _, n := range []int{1, 3, 4, 7, 24} {
		m := gen(t, Options{Arm: ArmA, Layers: n, Ctx: 32})
		var lin, full []int
		for _, r := range m.Resources {
			var i int
			if _, err := fmt.Sscanf(r.Key, "model.layers.%d.", &i); err != nil {
				continue
			}
			switch {
			case strings.HasSuffix(r.Key, "in_proj_all.weight"):
				lin = append(lin, i)
			case strings.HasSuffix(r.Key, "q_proj.weight"):
				full = append(full, i)
			}
		}
		sort.Ints(lin)
		sort.Ints(full)
		for _, i := range full {
			if i%4 != 3 {
				t.Errorf("layers=%d: layer %d is full attention", n, i)
			}
		}
		if len(lin)+len(full) != n || len(full) != n/4 {
			t.Errorf("layers=%d: %d linear %d full", n, len(lin), len(full))
		}
	}
}

// Arm D is arm A after the arm-d pass: the recurrence, per-head SDPA and
// RoPE are gone (so is the recurrence's f32), while projections, norms,
// state writes and the tied head stay, and the signature is A's.
func TestArmD(t *testing.T) {
	a := gen(t, Options{Arm: ArmA}).Graph("main")
	dm := gen(t, Options{Arm: ArmD})
	d := dm.Graph("main")
	if x, y := strings.Join(portSig(a.Inputs()), " "), strings.Join(portSig(d.Inputs()), " "); x != y {
		t.Errorf("inputs differ:\nA %s\nD %s", x, y)
	}
	if x, y := strings.Join(portSig(a.Outputs()), " "), strings.Join(portSig(d.Outputs()), " "); x != y {
		t.Errorf("outputs differ:\nA %s\nD %s", x, y)
	}
	count := map[string]int{}
	normF32 := 0
	dm.Walk(func(op *graph.Operation) bool {
		count[op.Name]++
		src := graph.ShortSource(op.Loc)
		switch {
		case hasFrame(op.Loc, fileIOS, lineRecurrence), src == "macos/qwen3_5.py:199":
			t.Errorf("recurrence op left: %s", op.Describe())
		case hasFrame(op.Loc, fileIOS, lineSDPA) && !strings.HasPrefix(op.OpID(), "anefix"):
			t.Errorf("SDPA op left: %s", op.Describe())
		case hasFrame(op.Loc, fileIOS, lineRopeQ), hasFrame(op.Loc, fileIOS, lineRopeK):
			t.Errorf("RoPE op left: %s", op.Describe())
		}
		if op.Name == "coreai.cast" && graph.IsFloat(elemOf(op.Result(0)), "f32") && strings.HasPrefix(src, "ios/qwen3_5_ios.py:") {
			normF32++
		}
		return true
	})
	// 3 linear layers × (conv + rec) + 1 full layer × (k + v).
	if count["coreai.slice_update"] != 8 {
		t.Errorf("%d state writes, want 8", count["coreai.slice_update"])
	}
	// Projections: in_proj + out_proj per linear layer, q/k/v/o per full
	// layer, 3 per MLP.
	if want := 3*2 + 4 + 4*3; count["coreai.conv2d"] != want {
		t.Errorf("%d conv2d, want %d", count["coreai.conv2d"], want)
	}
	if normF32 == 0 {
		t.Error("the local fp32 norm chains are gone; arm D keeps norms")
	}
	keys := map[string]bool{}
	dm.Walk(func(op *graph.Operation) bool {
		if r, ok := op.Inherent("value").(*graph.DenseResourceAttr); ok {
			keys[r.Key] = true
		}
		return true
	})
	for _, k := range []string{"model.embed_tokens.weight", "model.norm.weight", "model.layers.0.linear_attn.in_proj_all.weight", "model.layers.3.self_attn.o_proj.weight"} {
		if !keys[k] {
			t.Errorf("weight %s dropped", k)
		}
	}
	if keys["model.layers.0.linear_attn.A_log"] {
		t.Error("A_log still read although only the removed recurrence used it")
	}
}

// The handle state form: every state input becomes !coreai.handle<T> read
// once with read_handle, written once with write_handle, and its output
// returns the write's !coreai.token; non-state I/O is untouched.
func TestHandleStates(t *testing.T) {
	for _, c := range []struct {
		arm    Arm
		states int
	}{{ArmA, 2}, {ArmB, 4}, {ArmD, 2}, {ArmE, 2}} {
		m := gen(t, Options{Arm: c.arm, StateForm: StateHandle})
		for _, g := range m.Graphs() {
			if strings.HasPrefix(g.Name(), "gather_embeddings") {
				continue
			}
			n := 0
			for _, in := range g.Inputs() {
				if in.IsState {
					n++
					if !graph.IsHandleType(in.Type) || !strings.HasPrefix(in.Type.String(), "!coreai.handle<tensor<") {
						t.Errorf("arm %s @%s: state %s has type %s", c.arm, g.Name(), in.Name, in.Type)
					}
				} else if graph.IsHandleType(in.Type) {
					t.Errorf("arm %s @%s: non-state %s became a handle", c.arm, g.Name(), in.Name)
				}
			}
			tokens := 0
			for _, out := range g.Outputs() {
				if out.Type.String() == "!coreai.token" {
					tokens++
				}
			}
			count := map[string]int{}
			for _, op := range g.Body().Ops() {
				count[op.Name]++
			}
			if n != c.states || tokens != c.states || count["coreai.read_handle"] != c.states ||
				count["coreai.write_handle"] != c.states || count["coreai.create_token"] != 1 {
				t.Errorf("arm %s @%s: %d state inputs, %d token outputs, ops %v", c.arm, g.Name(), n, tokens, count)
			}
		}
	}
	if _, err := Generate(Options{Arm: ArmA, StateForm: "ref"}); err == nil || !strings.Contains(err.Error(), `unknown --state-form value "ref"`) {
		t.Errorf("bad state form: %v", err)
	}
}

// --recurrence composite: every gated-delta layer calls one private
// gated_delta_update composite (coreai-torch's declaration), which holds
// the f32 island; arm D removes the calls and the composite.
func TestCompositeRecurrence(t *testing.T) {
	m := gen(t, Options{Arm: ArmA, Recurrence: RecurrenceComposite})
	gs := m.Graphs()
	if len(gs) != 2 || gs[1].Name() != gduGraph || gs[1].Visibility() != "private" {
		t.Fatalf("graphs %v", gs)
	}
	decl, _ := gs[1].CompositeDecl().(*graph.OpaqueAttr)
	if decl == nil || !strings.Contains(decl.Text, `"gated_delta_update" = {input_names = ["query", "key", "value", "g", "beta", "initial_state"], op_attrs = {use_qk_l2_norm = true, version = 1 : si64}, output_names = ["output_0", "output_1"]}`) {
		t.Errorf("composite_decl = %v", gs[1].CompositeDecl())
	}
	main := gs[0]
	if c := main.Composites(); len(c) != 1 || c[0] != gduGraph {
		t.Errorf("main invokes %v", c)
	}
	invokes, casts := 0, 0
	m.Walk(func(op *graph.Operation) bool {
		switch op.Name {
		case "coreai.invoke":
			invokes++
			if op.OpID() != "gated_delta_update" && !strings.HasPrefix(op.OpID(), "gated_delta_update_") {
				t.Errorf("invoke op id %q", op.OpID())
			}
		case "coreai.cast":
			if graph.ShortSource(op.Loc) == "macos/qwen3_5.py:199" {
				t.Errorf("inline recurrence cast left: %s", op.Describe())
			}
			if strings.HasPrefix(graph.ShortSource(op.Loc), "composite_ops/_gated_delta_update.py:") && graph.IsFloat(elemOf(op.Result(0)), "f32") {
				casts++
			}
		}
		return true
	})
	if invokes != 3 || casts != 6 {
		t.Errorf("%d invokes (want 3, one per gated-delta layer), %d f32 casts in the composite (want 6)", invokes, casts)
	}
	d := gen(t, Options{Arm: ArmD, Recurrence: RecurrenceComposite})
	if len(d.Graphs()) != 1 || len(d.Graphs()[0].Composites()) != 0 {
		t.Errorf("arm D keeps composites: %v", d.Graphs()[0].Composites())
	}
	if _, err := Generate(Options{Arm: ArmE, Recurrence: RecurrenceComposite}); err == nil {
		t.Error("arm E accepted --recurrence composite")
	}
	if _, err := Generate(Options{Arm: ArmA, Recurrence: "loop"}); err == nil {
		t.Error("unknown recurrence accepted")
	}
}
