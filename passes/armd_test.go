package passes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// adLoc builds a coreai-torch style location: the FX name around the
// innermost frame, then the caller frames (innermost first).
func adLoc(id string, frames ...string) graph.Loc {
	var locs []graph.Loc
	for i, f := range frames {
		j := strings.LastIndexByte(f, ':')
		var line int
		fmt.Sscan(f[j+1:], &line)
		var l graph.Loc = &graph.FileLoc{File: "/src/" + f[:j], Line: line}
		if i == 0 {
			l = &graph.NameLoc{Name: id, Child: l}
		}
		locs = append(locs, l)
	}
	return &graph.FusedLoc{Locs: locs}
}

func adOp(g *graph.Graph, name string, loc graph.Loc, operands []*graph.Value, results ...graph.Type) *graph.Operation {
	op := graph.NewOp(name, operands, results, nil, loc)
	op.InsertBefore(g.Terminator())
	return op
}

const (
	adIOS = "models/ios/qwen3_5_ios.py"
	adMac = "models/macos/qwen3_5.py"
)

// adRecurrence builds a one-layer stand-in of synth's recurrence: q, k, v,
// state slice cast to f32 at qwen3_5.py:199 (called from
// qwen3_5_ios.py:290), an update, o and the new state cast back, then the
// state write (slice_update, outside the region) and an output projection.
func adRecurrence() (*tbGraph, map[string]*graph.Operation) {
	f16, f32 := graph.F16, graph.F32
	tg := tbModule("main",
		tbPort{"x", tbT(f16, 1, 1, 2, 4), ""},
		tbPort{"rec_state", tbT(f16, 1, 1, 2, 4, 4), ""})
	g := tg.g
	ops := map[string]*graph.Operation{}
	at := func(id, name string, frames []string, operands []*graph.Value, res ...graph.Type) *graph.Value {
		op := adOp(g, name, adLoc(id, frames...), operands, res...)
		ops[id] = op
		return op.Result(0)
	}
	in := []string{adIOS + ":210"}
	step := func(line int) []string {
		return []string{fmt.Sprintf("%s:%d", adMac, line), adIOS + ":290", adIOS + ":328"}
	}
	// Outside: q, k, v from x; the layer's state slice.
	q := at("mul", "coreai.mul", in, []*graph.Value{tg.arg(0), tg.arg(0)}, tbT(f16, 1, 1, 2, 4))
	k := at("mul_1", "coreai.mul", in, []*graph.Value{q, tg.arg(0)}, tbT(f16, 1, 1, 2, 4))
	v := at("exp", "coreai.exp", in, []*graph.Value{tg.arg(0)}, tbT(f16, 1, 1, 2, 4))
	bgn := tbConstI(g, tg.m, graph.SI32, 0, 0, 0, 0, 0)
	end := tbConstI(g, tg.m, graph.SI32, 1, 1, 2, 4, 4)
	s := at("select", "coreai.slice", []string{adIOS + ":287"}, []*graph.Value{tg.arg(1), bgn, end, bgn}, tbT(f16, 1, 1, 2, 4, 4))
	s4 := at("squeeze", "coreai.shrink_dims", []string{adIOS + ":287"}, []*graph.Value{s, tbConstI(g, tg.m, graph.SI32, 0)}, tbT(f16, 1, 2, 4, 4))
	// The region.
	q32 := at("_to_copy", "coreai.cast", step(199), []*graph.Value{q}, tbT(f32, 1, 1, 2, 4))
	k32 := at("_to_copy_1", "coreai.cast", step(199), []*graph.Value{k}, tbT(f32, 1, 1, 2, 4))
	v32 := at("_to_copy_2", "coreai.cast", step(199), []*graph.Value{v}, tbT(f32, 1, 1, 2, 4))
	s32 := at("_to_copy_3", "coreai.cast", step(199), []*graph.Value{s4}, tbT(f32, 1, 2, 4, 4))
	kv := at("mul_2", "coreai.mul", step(204), []*graph.Value{k32, v32}, tbT(f32, 1, 1, 2, 4))
	perm := at("permute", "coreai.reshape", step(201), []*graph.Value{kv, tbConstI(g, tg.m, graph.UI32, 1, 2, 1, 4)}, tbT(f32, 1, 2, 1, 4))
	ns := at("add", "coreai.add", step(206), []*graph.Value{s32, perm}, tbT(f32, 1, 2, 4, 4))
	o := at("matmul", "coreai.matmul", step(207), []*graph.Value{q32, ns}, tbT(f32, 1, 2, 1, 4))
	o16 := at("_to_copy_4", "coreai.cast", step(208), []*graph.Value{o}, tbT(f16, 1, 2, 1, 4))
	ns16 := at("_to_copy_5", "coreai.cast", step(209), []*graph.Value{ns}, tbT(f16, 1, 2, 4, 4))
	// Outside: state write and the rest of the layer.
	nu := at("unsqueeze", "coreai.expand_dims", []string{adIOS + ":292"}, []*graph.Value{ns16, tbConstI(g, tg.m, graph.SI32, 0)}, tbT(f16, 1, 1, 2, 4, 4))
	rec := at("immutable_slice_update", "coreai.slice_update", []string{adIOS + ":292"}, []*graph.Value{tg.arg(1), nu, bgn, end, bgn}, tbT(f16, 1, 1, 2, 4, 4))
	y := at("exp_1", "coreai.exp", []string{adIOS + ":294"}, []*graph.Value{o16}, tbT(f16, 1, 2, 1, 4))
	tg.out(y, "logits")
	tg.out(rec, "new_rec_state")
	return tg, ops
}

