package passes

import (
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// foldIOIdsGather: input_ids unsqueezed into an embedding's gather_nd
// indices.
func foldIOIdsGather() *tbGraph {
	tg := tbModule("main", tbPort{"input_ids", tbT(graph.SI32, 1, 1), ""})
	ax := tg.constI(graph.SI32, 2)
	e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), ax}, tbT(graph.SI32, 1, 1, 1))
	table := tg.constI(graph.UI32, 1, 2, 3)
	gth := tg.op("coreai.gather_nd", "embedding", []*graph.Value{table, e}, tbT(graph.UI32, 1, 1))
	tg.out(gth, "h")
	return tg
}

type foldIOWant struct {
	ins, outs []string // port types after
	removed   int
	added     int
	io        []string // "port before->after" per IOChange
	notes     []string // substrings, one per note
	absent    []string // op names that must be gone
}

type foldIOCase struct {
	name  string
	opts  Options
	build func() *tbGraph
	want  foldIOWant
}

// foldIOCases is a function, not a variable: its options come from the
// pass table, which is filled after package variables are.
func foldIOCases() []foldIOCase {
	return []foldIOCase{
		// An index input (the embedding's gather_nd indices) is not data:
		// its expand_dims stays unless index-inputs=true.
		{"input_ids expand before gather stays", nil, foldIOIdsGather, foldIOWant{ins: []string{"tensor<1x1xsi32>"}, outs: []string{"tensor<1x1xui32>"},
			notes: []string{"@main input input_ids: coreai.expand_dims (unsqueeze) only feeds index operands; not folded (index-inputs=true folds it)"}}},
		{"input_ids expand before gather, index-inputs=true", with(func(o *foldIOUnsqueezeOptions) { o.IndexInputs = true }), foldIOIdsGather, foldIOWant{ins: []string{"tensor<1x1x1xsi32>"}, outs: []string{"tensor<1x1xui32>"}, removed: 1,
			io: []string{"input_ids tensor<1x1xsi32>->tensor<1x1x1xsi32>"}, absent: []string{"coreai.expand_dims"}}},
		// x[idx] lowers to gather_nd(x, reshape(idx)); index_put to
		// scatter_nd(x, vals, cast(reshape(idx))) (coreai-torch's printed
		// tests): the reshapes are index computations too.
		{"reshape then cast feeding scatter_nd indices stays", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"x", tbT(graph.F16, 5, 3), ""}, tbPort{"idx", tbT(graph.SI32, 2), ""}, tbPort{"vals", tbT(graph.F16, 2, 3), ""})
			r := tg.op("coreai.reshape", "view", []*graph.Value{tg.arg(1), tg.constI(graph.UI32, 2, 1)}, tbT(graph.SI32, 2, 1))
			c := tg.op("coreai.cast", "cast", []*graph.Value{r}, tbT(graph.SI32, 2, 1))
			tg.out(tg.op("coreai.scatter_nd", "index_put", []*graph.Value{tg.arg(0), tg.arg(2), c}, tbT(graph.F16, 5, 3)), "y")
			return tg
		}, foldIOWant{ins: []string{"tensor<5x3xf16>", "tensor<2xsi32>", "tensor<2x3xf16>"}, outs: []string{"tensor<5x3xf16>"},
			notes: []string{"@main input idx: coreai.reshape (view) only feeds index operands"}}},
		{"reshape feeding gather_nd data folds", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"x", tbT(graph.F16, 5, 3), ""}, tbPort{"idx", tbT(graph.SI32, 2, 1), ""})
			r := tg.op("coreai.reshape", "view", []*graph.Value{tg.arg(0), tg.constI(graph.UI32, 5, 1, 3)}, tbT(graph.F16, 5, 1, 3))
			tg.out(tg.op("coreai.gather_nd", "index", []*graph.Value{r, tg.arg(1)}, tbT(graph.F16, 2, 1, 3)), "y")
			return tg
		}, foldIOWant{ins: []string{"tensor<5x1x3xf16>", "tensor<2x1xsi32>"}, outs: []string{"tensor<2x1x3xf16>"}, removed: 1,
			io: []string{"x tensor<5x3xf16>->tensor<5x1x3xf16>"}}},
		{"output expand and chain of two input expands", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
			e1 := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			e2 := tg.op("coreai.expand_dims", "unsqueeze_1", []*graph.Value{e1, tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 1, 4))
			y := tg.op("coreai.exp", "exp", []*graph.Value{e2}, tbT(graph.F16, 1, 1, 4))
			s := tg.op("coreai.shrink_dims", "squeeze", []*graph.Value{y, tg.constI(graph.SI32, 0, 1)}, tbT(graph.F16, 4))
			tg.out(s, "y")
			return tg
		}, foldIOWant{ins: []string{"tensor<1x1x4xf16>"}, outs: []string{"tensor<1x1x4xf16>"}, removed: 3,
			io:     []string{"x tensor<4xf16>->tensor<1x1x4xf16>", "y tensor<4xf16>->tensor<1x1x4xf16>"},
			absent: []string{"coreai.expand_dims", "coreai.shrink_dims"}}},
		{"rank-only reshape folds, general reshape does not", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"a", tbT(graph.F16, 2, 6), ""}, tbPort{"b", tbT(graph.F16, 2, 6), ""})
			ra := tg.op("coreai.reshape", "view", []*graph.Value{tg.arg(0), tg.constI(graph.UI32, 2, 1, 6)}, tbT(graph.F16, 2, 1, 6))
			rb := tg.op("coreai.reshape", "view_1", []*graph.Value{tg.arg(1), tg.constI(graph.UI32, 3, 4)}, tbT(graph.F16, 3, 4))
			tg.out(tg.op("coreai.exp", "exp", []*graph.Value{ra}, tbT(graph.F16, 2, 1, 6)), "ya")
			tg.out(tg.op("coreai.exp", "exp_1", []*graph.Value{rb}, tbT(graph.F16, 3, 4)), "yb")
			return tg
		}, foldIOWant{ins: []string{"tensor<2x1x6xf16>", "tensor<2x6xf16>"}, outs: []string{"tensor<2x1x6xf16>", "tensor<3x4xf16>"},
			removed: 1, io: []string{"a tensor<2x6xf16>->tensor<2x1x6xf16>"}}},
		{"other users get an inverse reshape", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
			e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			tg.out(tg.op("coreai.exp", "exp", []*graph.Value{e}, tbT(graph.F16, 1, 4)), "a")
			tg.out(tg.op("coreai.exp", "exp_1", []*graph.Value{tg.arg(0)}, tbT(graph.F16, 4)), "b")
			tg.out(tg.arg(0), "c") // pass-through output keeps its old type
			return tg
		}, foldIOWant{ins: []string{"tensor<1x4xf16>"}, outs: []string{"tensor<1x4xf16>", "tensor<4xf16>", "tensor<4xf16>"},
			removed: 1, added: 2, io: []string{"x tensor<4xf16>->tensor<1x4xf16>"}}},
		{"other users with other-users=skip", with(func(o *foldIOUnsqueezeOptions) { o.OtherUsers = "skip" }), func() *tbGraph {
			tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
			e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			tg.out(tg.op("coreai.exp", "exp", []*graph.Value{e}, tbT(graph.F16, 1, 4)), "a")
			tg.out(tg.op("coreai.exp", "exp_1", []*graph.Value{tg.arg(0)}, tbT(graph.F16, 4)), "b")
			return tg
		}, foldIOWant{ins: []string{"tensor<4xf16>"}, outs: []string{"tensor<1x4xf16>", "tensor<4xf16>"},
			notes: []string{"input x: not folded (coreai.expand_dims (unsqueeze)): 1 other users"}}},
		{"two expands to different shapes: one folds, the other reads the inverse", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
			e1 := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			e2 := tg.op("coreai.expand_dims", "unsqueeze_1", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 1)}, tbT(graph.F16, 4, 1))
			tg.out(tg.op("coreai.exp", "exp", []*graph.Value{e1}, tbT(graph.F16, 1, 4)), "a")
			tg.out(tg.op("coreai.exp", "exp_1", []*graph.Value{e2}, tbT(graph.F16, 4, 1)), "b")
			return tg
		}, foldIOWant{ins: []string{"tensor<1x4xf16>"}, outs: []string{"tensor<1x4xf16>", "tensor<4x1xf16>"},
			removed: 1, added: 2, io: []string{"x tensor<4xf16>->tensor<1x4xf16>"}}},
		{"state pair folds on both sides", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"s", tbT(graph.F16, 4), "s"})
			e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			y := tg.op("coreai.exp", "exp", []*graph.Value{e}, tbT(graph.F16, 1, 4))
			tg.out(tg.op("coreai.shrink_dims", "squeeze", []*graph.Value{y, tg.constI(graph.SI32, 0)}, tbT(graph.F16, 4)), "s")
			return tg
		}, foldIOWant{ins: []string{"tensor<1x4xf16>"}, outs: []string{"tensor<1x4xf16>"}, removed: 2,
			io: []string{"s tensor<4xf16>->tensor<1x4xf16>", "s tensor<4xf16>->tensor<1x4xf16>"}}},
		{"state pair with one side only is left alone", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"s", tbT(graph.F16, 4), "s"})
			e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			y := tg.op("coreai.exp", "exp", []*graph.Value{e}, tbT(graph.F16, 1, 4))
			tg.out(tg.op("coreai.reshape", "view", []*graph.Value{y, tg.constI(graph.UI32, 2, 2)}, tbT(graph.F16, 2, 2)), "junk")
			tg.out(tg.op("coreai.exp", "exp_1", []*graph.Value{tg.arg(0)}, tbT(graph.F16, 4)), "s")
			return tg
		}, foldIOWant{ins: []string{"tensor<4xf16>"}, outs: []string{"tensor<2x2xf16>", "tensor<4xf16>"},
			notes: []string{"state s → s: not folded: only one side"}}},
		{"states=false leaves states alone", with(func(o *foldIOUnsqueezeOptions) { o.States = false }), func() *tbGraph {
			tg := tbModule("main", tbPort{"s", tbT(graph.F16, 4), "s"})
			e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			y := tg.op("coreai.exp", "exp", []*graph.Value{e}, tbT(graph.F16, 1, 4))
			tg.out(tg.op("coreai.shrink_dims", "squeeze", []*graph.Value{y, tg.constI(graph.SI32, 0)}, tbT(graph.F16, 4)), "s")
			return tg
		}, foldIOWant{ins: []string{"tensor<4xf16>"}, outs: []string{"tensor<4xf16>"}}},
		{"ops option restricts the fold", with(func(o *foldIOUnsqueezeOptions) { o.Ops = []string{"coreai.shrink_dims"} }), func() *tbGraph {
			tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
			e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			tg.out(tg.op("coreai.exp", "exp", []*graph.Value{e}, tbT(graph.F16, 1, 4)), "a")
			return tg
		}, foldIOWant{ins: []string{"tensor<4xf16>"}, outs: []string{"tensor<1x4xf16>"}}},
		{"private and called graphs keep their signatures", nil, func() *tbGraph {
			tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
			callee := tbAddGraph(tg.m, "helper", "private", tbPort{"in", tbT(graph.F16, 4), ""})
			ce := tbOpIn(callee, "coreai.expand_dims", "unsqueeze", "", []*graph.Value{callee.Body().Arg(0), tbConstI(callee, tg.m, graph.SI32, 0)}, tbT(graph.F16, 1, 4))
			tbOut(callee, ce.Result(0), "out")
			inv := tbOpIn(tg.g, "coreai.invoke", "", "", []*graph.Value{tg.arg(0)}, tbT(graph.F16, 1, 4))
			inv.SetAttr("callee", &graph.SymbolRefAttr{Root: "helper"})
			tg.out(inv.Result(0), "y")
			return tg
		}, foldIOWant{ins: []string{"tensor<4xf16>"}, outs: []string{"tensor<1x4xf16>"}}},
	}

}

