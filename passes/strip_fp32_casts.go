package passes

import (
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/graph/f16"
	"github.com/anefix/anefix/graph/record"
)

var stripFP32CastsAbout = About{
	Summary:   "retype fp32 islands between f16→f32 and f32→f16 casts to f16 and drop the casts",
	Addresses: `Incompatible element type for ANE: expected fp16, f8E4M3, si8, ui8, si16, or ui16`,
	Doc: `An fp32 island is a connected set of f32 values: an op joins its f32
operands and f32 results, a coreai.invoke joins its operands and results
with the callee's arguments and returned values, and a state input joins the
output that holds its new value. Casts are the island's shores: a cast
f16→f32 opens it, a cast f32→f16 closes it.

Which islands: among those with at least one such cast (or, with io=true,
that reach a graph input or output), islands= picks a union of
  blockers  (default) the islands anefix check reports under its
            element-type rule: the rule's own analysis (passes/ane) is
            asked, on the module as this pass receives it, so the default
            changes only what the compiler is modelled to refuse (on the
            seed: the gated-delta recurrence);
  norms     normalization chains, by structure: a reduce_mean or
            reduce_sum of a square (square, or x·x) whose result reaches an
            rsqrt that feeds a multiply, or a sqrt that feeds a divide;
  all       every island (the default of earlier versions);
  <glob>    islands with an op whose op id or source (file:line) matches.
keep-norms=true then leaves in f32 the norm islands that were picked (with
islands=all: every island but the norms); it contradicts islands=norms.

The pass retypes all values of the picked islands to f16 — op results, block arguments of composites, coreai.invoke callee
signatures, graph inputs and outputs (io=true) — converts its f32 constants
(inline dense and dense_resource blobs) to f16 with round-to-nearest-even,
and removes the f16→f32 and f32→f16 casts that became identities. Casts to
or from other types (si32→f32, f32→si32) stay, with f16 in place of f32.

A converted dense_resource blob becomes a new resource "<key>_f16" whose
bytes are converted as they are written (never held in memory); the old one
is dropped unless something else still uses it.

A state in the handle form (an f32 !coreai.handle<tensor<…>> input read
with coreai.read_handle and written with coreai.write_handle, as after
coreai-torch's make_stateful) joins the island of what is read from it and
written to it; retyping that island retypes the handle to
!coreai.handle<tensor<…xf16>> (an I/O change, reported), the reads and the
writes. The !coreai.token results do not change. A tensor-form state input
(MutableBuffers.buffer_mutation), and a plain state pair the state
analysis finds (anefix passes: the states settings), joins the output
holding its new value: both keep one type.

Which ops: the op table (graph/coreaiop) says, for every coreai op
coreai-torch emits, what its operands are and how its result type is
decided. An op whose float results follow its float data (elementwise,
reductions, shape ops, convolutions, gathers and scatters, region ops such
as if and while, whose regions' arguments and yields change with the op)
is retyped; an op with an integer or bool result (argmax, argsort,
get_shape, non_zero, comparisons) takes f16 operands and keeps its result
type; float settings that do not follow the data (interpolate's scale and
offset) stay f32. The ops the table knows:
` + wrapWords(strings.Join(retypableOpList(), ", ")+".", 72) + `
An island holding an op that cannot be retyped (an op the table does not
know, such as an arith op, one it says is fixed, such as create_complex or
metal4_kernel, a call to a graph whose body is not in the module, a graph
whose signature is kept in an encoding anefix cannot edit) stays in f32,
and the report names the op and why. Only an island picked by a glob of
islands= (the user asked for it by name) stops the pass with that reason.

Numerics: this pass changes precision, nothing else. Values and
intermediate results are rounded to f16 (11 significant bits, max 65504).
Constants larger than 65504 in magnitude would become ±inf: that is an
error unless clamp=true, which saturates them to ±65504. Nonzero constants
below 2^-24 flush to zero (counted in the report, not an error).

When not to use it: when the fp32 island is there for accuracy that f16
cannot keep (long reductions, recurrences with large dynamic range; in an
RMSNorm, x·x overflows f16 for |x| > 256 and goes subnormal for
|x| < 2^-7). Measured on tiny synth arm A (random weights with synth's
massive residual channels and trained gates, graph/synth/massive.go;
anefix rewrite, then anefix verify's default teacher-forced mode, 8
streams × 256 positions, ieee; cmd/anefix TestNumericsTable): the default
(blockers: the 3 recurrence islands) gives mean KL divergence 1.3e-5 nats,
same top-1 99.0 %; islands=all 0.1 nats, 0.0 %: the massive channels'
squares overflow the fp16 norms and the logits collapse (islands=
blockers,norms gives the same; the residual-scale pass removes it);
islands=all with keep-norms=true (RoPE and the recurrence stripped)
1.4e-5 nats, 99.0 %. Random weights make near-tied logits, so read this as
a sensitivity signal, not a verdict on a trained model. Check every result with anefix
verify; restrict the pass further with exclude=<pattern>.`,
}

// stripFP32CastsOptions are strip-fp32-casts' options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type stripFP32CastsOptions struct {
	Clamp     bool
	Islands   []string
	Exclude   []string
	KeepNorms bool
	IO        bool
}