func TestArmDInlineRecurrence(t *testing.T) {
	tg, ops := adRecurrence()
	tbVerify(t, tg.m, "built")
	ch, err := ArmD(tg.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbVerify(t, tg.m, "after arm-d")
	// Every op of the region is gone and reported by op id.
	var ids []string
	for _, r := range ch.Replaced {
		ids = append(ids, r.OpID)
		if r.Graph != "main" || !strings.Contains(r.Source, "qwen3_5.py") {
			t.Errorf("replaced ref %+v", r)
		}
	}
	want := "_to_copy _to_copy_1 _to_copy_2 _to_copy_3 mul_2 permute add matmul _to_copy_4 _to_copy_5"
	if strings.Join(ids, " ") != want {
		t.Errorf("replaced %q, want %q", strings.Join(ids, " "), want)
	}
	for _, id := range strings.Fields(want) {
		if !ops[id].IsErased() {
			t.Errorf("%s not erased", id)
		}
	}
	// No f32 remains; the state write and the projection stay.
	tg.m.Walk(func(op *graph.Operation) bool {
		for _, r := range op.Results() {
			if strings.Contains(r.Type().String(), "f32") {
				t.Errorf("f32 value remains: %s", op.Describe())
			}
		}
		return true
	})
	for _, id := range []string{"immutable_slice_update", "unsqueeze", "exp_1", "select", "squeeze"} {
		if ops[id].IsErased() {
			t.Errorf("%s (outside the region) was erased", id)
		}
	}
	// The new state is the old slice itself; o is a reshape of v (the
	// latest same-size input), never a constant.
	if got := ops["unsqueeze"].Operand(0); got != ops["squeeze"].Result(0) {
		t.Errorf("state write reads %v, want the state slice", adValueName(got))
	}
	r := ops["exp_1"].Operand(0).DefiningOp()
	if r == nil || r.Name != "coreai.reshape" || r.Operand(0) != ops["exp"].Result(0) || r.OpID() != adLocName {
		t.Errorf("o replaced by %v, want arm-d's reshape of v\n%s", r, tbDump(tg.m))
	}
	// q and k fed only the region: pruned. v is still used (by the reshape).
	if !ops["mul"].IsErased() || !ops["mul_1"].IsErased() || ops["exp"].IsErased() {
		t.Errorf("pruning: mul erased %v, mul_1 %v, exp %v", ops["mul"].IsErased(), ops["mul_1"].IsErased(), ops["exp"].IsErased())
	}
	if ch.OpsAdded != 2 {
		t.Errorf("added %d ops, want 2 (shape constant + reshape)", ch.OpsAdded)
	}
	// Idempotent: a second run finds nothing and changes nothing.
	before := tbDump(tg.m)
	ch2, err := ArmD(tg.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tbDump(tg.m) != before || len(ch2.Replaced) != 0 || ch2.OpsRemoved != 0 {
		t.Errorf("second run changed the IR: %+v", ch2)
	}
	if len(ch2.Notes) != 1 || !strings.Contains(ch2.Notes[0], "nothing matched") {
		t.Errorf("second run notes %q", ch2.Notes)
	}
}

// Regions by op id glob instead of frames: only the matching ops form the
// region (here the two casts back, each its own region).
func TestArmDRegionsByOpID(t *testing.T) {
	tg, ops := adRecurrence()
	ch, err := ArmD(tg.m, with(func(o *ArmDOptions) {
		o.Regions, o.Prune = []ArmDKind{{"recurrence", []string{"id:_to_copy_[45]"}}}, false
	}))
	if err != nil {
		t.Fatal(err)
	}
	tbVerify(t, tg.m, "after")
	var ids []string
	for _, r := range ch.Replaced {
		ids = append(ids, r.OpID)
	}
	if strings.Join(ids, " ") != "_to_copy_4 _to_copy_5" || !ops["_to_copy_4"].IsErased() || ops["matmul"].IsErased() {
		t.Errorf("replaced %q", ids)
	}
	// Each cast back is replaced from its own f32 input, cast to f16.
	if d := ops["exp_1"].Operand(0).DefiningOp(); d == nil || d.Name != "coreai.cast" || d.Operand(0) != ops["matmul"].Result(0) {
		t.Errorf("o now from %v\n%s", d, tbDump(tg.m))
	}
}

func TestArmDPruneOff(t *testing.T) {
	tg, ops := adRecurrence()
	if _, err := ArmD(tg.m, with(func(o *ArmDOptions) { o.Prune = false })); err != nil {
		t.Fatal(err)
	}
	tbVerify(t, tg.m, "after")
	if ops["mul"].IsErased() {
		t.Errorf("prune=false erased q's producer")
	}
}

func TestArmDReplaceSubset(t *testing.T) {
	tg, _ := adRecurrence()
	ch, err := ArmD(tg.m, with(func(o *ArmDOptions) { o.Replace = []string{"sdpa", "rope"} }))
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Replaced) != 0 || ch.OpsRemoved != 0 {
		t.Errorf("recurrence replaced though not selected: %+v", ch)
	}
}

// A composite call (coreai-torch's gated_delta_update, sdpa, rope): the
// invoke is replaced, the callee deleted; an rms_norm composite stays.
func TestArmDComposites(t *testing.T) {
	f16 := graph.F16
	q, v, st := tbT(f16, 1, 2, 1, 4), tbT(f16, 1, 2, 1, 4), tbT(f16, 1, 2, 4, 4)
	out := tbT(f16, 1, 1, 2, 4)
	tg := tbModule("main", tbPort{"q", q, ""}, tbPort{"v", v, ""}, tbPort{"s", st, ""})
	gd := tbAddGraph(tg.m, "gated_delta_update_0", "private", tbPort{"query", q, ""}, tbPort{"value", v, ""}, tbPort{"initial_state", st, ""})
	gd.Op.SetAttr(graph.AttrCompositeDec, &graph.OpaqueAttr{Text: `#coreai.composite_declaration<"gated_delta_update" = {input_names = ["query", "value", "initial_state"], op_attrs = {version = 1 : si64}, output_names = ["output_0", "output_1"]}>`})
	r := tbOpIn(gd, "coreai.reshape", "", "", []*graph.Value{gd.Body().Arg(1), tbConstI(gd, tg.m, graph.UI32, 1, 1, 2, 4)}, out)
	tbOut(gd, r.Result(0), "output_0")
	tbOut(gd, gd.Body().Arg(2), "output_1")
	norm := tbAddGraph(tg.m, "norm.rms_norm", "private", tbPort{"input", q, ""})
	norm.Op.SetAttr(graph.AttrCompositeDec, &graph.OpaqueAttr{Text: `#coreai.composite_declaration<"rms_norm" = {input_names = ["input"], output_names = ["output"]}>`})
	tbOut(norm, norm.Body().Arg(0), "output")
	// sdpa by symbol name only (no composite_decl).
	sd := tbAddGraph(tg.m, "attn.sdpa_3", "private", tbPort{"q", q, ""}, tbPort{"v", v, ""})
	tbOut(sd, sd.Body().Arg(0), "o")

	inv := tbOpIn(tg.g, "coreai.invoke", "gated_delta_update", "", []*graph.Value{tg.arg(0), tg.arg(1), tg.arg(2)}, out, st)
	inv.SetAttr("callee", &graph.SymbolRefAttr{Root: "gated_delta_update_0"})
	nrm := tbOpIn(tg.g, "coreai.invoke", "rms_norm", "", []*graph.Value{tg.arg(0)}, q)
	nrm.SetAttr("callee", &graph.SymbolRefAttr{Root: "norm.rms_norm"})
	at := tbOpIn(tg.g, "coreai.invoke", "sdpa", "", []*graph.Value{nrm.Result(0), tg.arg(1)}, q)
	at.SetAttr("callee", &graph.SymbolRefAttr{Root: "attn.sdpa_3"})
	tg.out(inv.Result(0), "o")
	tg.out(inv.Result(1), "s_out")
	tg.out(at.Result(0), "a")
	tg.out(nrm.Result(0), "n")
	// rope(x, cos): same types; the input named x is preferred over the
	// later cos.
	rp := tbAddGraph(tg.m, "rope_2", "private", tbPort{"x", q, ""}, tbPort{"cos", q, ""})
	rp.Op.SetAttr(graph.AttrCompositeDec, &graph.OpaqueAttr{Text: `#coreai.composite_declaration<"rope" = {input_names = ["x", "cos"], output_names = ["output"]}>`})
	tbOut(rp, rp.Body().Arg(1), "output")
	ro := tbOpIn(tg.g, "coreai.invoke", "rope", "", []*graph.Value{tg.arg(0), nrm.Result(0)}, q)
	ro.SetAttr("callee", &graph.SymbolRefAttr{Root: "rope_2"})
	tg.out(ro.Result(0), "r")
	tbVerify(t, tg.m, "built")

	ch, err := ArmD(tg.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbVerify(t, tg.m, "after")
	var ids []string
	for _, r := range ch.Replaced {
		ids = append(ids, r.OpID)
	}
	term := tg.g.Terminator()
	if term.Operand(4) != tg.arg(0) {
		t.Errorf("rope output is %s, want its x input", adValueName(term.Operand(4)))
	}
	if strings.Join(ids, " ") != "gated_delta_update sdpa rope" {
		t.Errorf("replaced %q", ids)
	}
	if tg.m.Graph("gated_delta_update_0") != nil || tg.m.Graph("attn.sdpa_3") != nil || tg.m.Graph("norm.rms_norm") == nil {
		t.Errorf("composite graphs after: %v", tbDump(tg.m))
	}
	if term.Operand(1) != tg.arg(2) {
		t.Errorf("new state is %s, want the initial state", adValueName(term.Operand(1)))
	}
	if d := term.Operand(0).DefiningOp(); d == nil || d.Name != "coreai.reshape" || d.Operand(0) != tg.arg(1) {
		t.Errorf("output_0 not a reshape of value: %s", tbDump(tg.m))
	}
	if term.Operand(2) != tg.arg(1) {
		t.Errorf("sdpa output is %s, want its value input (same type as q; value is preferred)", adValueName(term.Operand(2)))
	}
	if nrm.IsErased() {
		t.Errorf("rms_norm invoke was removed")
	}
}

// adDerive builds pass-throughs of every tier on a scratch graph and checks
// the result has exactly the wanted type and the IR verifies.
func TestArmDDerive(t *testing.T) {
	cases := []struct {
		from, to *graph.TensorType
		tier     int
		ops      string
	}{
		{tbT(graph.F16, 2, 4), tbT(graph.F16, 2, 4), 1, ""},
		{tbT(graph.F16, 2, 4), tbT(graph.F16, 4, 2), 2, "coreai.constant coreai.reshape"},
		{tbT(graph.F32, 2, 4), tbT(graph.F16, 8), 3, "coreai.cast coreai.constant coreai.reshape"},
		{tbT(graph.F16, 3, 4), tbT(graph.F16, 5), 4, "coreai.constant coreai.reshape coreai.constant coreai.constant coreai.constant coreai.slice"},
		{tbT(graph.F16, 3), tbT(graph.F16, 2, 4), 6, "coreai.constant coreai.concat coreai.constant coreai.constant coreai.constant coreai.slice coreai.constant coreai.reshape"},
		{tbT(graph.SI32, 2), tbT(graph.F16, 2, 2), 7, "coreai.cast coreai.constant coreai.concat coreai.constant coreai.reshape"},
	}
	for _, c := range cases {
		tg := tbModule("main", tbPort{"x", c.from, ""})
		b := &adBuilder{m: tg.m, before: tg.g.Terminator(), loc: graph.Unknown}
		if got, tier := adPick([]*graph.Value{tg.arg(0)}, c.to, nil); got != tg.arg(0) || tier != c.tier {
			t.Errorf("%s→%s: tier %d, want %d", c.from, c.to, tier, c.tier)
		}
		v, err := b.derive(tg.arg(0), c.to)
		if err != nil {
			t.Fatal(err)
		}
		if !graph.TypeEqual(v.Type(), c.to) {
			t.Errorf("%s→%s: got %s", c.from, c.to, v.Type())
		}
		tg.out(v, "y")
		tbVerify(t, tg.m, c.from.String()+"→"+c.to.String())
		var names []string
		for _, op := range tg.g.Body().Ops() {
			if op.Name != "coreai.output" {
				names = append(names, op.Name)
			}
		}
		if strings.Join(names, " ") != c.ops {
			t.Errorf("%s→%s: ops %q, want %q", c.from, c.to, strings.Join(names, " "), c.ops)
		}
	}
}

func TestArmDErrors(t *testing.T) {
	cases := []struct {
		name string
		opts *ArmDOptions
		want string
	}{
		{"unknown kind", with(func(o *ArmDOptions) { o.Replace = []string{"mlp"} }), `arm-d: option replace: "mlp" is not recurrence, rope or sdpa (the kinds options composites and regions name)`},
		{"bad frame", with(func(o *ArmDOptions) { o.Regions = []ArmDKind{{"recurrence", []string{"x.py:abc"}}} }), `arm-d: option regions: frame "x.py:abc"`},
		{"bad kind list", with(func(o *ArmDOptions) { o.Composites = []ArmDKind{{Kind: "rope"}} }), `arm-d: option composites: "rope=" is not kind=a|b`},
	}
	for _, c := range cases {
		tg, _ := adRecurrence()
		if _, err := ArmD(tg.m, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	// A region whose external result depends on no input (a constant
	// computation) has no pass-through: refused, naming the region.
	tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
	c := adOp(tg.g, "coreai.constant", adLoc("rope", adIOS+":141"), nil, tbT(graph.F16, 4))
	c.SetAttr("value", &graph.DenseElementsAttr{Type: tbT(graph.F16, 4), Raw: make([]byte, 2), Splat: true})
	e := adOp(tg.g, "coreai.exp", adLoc("rope_1", adIOS+":142"), []*graph.Value{c.Result(0)}, tbT(graph.F16, 4))
	tg.out(e.Result(0), "y")
	tbVerify(t, tg.m, "built")
	if _, err := ArmD(tg.m, nil); err == nil || !strings.Contains(err.Error(), "rope region in @main") || !strings.Contains(err.Error(), "depends on no usable region input") {
		t.Errorf("err = %v", err)
	}
}

func TestAdParseFrame(t *testing.T) {
	cases := []struct {
		in   string
		file string
		line int
		want bool
	}{
		{"ios/qwen3_5_ios.py:290", "/a/models/ios/qwen3_5_ios.py", 290, true},
		{"ios/qwen3_5_ios.py:290", "/a/models/ios/qwen3_5_ios.py", 291, false},
		{"ios/qwen3_5_ios.py:140-147", "/a/models/ios/qwen3_5_ios.py", 147, true},
		{"ios/qwen3_5_ios.py:140-147", "/a/models/xios/qwen3_5_ios.py", 147, false},
		{"primitives/ios/sdpa.py", "/x/primitives/ios/sdpa.py", 12, true},
		{"sdpa.py", "/x/primitives/ios/sdpa.py", 12, true},
		{"sdpa.py", "/x/primitives/ios/my_sdpa.py", 12, false},
	}
	for _, c := range cases {
		f, err := adParseFrame(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.match(&graph.FileLoc{File: c.file, Line: c.line}); got != c.want {
			t.Errorf("%q matches %s:%d = %v", c.in, c.file, c.line, got)
		}
	}
	for _, bad := range []string{":12", "a.py:0", "a.py:9-3", "a.py:x", "id:", "id:[x"} {
		if _, err := adParseFrame(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