func TestFoldIOUnsqueeze(t *testing.T) {
	cases := foldIOCases()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := c.build()
			tbVerify(t, tg.m, "built graph")
			ch, err := tbRun(t, "fold-io-unsqueeze", tg.m, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			tbVerify(t, tg.m, "after pass")
			g := tg.m.Graph("main")
			var ins, outs []string
			for _, p := range g.Inputs() {
				ins = append(ins, p.Type.String())
			}
			for _, p := range g.Outputs() {
				outs = append(outs, p.Type.String())
			}
			if strings.Join(ins, " ") != strings.Join(c.want.ins, " ") || strings.Join(outs, " ") != strings.Join(c.want.outs, " ") {
				t.Errorf("ports: ins %v outs %v, want %v %v\n%s", ins, outs, c.want.ins, c.want.outs, tbDump(tg.m))
			}
			if ch.OpsRemoved != c.want.removed || ch.OpsAdded != c.want.added {
				t.Errorf("removed %d added %d, want %d %d", ch.OpsRemoved, ch.OpsAdded, c.want.removed, c.want.added)
			}
			var io []string
			for _, x := range ch.IOChanges {
				io = append(io, x.Port+" "+x.Before+"->"+x.After)
				if x.Graph != "main" || x.Why == "" {
					t.Errorf("IOChange %+v: want graph main and a reason", x)
				}
			}
			if strings.Join(io, ";") != strings.Join(c.want.io, ";") {
				t.Errorf("IOChanges %q, want %q", io, c.want.io)
			}
			if len(ch.Notes) != len(c.want.notes) {
				t.Errorf("notes %q, want %d matching %q", ch.Notes, len(c.want.notes), c.want.notes)
			}
			for i, n := range c.want.notes {
				if i < len(ch.Notes) && !strings.Contains(ch.Notes[i], n) {
					t.Errorf("note %q does not contain %q", ch.Notes[i], n)
				}
			}
			for _, a := range c.want.absent {
				if n := tbCount(tg.m, a); n != 0 {
					t.Errorf("%d %s ops remain", n, a)
				}
			}
			// Idempotent: a second run changes nothing.
			before := tbDump(tg.m)
			ch2, err := tbRun(t, "fold-io-unsqueeze", tg.m, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if after := tbDump(tg.m); after != before || ch2.OpsRemoved+ch2.OpsAdded+len(ch2.IOChanges) != 0 {
				t.Errorf("second run changed the IR (%+v):\n%s\nvs\n%s", ch2, before, after)
			}
		})
	}
}