func (o *stripFP32CastsOptions) declare(d *Decls) {
	Declare(d, &o.Clamp, Option[bool]{Name: "clamp", Doc: "saturate f32 constants beyond ±65504 to ±65504 instead of failing"})
	Declare(d, &o.Islands, Option[[]string]{Name: "islands", Default: []string{"blockers"}, Doc: "which islands to retype, a union of: blockers (the islands anefix check reports under its element-type rule), norms (normalization chains, by structure), all (every island), or glob patterns matching an op id or source file:line of an op in the island (* matches anything); a pattern that matches no op of the module is a usage error (exit 2), one that matches ops but no island is noted", Check: checkIslandSelectors})
	Declare(d, &o.Exclude, Option[[]string]{Name: "exclude", Doc: "leave in f32 the islands with an op whose op id or source matches one of these glob patterns (applied after islands; a pattern that matches no op of the module is a usage error)"})
	Declare(d, &o.KeepNorms, Option[bool]{Name: "keep-norms", Doc: "leave in f32 the normalization islands (as islands=norms finds them) that islands selected, e.g. with islands=all; cannot be combined with islands=norms"})
	Declare(d, &o.IO, Option[bool]{Name: "io", Default: true, Doc: "also retype f32 graph inputs and outputs an island reaches (changes the model's interface; recorded in the report)"})
}

// retypableOpList names the op-table rows whose f32 values may become f16
// (without "coreai."), for the pass's doc.
func retypableOpList() []string {
	var out []string
	for _, o := range coreaiop.All() {
		if ok, _ := o.CanRetype(); ok {
			out = append(out, strings.TrimPrefix(o.Name, "coreai."))
		}
	}
	return out
}