// The inverse reshape reads the retyped input and restores the old type for
// the other users, so their operand types are what they were.
func TestFoldIOUnsqueezeInverseReshape(t *testing.T) {
	tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
	e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{tg.arg(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
	tg.out(tg.op("coreai.exp", "exp", []*graph.Value{e}, tbT(graph.F16, 1, 4)), "a")
	other := tbOpIn(tg.g, "coreai.exp", "exp_1", "", []*graph.Value{tg.arg(0)}, tbT(graph.F16, 4))
	tg.out(other.Result(0), "b")
	if _, err := tbRun(t, "fold-io-unsqueeze", tg.m, nil); err != nil {
		t.Fatal(err)
	}
	tbVerify(t, tg.m, "after")
	r := other.Operand(0).DefiningOp()
	if r == nil || r.Name != "coreai.reshape" || r.Operand(0) != tg.arg(0) || r.Result(0).Type().String() != "tensor<4xf16>" {
		t.Fatalf("other user reads %v\n%s", other.Operand(0), tbDump(tg.m))
	}
	c := r.Operand(1).DefiningOp()
	a, _ := c.Attr("value").(*graph.DenseElementsAttr)
	if c.Name != "coreai.constant" || a == nil || a.Int64At(0) != 4 || a.NumElements() != 1 {
		t.Errorf("shape constant %v", c.Attrs)
	}
	if !strings.Contains(r.Loc.String(), "anefix.fold-io-unsqueeze") || !strings.Contains(r.Loc.String(), "unsqueeze") {
		t.Errorf("inverse reshape loc %s: want the pass name around the folded op's location", r.Loc)
	}
}

func TestFoldIOUnsqueezeBadOptions(t *testing.T) {
	for _, o := range []*foldIOUnsqueezeOptions{with(func(o *foldIOUnsqueezeOptions) { o.OtherUsers = "drop" }), with(func(o *foldIOUnsqueezeOptions) { o.Ops = []string{"coreai.transpose"} })} {
		tg := tbModule("main", tbPort{"x", tbT(graph.F16, 4), ""})
		tg.out(tg.arg(0), "y")
		if _, err := tbRun(t, "fold-io-unsqueeze", tg.m, o); err == nil || !strings.Contains(err.Error(), "option ") {
			t.Errorf("options %v: err = %v", o, err)
		}
	}
}

// Form-2 states: !coreai.handle inputs read with read_handle and written
// with write_handle (testdata/states/handle-f32.mlir).
func TestFoldIOUnsqueezeHandleState(t *testing.T) {
	tok := &graph.OpaqueType{Text: "!coreai.token"}
	build := func(foldWrite bool) (*tbGraph, *graph.Operation) {
		tg := tbModule("main", tbPort{"s", &graph.OpaqueType{Text: "!coreai.handle<tensor<4xf16>>"}, "s"})
		t0 := tg.op("coreai.create_token", "", nil, tok)
		rd := tbOpIn(tg.g, "coreai.read_handle", "read", "", []*graph.Value{tg.arg(0), t0}, tbT(graph.F16, 4), tok)
		e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{rd.Result(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
		y := tg.op("coreai.exp", "exp", []*graph.Value{e}, tbT(graph.F16, 1, 4))
		var val *graph.Value
		if foldWrite {
			val = tg.op("coreai.shrink_dims", "squeeze", []*graph.Value{y, tg.constI(graph.SI32, 0)}, tbT(graph.F16, 4))
		} else {
			val = tg.op("coreai.exp", "exp_1", []*graph.Value{rd.Result(0)}, tbT(graph.F16, 4))
		}
		w := tbOpIn(tg.g, "coreai.write_handle", "write", "", []*graph.Value{tg.arg(0), val, rd.Result(1)}, tok)
		tg.out(w.Result(0), "s")
		tg.out(y, "y")
		return tg, rd
	}
	tg, rd := build(true)
	tbVerify(t, tg.m, "built")
	ch, err := tbRun(t, "fold-io-unsqueeze", tg.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbVerify(t, tg.m, "after")
	if got := tg.g.Inputs()[0].Type.String(); got != "!coreai.handle<tensor<1x4xf16>>" {
		t.Errorf("handle type %s\n%s", got, tbDump(tg.m))
	}
	if rd.Result(0).Type().String() != "tensor<1x4xf16>" || tbCount(tg.m, "coreai.expand_dims")+tbCount(tg.m, "coreai.shrink_dims") != 0 {
		t.Errorf("read not retyped or rank ops left:\n%s", tbDump(tg.m))
	}
	if len(ch.IOChanges) != 1 || ch.IOChanges[0].Before != "!coreai.handle<tensor<4xf16>>" || ch.OpsRemoved != 2 {
		t.Errorf("change %+v", ch)
	}
	before := tbDump(tg.m)
	if _, err := tbRun(t, "fold-io-unsqueeze", tg.m, nil); err != nil || tbDump(tg.m) != before {
		t.Errorf("second run changed the IR (err %v)", err)
	}

	// squeeze(unsqueeze(read)) written back: the write then stores the read.
	tg = tbModule("main", tbPort{"s", &graph.OpaqueType{Text: "!coreai.handle<tensor<4xf16>>"}, "s"})
	t0 := tg.op("coreai.create_token", "", nil, tok)
	rd = tbOpIn(tg.g, "coreai.read_handle", "read", "", []*graph.Value{tg.arg(0), t0}, tbT(graph.F16, 4), tok)
	e := tg.op("coreai.expand_dims", "unsqueeze", []*graph.Value{rd.Result(0), tg.constI(graph.SI32, 0)}, tbT(graph.F16, 1, 4))
	sq := tg.op("coreai.shrink_dims", "squeeze", []*graph.Value{e, tg.constI(graph.SI32, 0)}, tbT(graph.F16, 4))
	w := tbOpIn(tg.g, "coreai.write_handle", "write", "", []*graph.Value{tg.arg(0), sq, rd.Result(1)}, tok)
	tg.out(w.Result(0), "s")
	if _, err := tbRun(t, "fold-io-unsqueeze", tg.m, nil); err != nil {
		t.Fatal(err)
	}
	tbVerify(t, tg.m, "after folding squeeze(unsqueeze(read))")
	if w.Operand(1) != rd.Result(0) {
		t.Errorf("write stores %v, want the read\n%s", w.Operand(1), tbDump(tg.m))
	}

	tg, _ = build(false)
	before = tbDump(tg.m)
	ch, err = tbRun(t, "fold-io-unsqueeze", tg.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tbDump(tg.m) != before || len(ch.Notes) != 1 || !strings.Contains(ch.Notes[0], "state s (handle): not folded: coreai.write_handle (write) stores a value that is not a rank op's result") {
		t.Errorf("unfoldable write: notes %q\n%s", ch.Notes, tbDump(tg.m))
	}
}