// wrapWords breaks text into lines of at most width bytes at spaces.
func wrapWords(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// cannotRetype says why strip-fp32-casts cannot retype op's f32 values to
// f16, or "" when it can: the op table (graph/coreaiop) decides for coreai
// ops; func.call and func.return behave as coreai.invoke and coreai.output;
// a call needs the callee's body, whose signature changes with it.
func cannotRetype(op *graph.Operation, graphs map[string]*graph.Graph) string {
	name := op.Name
	switch name {
	case "func.call":
		name = "coreai.invoke"
	case "func.return":
		name = "coreai.output"
	}
	o := coreaiop.Lookup(name)
	if o == nil {
		return "the op table (graph/coreaiop) has no row for " + op.Name + ", so its result types cannot be known to follow its operands"
	}
	if ok, why := o.CanRetype(); !ok {
		return why
	}
	if o.Call && callTarget(op, graphs) == nil {
		return "it calls a graph whose body is not in this module (a declaration or an unknown symbol), so the callee's signature cannot be retyped with it"
	}
	if op.Name == "coreai.constant" && op.NumResults() == 1 && isF32(op.Result(0)) {
		switch a := constValue(op).(type) {
		case *graph.DenseElementsAttr:
			if !graph.IsFloat(a.Type.Elem, "f32") {
				return "its value has element type " + a.Type.Elem.String() + ", not f32"
			}
		case *graph.DenseResourceAttr:
		default:
			return "its f32 value cannot be read (expected a dense or dense_resource attribute; the op's properties may be in an encoding anefix carries opaquely)"
		}
	}
	return ""
}

// constValue is a constant's value attribute (denseAttrOf), or nil.
func constValue(op *graph.Operation) graph.Attr {
	_, a := denseAttrOf(op)
	return a
}

// skipOperand leaves out of every island the float settings that do not
// follow the data (coreaiop.FloatParam: interpolate's scale and offset).
func skipOperand(op *graph.Operation, i int) bool {
	return coreaiop.OperandRole(op, i) == coreaiop.FloatParam
}

// isF32 reports whether v holds f32 values: an f32 scalar or tensor, or a
// state handle `!coreai.handle<tensor<…xf32>>`, which joins the island of
// the values read from it and written to it.
func isF32(v *graph.Value) bool {
	switch t := v.Type().(type) {
	case *graph.TensorType:
		return graph.IsFloat(t.Elem, "f32")
	case *graph.FloatType:
		return t.Name == "f32"
	case *graph.OpaqueType:
		inner := graph.HandleInner(t)
		return inner != nil && graph.IsFloat(inner.Elem, "f32")
	}
	return false
}

func isF16Type(t graph.Type) bool { return graph.IsFloat(graph.ElementType(t), "f16") }

func toF16(t graph.Type) graph.Type {
	switch x := t.(type) {
	case *graph.TensorType:
		return x.WithElem(graph.F16)
	case *graph.FloatType:
		return graph.F16
	case *graph.OpaqueType:
		if inner := graph.HandleInner(x); inner != nil {
			return graph.HandleOf(inner.WithElem(graph.F16))
		}
	}
	return t
}

// island is one connected set of f32 values and what touches it.
type island struct {
	id        int // order of discovery, for deterministic output
	ops       []*graph.Operation
	casts     int      // f16↔f32 casts on its shore
	io        []string // graph inputs/outputs it reaches ("@main input x")
	first     *graph.Operation
	chosen    bool
	desc      string // where it starts, for the report (taken before casts go)
	where     string // op name and source of the first op, to group look-alike islands
	firstID   string
	values    int    // values retyped
	composite string // the private composite graph it lies in, or ""
	left      string // why it stays in f32 (not chosen), for PreviewStripFP32Casts
}

// callTarget returns the graph a coreai.invoke / func.call calls, or nil.
func callTarget(op *graph.Operation, graphs map[string]*graph.Graph) *graph.Graph {
	if op.Name != "coreai.invoke" && op.Name != "func.call" {
		return nil
	}
	ref, ok := op.Inherent("callee").(*graph.SymbolRefAttr)
	if !ok || len(ref.Nested) > 0 {
		return nil
	}
	if g := graphs[ref.Root]; g != nil && g.Body() != nil && g.Terminator() != nil {
		return g
	}
	return nil // a declaration has no body whose types could follow
}

// calledGraphs lists the graphs some op calls: their signatures are internal
// (private composites), not model I/O.
func calledGraphs(m *graph.Module, graphs map[string]*graph.Graph) map[*graph.Operation]bool {
	out := map[*graph.Operation]bool{}
	m.Walk(func(op *graph.Operation) bool {
		if g := callTarget(op, graphs); g != nil {
			out[g.Op] = true
		}
		return true
	})
	return out
}

// sfRun is one run of strip-fp32-casts: its options, read once, and what
// each step hands the next.
type sfRun struct {
	ctx                         *Context
	m                           *graph.Module
	opts                        *stripFP32CastsOptions
	ch                          *Change
	clamp, convertIO, keepNorms bool
	sel                         islandSelectors
	patterns, excludes          []*regexp.Regexp
	blockers                    map[*graph.Operation]bool
	gs                          []*graph.Graph
	graphs                      map[string]*graph.Graph
	called                      map[*graph.Operation]bool // graphs some op calls
	ioGraphs                    map[*graph.Operation]bool // graphs whose ports count as model I/O
	fi                          *graph.Islands
	order                       []*graph.Value // island values, first-seen order
	list                        []*island      // by graph.Islands.Index
	plans                       []constPlan
	newRes                      map[string]*graph.Resource // old key → converted resource
}

// constPlan is one constant conversion, prepared before anything changes.
type constPlan struct {
	op   *graph.Operation
	name string
	attr graph.Attr
	cc   ConstantChange
}

func (sf *sfRun) isIOGraph(g *graph.Graph) bool { return sf.ioGraphs[g.Op] }

// stripFP32Casts runs the five steps in order; each method is one step.
func stripFP32Casts(ctx *Context, m *graph.Module, opts *stripFP32CastsOptions) (*Change, error) {
	sf := &sfRun{ctx: ctx, m: m, opts: opts, ch: &Change{}}
	if err := sf.analyze(); err != nil {
		return nil, err
	}
	if err := sf.planConstants(); err != nil {
		return nil, err
	}
	if err := sf.apply(); err != nil {
		return nil, err
	}
	sf.summarize()
	return sf.ch, nil
}

// analyze is steps 1–3: islands found, described and chosen; nothing in the
// module changes. PreviewStripFP32Casts stops here.
func (sf *sfRun) analyze() error {
	if err := sf.setup(); err != nil {
		return err
	}
	sf.group()
	sf.describe()
	return sf.choose()
}

// StripFP32CastsPreview is what strip-fp32-casts would retype in a module,
// found by the pass's own analysis without changing anything: ane check
// names the pass for a finding only when the preview retypes the values
// behind it (one home for that decision).
type StripFP32CastsPreview struct {
	sf *sfRun
}

// PreviewStripFP32Casts runs strip-fp32-casts' analysis on m with the
// options set (assignments as printed: "strip-fp32-casts.islands=all"; none
// for the defaults). The error is the pass's own (a bad option, a pattern
// that picks an island the pass cannot retype).
func PreviewStripFP32Casts(m *graph.Module, set ...string) (*StripFP32CastsPreview, error) {
	p, err := Build(Spec{Passes: []string{"strip-fp32-casts"}, Set: set})
	if err != nil {
		return nil, err
	}
	sf := &sfRun{ctx: p.Context.withCache(m), m: m, opts: p.Steps[0].Options.(*stripFP32CastsOptions), ch: &Change{}}
	if err := sf.analyze(); err != nil {
		return nil, err
	}
	return &StripFP32CastsPreview{sf: sf}, nil
}

// Retypes reports whether the pass would make v f16 (v is an f32 value of
// an island it chooses).
func (p *StripFP32CastsPreview) Retypes(v *graph.Value) bool {
	if !p.sf.fi.Has(v) {
		return false
	}
	return p.sf.list[p.sf.fi.Index(v)].chosen
}

// WhyNot says why the pass leaves v as it is ("" when it retypes v).
func (p *StripFP32CastsPreview) WhyNot(v *graph.Value) string {
	if !isF32(v) {
		return "it is " + graph.ElementType(dataType(v.Type())).String() + ", and strip-fp32-casts retypes f32 only"
	}
	if !p.sf.fi.Has(v) {
		return "it is in no fp32 island the pass examines"
	}
	is := p.sf.list[p.sf.fi.Index(v)]
	switch {
	case is.chosen:
		return ""
	case is.left != "":
		return "its fp32 island stays in f32: " + is.left
	}
	return "its fp32 island stays in f32"
}

// dataType is the tensor a state handle holds, else t.
func dataType(t graph.Type) graph.Type {
	if o, ok := t.(*graph.OpaqueType); ok {
		if inner := graph.HandleInner(o); inner != nil {
			return inner
		}
	}
	return t
}

// setup reads the options and the module's call structure.
func (sf *sfRun) setup() error {
	sf.clamp = sf.opts.Clamp
	sf.convertIO = sf.opts.IO
	sf.keepNorms = sf.opts.KeepNorms
	sf.sel = parseIslandSelectors(sf.opts.Islands)
	if sf.keepNorms && sf.sel.norms {
		return fmt.Errorf("islands=norms selects the normalization islands and keep-norms=true leaves them in f32: drop one of the two")
	}
	var err error
	sf.patterns, err = compileGlobs(sf.sel.globs)
	if err != nil {
		return err
	}
	if sf.sel.blockers && !sf.sel.all {
		// Asked before anything changes: the islands check reports on
		// the module as this pass receives it.
		if sf.blockers, err = sf.ctx.IslandBlockers(sf.m); err != nil {
			return err
		}
	}
	sf.excludes, err = compileGlobs(sf.opts.Exclude)
	if err != nil {
		return err
	}
	if err := checkPatternsMatch(sf.m, "islands", sf.sel.globs, sf.patterns, islandKeywords); err != nil {
		return err
	}
	if err := checkPatternsMatch(sf.m, "exclude", sf.opts.Exclude, sf.excludes, nil); err != nil {
		return err
	}
	sf.gs = sf.m.Graphs()
	sf.graphs = map[string]*graph.Graph{}
	for _, g := range sf.gs {
		sf.graphs[g.Name()] = g
	}
	sf.called = calledGraphs(sf.m, sf.graphs)
	sf.ioGraphs = map[*graph.Operation]bool{}
	for _, g := range graph.EntryGraphs(sf.m, graph.EntryUnlessPrivateCallee) {
		sf.ioGraphs[g.Op] = true
	}
	return nil
}

func (sf *sfRun) group() {
	// 1. Group f32 values into islands (graph.IslandOptions says why this
	// pass follows calls and states).
	sf.fi = graph.FloatIslands(sf.gs, graph.IslandOptions{
		Member:      isF32,
		SkipOperand: skipOperand,
		Callee:      func(op *graph.Operation) *graph.Graph { return callTarget(op, sf.graphs) },
		States:      sf.ctx.StateScope(),
		Ties:        coreaiop.Ties,
	})
	sf.order = sf.fi.Values // first-seen order of values, for determinism
}

func (sf *sfRun) describe() {
	// 2. Describe each island.
	sf.list = make([]*island, sf.fi.Count())
	for i := range sf.list {
		sf.list[i] = &island{id: i}
	}
	get := func(v *graph.Value) *island { return sf.list[sf.fi.Index(v)] }
	for _, g := range sf.gs {
		if sf.isIOGraph(g) && g.Body() != nil {
			for _, in := range g.Inputs() {
				if a := g.Body().Arg(in.Index); isF32(a) {
					is := get(a)
					is.io = append(is.io, fmt.Sprintf("@%s input %s", g.Name(), in.Label()))
				}
			}
			if t := g.Terminator(); t != nil {
				for _, o := range g.Outputs() {
					if o.Index < t.NumOperands() && isF32(t.Operand(o.Index)) {
						is := get(t.Operand(o.Index))
						is.io = append(is.io, fmt.Sprintf("@%s output %s", g.Name(), o.Label()))
					}
				}
			}
		}
		g.Op.Walk(func(op *graph.Operation) bool {
			if op == g.Op {
				return true
			}
			var is *island
			for _, v := range op.Results() {
				if isF32(v) {
					is = get(v)
					break
				}
			}
			if is == nil {
				for _, v := range op.Operands() {
					if v != nil && isF32(v) {
						is = get(v)
						break
					}
				}
			}
			if is == nil {
				return true
			}
			is.ops = append(is.ops, op)
			if is.first == nil && op.Name != "coreai.constant" {
				is.first = op
			}
			if op.Name == "coreai.cast" && op.NumOperands() == 1 && op.NumResults() == 1 {
				in, out := op.Operand(0).Type(), op.Result(0).Type()
				if isF16Type(in) && isF32(op.Result(0)) || isF32(op.Operand(0)) && isF16Type(out) {
					is.casts++
				}
			}
			return true
		})
	}
}

// choose is step 3, after a note for each pattern that matches no island.
func (sf *sfRun) choose() error {
	// A pattern that matches ops but no island (one that matches no op
	// was refused in setup) does less than it seems to ask: say so.
	for _, opt := range []struct {
		name string
		raw  []string
		re   []*regexp.Regexp
	}{{"islands", sf.sel.globs, sf.patterns}, {"exclude", sf.opts.Exclude, sf.excludes}} {
		for i, re := range opt.re {
			matched := false
			for _, is := range sf.list {
				if islandMatches(is, []*regexp.Regexp{re}) {
					matched = true
					break
				}
			}
			if !matched {
				sf.ch.Notes = append(sf.ch.Notes, fmt.Sprintf("%s pattern %q matches no fp32 island (a pattern must match a whole op id or source file:line; use * for the rest, e.g. *qwen3_5.py:199*)", opt.name, opt.raw[i]))
			}
		}
	}
	// 3. Choose islands and check that every op in them can be retyped.
	unselected := 0
	sig := sf.signatureBlockers()
	var left []leftIsland
	for _, is := range sf.list {
		if len(is.ops) == 0 && len(is.io) == 0 {
			continue
		}
		if is.first == nil && len(is.ops) > 0 {
			is.first = is.ops[0]
		}
		if is.casts == 0 && !(sf.convertIO && len(is.io) > 0) {
			is.left = "it has no f16↔f32 cast on its shore and reaches no graph input or output (io=true retypes those)"
			if !sf.convertIO && len(is.io) > 0 {
				is.left = "it has no f16↔f32 cast on its shore and io=false leaves graph inputs and outputs in f32"
			}
			continue
		}
		if !sf.sel.selects(is, sf.patterns, sf.blockers) {
			unselected++
			is.left = "islands=" + strings.Join(sf.opts.Islands, ",") + " does not select it (islands=all retypes every island)"
			continue
		}
		if islandMatches(is, sf.excludes) {
			is.left = "exclude= leaves it out"
			continue
		}
		if sf.keepNorms && islandIsNorm(is) {
			is.left = "it computes a normalization (keep-norms=true)"
			sf.ch.Notes = append(sf.ch.Notes, fmt.Sprintf("island at %s left in f32: it computes a normalization (keep-norms=true)", is.first.DescribeInGraph()))
			continue
		}
		if len(is.io) > 0 && !sf.convertIO {
			is.left = "it reaches " + strings.Join(is.io, ", ") + " and io=false"
			sf.ch.Notes = append(sf.ch.Notes, fmt.Sprintf("island at %s left in f32: it reaches %s (set strip-fp32-casts.io=true to retype graph I/O)", is.first.DescribeInGraph(), strings.Join(is.io, ", ")))
			continue
		}
		if op, why := sf.blocker(is, sig); op != nil {
			// Asked for by name: stop, since the user wants this island
			// in f16 and the pass cannot do it.
			if len(sf.patterns) > 0 && islandMatches(is, sf.patterns) {
				return fmt.Errorf("%s in an fp32 island that islands= selects by pattern cannot be retyped to f16: %s; what to do: drop the pattern or leave this island out with --set strip-fp32-casts.exclude=<pattern matching it>", op.DescribeInGraph(), why)
			}
			is.left = fmt.Sprintf("it holds %s, which strip-fp32-casts cannot retype: %s", op.DescribeInGraph(), why)
			left = append(left, leftIsland{is: is, op: op, why: why})
			continue
		}
		is.chosen = true
		is.desc = is.first.DescribeInGraph()
		if is.first != nil {
			is.where, is.firstID = is.first.Name+" at "+graph.ShortSource(is.first.Loc), is.first.OpID()
			// A composite's interior is shared by every call: say so.
			for _, op := range is.ops {
				if g := graph.EnclosingGraph(op); g != nil && sf.called[g.Op] {
					is.where += fmt.Sprintf(", reaching into composite @%s (every call of it computes in f16 now)", g.Name())
					is.composite = g.Name()
					break
				}
			}
		}
	}
	sf.noteLeft(left)

	// The default leaves islands the rule does not flag: say how many, so
	// that nobody takes them for a miss.
	if unselected > 0 {
		sf.ch.Notes = append(sf.ch.Notes, fmt.Sprintf("%d fp32 island(s) left in f32: not selected by islands=%s (islands=all retypes every island)", unselected, strings.Join(sf.opts.Islands, ",")))
	}
	return nil
}

// leftIsland is a selected island the pass cannot retype, with the first op
// in the way.
type leftIsland struct {
	is  *island
	op  *graph.Operation
	why string
}

// noteLeft reports the islands left in f32 because of an op, one line per
// op kind and reason (one per layer would drown the report).
func (sf *sfRun) noteLeft(left []leftIsland) {
	type group struct {
		name, why string
		ops       []*graph.Operation
		first     *graph.Operation // the first island's first op
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, l := range left {
		key := l.op.Name + "|" + l.why
		g := byKey[key]
		if g == nil {
			g = &group{name: l.op.Name, why: l.why, first: l.is.first}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.ops = append(g.ops, l.op)
	}
	for _, g := range groups {
		more := ""
		if len(g.ops) > 1 {
			more = fmt.Sprintf(" (and %d more island(s) holding %s)", len(g.ops)-1, g.name)
		}
		sf.ch.Notes = append(sf.ch.Notes, fmt.Sprintf("island at %s left in f32: it holds %s, which strip-fp32-casts cannot retype: %s%s; what to do: re-export that part in float16, or leave it in f32 (check names what remains)",
			g.first.DescribeInGraph(), g.ops[0].Describe(), g.why, more))
	}
}

// blocker returns the first op of island is that cannot be retyped, with
// why: an op the table says cannot (cannotRetype), or one whose graph
// signature would change but is kept in an encoding anefix cannot edit.
func (sf *sfRun) blocker(is *island, sig map[*island]*graph.Operation) (*graph.Operation, string) {
	for _, op := range is.ops {
		if why := cannotRetype(op, sf.graphs); why != "" {
			return op, why
		}
	}
	if gop := sig[is]; gop != nil {
		g := &graph.Graph{Op: gop}
		return gop, fmt.Sprintf("@%s's signature would change, but its properties are in an encoding anefix carries opaquely and cannot edit (convert the model to MLIR text first: anefix convert IN -o x.mlir)", g.Name())
	}
	return nil, ""
}

// signatureBlockers maps an island to the graph of its first value (in
// first-seen order) that is a graph's argument or returned value, when that
// graph's signature cannot be edited: a signature is edited through the
// graph's properties dictionary, and one kept in an encoding anefix carries
// opaquely cannot be. One pass over the values (a scan per island was
// quadratic in the graph's size).
func (sf *sfRun) signatureBlockers() map[*island]*graph.Operation {
	out := map[*island]*graph.Operation{}
	for _, v := range sf.order {
		var gop *graph.Operation
		if b, _, ok := v.BlockArg(); ok && b.ParentOp() != nil && graph.IsGraphOp(b.ParentOp()) {
			gop = b.ParentOp()
		}
		for _, use := range v.Uses() {
			if p := use.Op.ParentOp(); p != nil && graph.IsGraphOp(p) && use.Op.Name == graph.TerminatorName(p.Name) {
				gop = p
			}
		}
		if gop != nil && gop.Props != nil && sfDict(gop.Props) == nil {
			if is := sf.list[sf.fi.Index(v)]; out[is] == nil {
				out[is] = gop
			}
		}
	}
	return out
}

func (sf *sfRun) planConstants() error {
	// 4. Prepare constant conversions (nothing is changed yet, so an
	// overflow error leaves the module untouched).
	sf.newRes = map[string]*graph.Resource{} // old key → converted resource
	resStats := map[string]f16.Stats{}
	var res map[string]*graph.Resource // by key, made at the first dense_resource
	for _, is := range sf.list {
		if !is.chosen {
			continue
		}
		for _, op := range is.ops {
			if op.Name != "coreai.constant" || op.NumResults() != 1 || !isF32(op.Result(0)) {
				continue
			}
			name, a := denseAttrOf(op)
			cc := ConstantChange{Op: ref(graph.EnclosingGraph(op), op), From: "f32", To: "f16"}
			var na graph.Attr
			var st f16.Stats
			switch x := a.(type) {
			case *graph.DenseElementsAttr:
				if !graph.IsFloat(x.Type.Elem, "f32") {
					return fmt.Errorf("%s: constant value has element type %s, expected f32", op.DescribeInGraph(), x.Type.Elem)
				}
				raw := make([]byte, len(x.Raw)/2)
				var err error
				st, err = f16.F32ToF16LE(raw, x.Raw)
				if err != nil {
					return fmt.Errorf("%s: %v", op.DescribeInGraph(), err)
				}
				if sf.clamp {
					clampHalves(raw, x.Raw)
				}
				na = &graph.DenseElementsAttr{Type: x.Type.WithElem(graph.F16), Raw: raw, Splat: x.Splat}
				cc.Elements = x.NumElements()
			case *graph.DenseResourceAttr:
				if res == nil {
					res = sf.m.ResourcesByKey()
				}
				r := res[x.Key]
				if r == nil || r.Blob == nil {
					return fmt.Errorf("%s: dense_resource<%s> has no blob in the module's resources", op.DescribeInGraph(), x.Key)
				}
				if want, err := x.Type.ByteSize(); x.Type.IsStatic() && (err != nil || r.Blob.Size() != want) {
					return fmt.Errorf("%s: resource %q holds %d bytes, but %s needs %d (%v)", op.DescribeInGraph(), x.Key, r.Blob.Size(), x.Type, want, err)
				}
				if _, done := sf.newRes[x.Key]; !done {
					s, err := scanF32Blob(r.Blob)
					if err != nil {
						return fmt.Errorf("%s: resource %q: %v", op.DescribeInGraph(), x.Key, err)
					}
					resStats[x.Key] = s
					sf.newRes[x.Key] = &graph.Resource{Dialect: r.Dialect, Kind: graph.BlobResource, Alignment: max(r.Alignment, 2), Blob: &halfBlob{src: r.Blob, clamp: sf.clamp}}
				}
				st = resStats[x.Key]
				cc.Resource = x.Key
				cc.Elements = r.Blob.Size() / 4
				na = &graph.DenseResourceAttr{Key: x.Key, Type: x.Type.WithElem(graph.F16)} // key set on apply
			default:
				return fmt.Errorf("%s: cannot read its f32 value (expected a dense or dense_resource attribute; the op's properties may be in an encoding anefix carries opaquely); what to do: exclude this island with --set strip-fp32-casts.exclude=…", op.DescribeInGraph())
			}
			cc.Overflow, cc.Underflow = int64(st.Overflow), int64(st.Underflow)
			if st.Overflow > 0 && !sf.clamp {
				return fmt.Errorf("%s: %d value(s) of this f32 constant exceed the f16 range (±65504) and would become ±inf; what to do: --set strip-fp32-casts.clamp=true saturates them to ±65504, or exclude this island with --set strip-fp32-casts.exclude=…", op.DescribeInGraph(), st.Overflow)
			}
			sf.plans = append(sf.plans, constPlan{op: op, name: name, attr: na, cc: cc})
		}
	}
	return nil
}

func (sf *sfRun) apply() error {
	// 5. Apply: resources, constants, value types, signatures, casts.
	oldKeys := make([]string, 0, len(sf.newRes))
	for k := range sf.newRes {
		oldKeys = append(oldKeys, k)
	}
	sort.Strings(oldKeys)
	keys := sf.m.ResourceKeys()
	for _, k := range oldKeys {
		r := sf.newRes[k]
		r.Key = keys.Unique(k + "_f16")
		sf.m.Resources = append(sf.m.Resources, r)
	}
	for _, p := range sf.plans {
		if ra, ok := p.attr.(*graph.DenseResourceAttr); ok {
			ra.Key = sf.newRes[ra.Key].Key
		}
		p.op.SetInherent(p.name, p.attr)
		sf.ch.Constants = append(sf.ch.Constants, p.cc)
	}
	retyped := map[*graph.Operation]bool{}
	// Graph inputs are retyped in one signature write per graph, their
	// labels taken from one listing (per input, both copied the whole
	// signature: quadratic in the inputs, TestWorkLinearInPorts).
	type inputEdits struct {
		ed  *graph.PortEdits
		ins []graph.Port
	}
	edits := map[*graph.Operation]*inputEdits{}
	var edited []*graph.Operation
	for _, v := range sf.order {
		if is := sf.list[sf.fi.Index(v)]; !is.chosen {
			continue
		} else {
			is.values++
		}
		if op := v.DefiningOp(); op != nil {
			retyped[op] = true
			v.SetType(toF16(v.Type()))
			continue
		}
		b, i, _ := v.BlockArg()
		if pop := b.ParentOp(); pop != nil && graph.IsGraphOp(pop) && b == pop.Regions[0].Entry() {
			g := &graph.Graph{Op: pop}
			e := edits[pop]
			if e == nil {
				e = &inputEdits{ed: g.EditPorts(), ins: g.Inputs()}
				edits[pop] = e
				edited = append(edited, pop)
			}
			before := v.Type().String()
			e.ed.SetInputType(i, toF16(v.Type()))
			if sf.isIOGraph(g) {
				sf.ch.IOChanges = append(sf.ch.IOChanges, record.IOChange{Graph: g.Name(), Port: e.ins[i].Label(), Before: before, After: v.Type().String(), Why: "fp32 island retyped to f16"})
			}
			continue
		}
		v.SetType(toF16(v.Type()))
	}
	for _, op := range edited {
		edits[op].ed.Apply()
	}
	for _, g := range sf.gs {
		t := g.Terminator()
		ft := g.FunctionType()
		if t == nil || ft == nil {
			continue
		}
		outs := g.Outputs()
		changed := false
		for i, v := range t.Operands() {
			if i < len(ft.Results) && !graph.TypeEqual(ft.Results[i], v.Type()) {
				changed = true
				if sf.isIOGraph(g) {
					sf.ch.IOChanges = append(sf.ch.IOChanges, record.IOChange{Graph: g.Name(), Port: outs[i].Label(), IsOutput: true, Before: ft.Results[i].String(), After: v.Type().String(), Why: "fp32 island retyped to f16"})
				}
			}
		}
		if changed { // untouched graphs keep their attributes as they were
			g.SyncOutputTypes()
		}
	}
	for _, is := range sf.list {
		if !is.chosen {
			continue
		}
		for _, op := range is.ops {
			if op.Name != "coreai.cast" || op.NumOperands() != 1 || op.NumResults() != 1 {
				continue
			}
			if graph.TypeEqual(op.Operand(0).Type(), op.Result(0).Type()) {
				op.Result(0).ReplaceAllUsesWith(op.Operand(0))
				if err := op.Erase(); err != nil {
					return err
				}
				delete(retyped, op)
				sf.ch.OpsRemoved++
			}
		}
	}
	sf.ch.OpsRetyped = len(retyped)
	refs, refsKnown := sf.m.ResourceRefs()
	var drop []string
	for _, k := range oldKeys {
		if refs[k] == 0 && refsKnown {
			drop = append(drop, k)
			sf.ch.Notes = append(sf.ch.Notes, fmt.Sprintf("resource %q replaced by %q", k, sf.newRes[k].Key))
		} else {
			sf.ch.Notes = append(sf.ch.Notes, fmt.Sprintf("resource %q converted into %q; the f32 original is kept because other ops still use it", k, sf.newRes[k].Key))
		}
	}
	sf.m.RemoveResources(drop...)
	return nil
}

// summarize puts a summary of the retyped islands first in the notes.
func (sf *sfRun) summarize() {
	// Look-alike islands (same first op and source, same size: one per
	// layer) read as one line with a count, not one line each.
	type islandGroup struct {
		where         string
		values, casts int
		ids           []string
	}
	var groups []*islandGroup
	byKey := map[string]*islandGroup{}
	n := 0
	for _, is := range sf.list {
		if !is.chosen {
			continue
		}
		n++
		key := fmt.Sprintf("%s|%d|%d", is.where, is.values, is.casts)
		g := byKey[key]
		if g == nil {
			g = &islandGroup{where: is.where, values: is.values, casts: is.casts}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.ids = append(g.ids, is.firstID)
	}
	if n > 0 {
		head := fmt.Sprintf("%d fp32 island(s) retyped to f16", n)
		var comps []string
		seenComp := map[string]bool{}
		inComp := 0
		for _, is := range sf.list {
			if is.chosen && is.composite != "" {
				inComp++
				if !seenComp[is.composite] {
					seenComp[is.composite] = true
					comps = append(comps, "@"+is.composite)
				}
			}
		}
		if inComp > 0 {
			head += fmt.Sprintf(", %d of them reaching into composite graph(s) %s", inComp, strings.Join(comps, ", "))
		}
		notes := []string{head}
		for _, g := range groups {
			notes = append(notes, fmt.Sprintf("x%d island(s) from %s: %d value(s) retyped, %d f16↔f32 cast(s) each%s",
				len(g.ids), g.where, g.values, g.casts, idList("; first ops ", g.ids, 4)))
		}
		sf.ch.Notes = append(notes, sf.ch.Notes...)
	}
}

// idList is prefix and up to max op ids with a count of the rest, or ""
// when no op has an id (ops without locations): a summary never ends in an
// empty list.
func idList(prefix string, ids []string, max int) string {
	var named []string
	for _, id := range ids {
		if id != "" {
			named = append(named, id)
		}
	}
	if len(named) == 0 {
		return ""
	}
	more := ""
	if len(named) > max {
		more = fmt.Sprintf(" (+%d)", len(named)-max)
		named = named[:max]
	}
	return prefix + strings.Join(named, " ") + more
}

// denseAttrOf finds a constant's value attribute: a dense or dense_resource
// attribute in its properties, else in its attributes.
func denseAttrOf(op *graph.Operation) (string, graph.Attr) {
	for _, d := range []*graph.DictAttr{sfDict(op.Props), op.Attrs} {
		if d == nil {
			continue
		}
		for _, e := range d.Entries {
			switch e.Value.(type) {
			case *graph.DenseElementsAttr, *graph.DenseResourceAttr:
				return e.Name, e.Value
			}
		}
	}
	return "", nil
}

func sfDict(a graph.Attr) *graph.DictAttr {
	d, _ := a.(*graph.DictAttr)
	return d
}

func islandMatches(is *island, pats []*regexp.Regexp) bool {
	for _, op := range is.ops {
		if opMatches(op, pats) {
			return true
		}
	}
	return false
}

// opMatches reports whether a pattern matches op's op id or source (as
// written, or shortened).
func opMatches(op *graph.Operation, pats []*regexp.Regexp) bool {
	for _, s := range []string{op.OpID(), op.Source(), graph.ShortSource(op.Loc)} {
		if s == "" {
			continue
		}
		for _, p := range pats {
			if p.MatchString(s) {
				return true
			}
		}
	}
	return false
}

// checkPatternsMatch refuses, as a usage error, a pattern of option opt
// that matches the op id or source of no op in m: it can only be a typo
// (islands=alll), which would otherwise retype, or exclude, nothing.
// keywords are the option's other values, named in the message.
func checkPatternsMatch(m *graph.Module, opt string, raw []string, pats []*regexp.Regexp, keywords []string) error {
	left := slices.Clone(pats)
	m.Walk(func(op *graph.Operation) bool {
		left = slices.DeleteFunc(left, func(p *regexp.Regexp) bool { return opMatches(op, []*regexp.Regexp{p}) })
		return len(left) > 0
	})
	if len(left) == 0 {
		return nil
	}
	bad := raw[slices.Index(pats, left[0])]
	what := fmt.Sprintf("%s pattern %q", opt, bad)
	if len(keywords) > 0 {
		what = fmt.Sprintf("%s: %q is not a keyword and, as a pattern,", opt, bad)
	}
	return &UsageError{Msg: fmt.Sprintf("option %s matches no op id or source of any op in the module as this pass receives it (after the passes before it) "+
		"(a pattern must match a whole op id or source file:line; use * for the rest, e.g. *qwen3_5.py:199*)", what), Valid: keywords}
}

// compileGlobs turns glob patterns (* any run of characters, ? one) into
// anchored regexps.
func compileGlobs(pats []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, p := range pats {
		q := regexp.QuoteMeta(p)
		q = strings.ReplaceAll(q, `\*`, `.*`)
		q = strings.ReplaceAll(q, `\?`, `.`)
		re, err := regexp.Compile("^" + q + "$")
		if err != nil {
			return nil, fmt.Errorf("bad pattern %q: %v", p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// clampHalves replaces halves that overflowed to ±inf from finite f32 inputs
// with ±65504.
func clampHalves(dst, src []byte) {
	for i := 0; i+1 < len(dst); i += 2 {
		h := binary.LittleEndian.Uint16(dst[i:])
		if f16.IsInf(h) {
			b := binary.LittleEndian.Uint32(src[2*i:])
			if b&0x7fffffff != 0x7f800000 { // the f32 was finite
				binary.LittleEndian.PutUint16(dst[i:], h&0x8000|0x7bff)
			}
		}
	}
}

const scanChunk = 1 << 20 // bytes of f32 read per step: bounded memory for any blob size

// scanF32Blob counts what converting a blob to f16 would do, reading it in
// chunks.
func scanF32Blob(b graph.BlobSource) (f16.Stats, error) {
	var total f16.Stats
	size := b.Size()
	src := make([]byte, scanChunk)
	dst := make([]byte, scanChunk/2)
	for off := int64(0); off < size; off += scanChunk {
		n := min(int64(scanChunk), size-off)
		if k, err := b.ReadAt(src[:n], off); int64(k) < n {
			return total, fmt.Errorf("reading at %d: %v", off, err)
		}
		st, err := f16.F32ToF16LE(dst[:n/2], src[:n])
		if err != nil {
			return total, err
		}
		total.Count += st.Count
		total.Overflow += st.Overflow
		total.Underflow += st.Underflow
		total.NaN += st.NaN
	}
	return total, nil
}

// halfScratch holds conversion buffers between reads (ReadAt may run
// concurrently, so one buffer per blob would race).
var halfScratch = sync.Pool{New: func() any { return new([]byte) }}

// halfBlob presents an f32 blob as f16, converting on read, so a converted
// weight is never held in memory whole.
type halfBlob struct {
	src   graph.BlobSource
	clamp bool
}

func (h *halfBlob) Size() int64 { return h.src.Size() / 2 }

func (h *halfBlob) ReadAt(p []byte, off int64) (int, error) {
	size := h.Size()
	if off < 0 {
		return 0, fmt.Errorf("half blob: negative offset")
	}
	if off >= size {
		return 0, io.EOF
	}
	want := min(int64(len(p)), size-off)
	// Whole elements covering [off, off+want).
	e0, e1 := off/2, (off+want+1)/2
	bp := halfScratch.Get().(*[]byte)
	defer halfScratch.Put(bp)
	if need := int(6 * (e1 - e0)); cap(*bp) < need {
		*bp = make([]byte, need)
	}
	src := (*bp)[:4*(e1-e0)]
	dst := (*bp)[4*(e1-e0) : 6*(e1-e0)]
	if k, err := h.src.ReadAt(src, 4*e0); k < len(src) {
		return 0, fmt.Errorf("half blob: reading source at %d: %v", 4*e0, err)
	}
	if _, err := f16.F32ToF16LE(dst, src); err != nil {
		return 0, err
	}
	if h.clamp {
		clampHalves(dst, src)
	}
	n := copy(p[:want], dst[off-2*e0:])
	if int64(n) < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}
