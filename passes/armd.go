package passes

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/internal/ops"
)

var armDAbout = About{
	Summary: "seed arm D experiment: replace the gated-delta recurrence, per-head SDPA and RoPE by shape-preserving pass-throughs",
	Doc: `A diagnostic, not a fix: it reproduces the seed's arm D (ANE_DIAG_TRIVIAL)
on any export, to see what the Neural Engine compiler says once the
recurrence, attention and RoPE are out of the way. It changes the model's
output (the model no longer computes attention or the recurrence); never
ship its result.

What is replaced ("regions"), each by a pass-through of the same type:
  - composites: every coreai.invoke of a graph whose composite_decl name
    (or, without one, whose symbol name minus a _N suffix and any dotted
    prefix) is listed in option composites (gated_delta_update,
    gated_delta, scaled_dot_product_attention, sdpa, rope). Callee graphs
    left without callers are deleted (drop-unused-composites).
  - inline code, in graphs without composites: the ops whose debug
    location has a stack frame matching option regions. The defaults match
    the community builder as graph/synth emits arm A: the recurrence is
    everything called from qwen3_5_ios.py:290 (the call into
    _gated_delta_step, whose f32 casts are _to_copy_* at
    models/macos/qwen3_5.py:199), RoPE is apply_rope at
    qwen3_5_ios.py:140-147 (or Apple's primitives/ios/rope.py), SDPA is
    Apple's per-head primitives/ios/sdpa.py. A pattern id:<glob> matches
    op ids (FX node names) instead, for exports whose frames differ.
    Matching ops that are connected by def-use form one region (one per
    layer and call).

For a region, every value it defines that is used outside becomes a value
of exactly the same type computed from the region's inputs that it depended
on: the input itself when the type matches (RoPE's x, SDPA's query, the
recurrence's state slice, so the state write writes the state back), else a
reshape, slice, tile or cast of one (the recurrence's output from v). Among
equally close inputs, a composite input named in option prefer wins (x,
value, initial_state, … before cos/sin tables or masks), else the input
used last. Never a fresh constant, so state writes keep
flowing from the graph's inputs. State writes and handle ops
(keep-ops) are never part of a region; projections, norms, KV/conv/rec
state writes and the lm_head are outside the regions and stay.

With prune=true (default) the ops that fed only the removed regions (RoPE
tables, the q/k/β/g chains, KV rows read for SDPA) are deleted too, so no
f32 computed only for the recurrence or RoPE remains; dce still drops
unreferenced weight blobs.

The report lists every replaced op by op id and, per region, what each
output was replaced with. New ops carry a location "anefix.arm-d"(<the
region op's location>), which a second run skips: the pass is idempotent.`,
	Addresses: "",
}

// ArmDOptions are arm-d's options; declare
// declares each (name, typed default, doc, check) for the pipeline.
type ArmDOptions struct {
	Replace              []string
	Composites           []ArmDKind
	Regions              []ArmDKind
	KeepOps              []string
	Prefer               []string
	Prune                bool
	DropUnusedComposites bool
	Groups               []int
}

func (o *ArmDOptions) declare(d *Decls) {
	Declare(d, &o.Replace, Option[[]string]{Name: "replace", Default: []string{"recurrence", "sdpa", "rope"}, Doc: "region kinds to replace"})
	Declare(d, &o.Composites, Option[[]ArmDKind]{Name: "composites", Doc: "kind=name|name…: composite names (composite_decl or callee symbol) of each kind",
		Default: []ArmDKind{{"recurrence", []string{"gated_delta_update", "gated_delta"}}, {"sdpa", []string{"scaled_dot_product_attention", "sdpa"}}, {"rope", []string{"rope"}}},
		Codec:   ListCodec(parseArmDKind, ArmDKind.String, sampleArmDKind)})
	Declare(d, &o.Regions, Option[[]ArmDKind]{Name: "regions", Doc: "kind=pattern|pattern…: inline ops of each kind, by any stack frame of their location (file suffix[:line[-line]]) or by op id (id:<glob>, e.g. id:sdpa_*)",
		Default: []ArmDKind{{"recurrence", []string{"ios/qwen3_5_ios.py:290"}}, {"sdpa", []string{"primitives/ios/sdpa.py"}}, {"rope", []string{"ios/qwen3_5_ios.py:140-147", "primitives/ios/rope.py"}}},
		Codec:   ListCodec(parseArmDRegion, ArmDKind.String, sampleArmDRegion)})
	Declare(d, &o.KeepOps, Option[[]string]{Name: "keep-ops", Default: []string{"coreai.slice_update", "coreai.write_handle", "coreai.read_handle", "coreai.create_token"}, Doc: "ops never replaced (state writes, handle ops)"})
	Declare(d, &o.Prefer, Option[[]string]{Name: "prefer", Default: []string{"x", "input", "hidden_states", "value", "v", "initial_state", "state", "query", "q"}, Doc: "composite input names to derive from first, among inputs equally close to the output's type"})
	Declare(d, &o.Prune, Option[bool]{Name: "prune", Default: true, Doc: "delete ops that fed only the removed regions"})
	Declare(d, &o.DropUnusedComposites, Option[bool]{Name: "drop-unused-composites", Default: true, Doc: "delete private composite graphs left without callers"})
	Declare(d, &o.Groups, Option[[]int]{Name: "groups", Doc: "replace only these regions, by 1-based number counted per kind (composites first, then inline regions, in graph and op order); empty: all. The report notes how many regions of each kind there are (anefix bisect narrows by it)",
		Codec: ListCodec(parseArmDGroup, strconv.Itoa, func(r *rand.Rand) int { return 1 + r.IntN(5) })})
}

// checkTogether refuses a kind in replace that neither composites nor
// regions name.
func (o *ArmDOptions) checkTogether() error {
	known := map[string]bool{}
	for _, k := range append(slices.Clone(o.Composites), o.Regions...) {
		known[k.Kind] = true
	}
	for _, k := range o.Replace {
		if !known[k] {
			return &valueError{Option: "replace", Value: k, Valid: slices.Sorted(maps.Keys(known)), Of: "the kinds options composites and regions name"}
		}
	}
	return nil
}

// ArmDKind is one entry of composites or regions: kind=alt|alt….
type ArmDKind struct {
	Kind string
	Alts []string
}

// String is the entry as the option takes it.
func (k ArmDKind) String() string { return k.Kind + "=" + strings.Join(k.Alts, "|") }

// parseArmDKind reads kind=a|b (alternatives trimmed, empty ones dropped).
func parseArmDKind(e string) (ArmDKind, error) {
	k, alts, ok := strings.Cut(e, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.TrimSpace(alts) == "" {
		return ArmDKind{}, fmt.Errorf("%q is not kind=a|b", e)
	}
	out := ArmDKind{Kind: k}
	for _, a := range strings.Split(alts, "|") {
		if a = strings.TrimSpace(a); a != "" {
			out.Alts = append(out.Alts, a)
		}
	}
	if len(out.Alts) == 0 {
		return ArmDKind{}, fmt.Errorf("%q is not kind=a|b", e)
	}
	return out, nil
}

// parseArmDRegion reads kind=pattern|pattern, each a frame or id glob.
func parseArmDRegion(e string) (ArmDKind, error) {
	k, err := parseArmDKind(e)
	if err != nil {
		return k, err
	}
	for _, a := range k.Alts {
		if _, err := adParseFrame(a); err != nil {
			return ArmDKind{}, err
		}
	}
	return k, nil
}

func parseArmDGroup(g string) (int, error) {
	if n, err := strconv.Atoi(g); err == nil && n >= 1 {
		return n, nil
	}
	return 0, fmt.Errorf("%q is not a region number (1, 2, …)", g)
}

var adSampleKinds = []string{"recurrence", "sdpa", "rope"}

func sampleArmDKind(r *rand.Rand) ArmDKind {
	return ArmDKind{adSampleKinds[r.IntN(3)], []string{"gated_delta", "sdpa", "x.y"}[:1+r.IntN(3)]}
}

func sampleArmDRegion(r *rand.Rand) ArmDKind {
	return ArmDKind{adSampleKinds[r.IntN(3)], []string{"a.py:3", "id:sdpa_*", "b/c.py:1-9"}[:1+r.IntN(3)]}
}

// ArmD applies the arm-d pass to m (opts nil or partial: missing options
// take their defaults). graph/synth builds arm D as ArmD(arm A), so the
// synthetic arm D and `anefix rewrite --arm-d` share this one
// implementation.
func ArmD(m *graph.Module, opts *ArmDOptions) (*Change, error) {
	if opts == nil {
		opts = Defaults[ArmDOptions]()
	}
	ch, err := lookup("arm-d").Run(m, opts) // checks a struct built by hand
	if err != nil {
		return nil, fmt.Errorf("arm-d: %w", err)
	}
	return ch, nil
}

const adLocName = "anefix.arm-d"

// adFrame matches one stack frame: file suffix (at a path boundary) and an
// optional inclusive line range (0 = any).
type adFrame struct {
	file   string
	lo, hi int
	// id, when set, is a glob (path.Match syntax) on the op id (FX node
	// name) instead of a frame: "id:sdpa_*".
	id string
}

func adParseFrame(s string) (adFrame, error) {
	if g, ok := strings.CutPrefix(s, "id:"); ok {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return adFrame{}, fmt.Errorf("op id pattern %q: want a glob like id:_to_copy_*", s)
		}
		return adFrame{id: g}, nil
	}
	f := adFrame{file: s}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		lines := s[i+1:]
		lo, hi, isRange := strings.Cut(lines, "-")
		a, errA := strconv.Atoi(lo)
		b := a
		var errB error
		if isRange {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil || a < 1 || b < a {
			return f, fmt.Errorf("frame %q: want file[:line[-line]] with 1 ≤ first ≤ last line", s)
		}
		f = adFrame{file: s[:i], lo: a, hi: b}
	}
	if f.file == "" {
		return f, fmt.Errorf("frame %q has no file", s)
	}
	return f, nil
}

func (f adFrame) match(l *graph.FileLoc) bool {
	if l.File != f.file && !strings.HasSuffix(l.File, "/"+f.file) {
		return false
	}
	return f.lo == 0 || (l.Line >= f.lo && l.Line <= f.hi)
}

type adConfig struct {
	kinds      []string             // in replacement order
	composites map[string]string    // composite name → kind
	regions    map[string][]adFrame // kind → frames
	keep       map[string]bool
	prefer     map[string]int // composite input name → 1-based preference
	prune      bool
	dropUnused bool
	groups     map[int]bool // nil: every region
}

// adConfig reads the options (parsed and checked when they were set:
// options.go) into the pass's look-up tables.
func adParseConfig(opts *ArmDOptions) *adConfig {
	c := &adConfig{composites: map[string]string{}, regions: map[string][]adFrame{}, keep: map[string]bool{},
		prune: opts.Prune, dropUnused: opts.DropUnusedComposites}
	for _, k := range opts.Replace {
		c.kinds = append(c.kinds, k)
		for _, e := range opts.Composites {
			if e.Kind == k {
				for _, n := range e.Alts {
					c.composites[n] = k
				}
			}
		}
		for _, e := range opts.Regions {
			if e.Kind == k {
				for _, a := range e.Alts {
					f, _ := adParseFrame(a) // parseArmDRegion refused a bad one
					c.regions[k] = append(c.regions[k], f)
				}
			}
		}
	}
	c.prefer = map[string]int{}
	for i, n := range opts.Prefer {
		if _, dup := c.prefer[n]; !dup {
			c.prefer[n] = i + 1
		}
	}
	for _, n := range opts.KeepOps {
		c.keep[n] = true
	}
	for _, n := range opts.Groups {
		if c.groups == nil {
			c.groups = map[int]bool{}
		}
		c.groups[n] = true
	}
	return c
}

// ArmDGroupsNote is the prefix of the note that counts regions per kind.
const ArmDGroupsNote = "regions found per kind: "

// selected counts a region of kind and reports whether option groups
// selects it.
func (a *armd) selected(kind string) bool {
	a.seen[kind]++
	return a.cfg.groups == nil || a.cfg.groups[a.seen[kind]]
}

type armd struct {
	m   *graph.Module
	cfg *adConfig
	ch  *Change
	// seen counts the regions found per kind (option groups).
	seen map[string]int
	// fed are values read by removed ops: their producers are pruning
	// candidates.
	fed []*graph.Value
	// style is the module's constant style, shared by every region's
	// builder (asking per region walked the module per layer).
	style *ops.Style
}

func runArmD(m *graph.Module, opts *ArmDOptions) (*Change, error) {
	cfg := adParseConfig(opts)
	a := &armd{m: m, cfg: cfg, ch: &Change{}, seen: map[string]int{}}
	if err := a.composites(); err != nil {
		return nil, err
	}
	for _, g := range m.Graphs() {
		if g.Body() == nil {
			continue
		}
		for _, kind := range cfg.kinds {
			if len(cfg.regions[kind]) == 0 {
				continue
			}
			for _, r := range a.inlineRegions(g, kind) {
				if !a.selected(kind) {
					continue
				}
				if err := a.replace(r); err != nil {
					return nil, err
				}
			}
		}
	}
	if cfg.prune {
		a.pruneFed()
	}
	var counts []string
	found := 0
	for _, k := range cfg.kinds {
		counts = append(counts, fmt.Sprintf("%s=%d", k, a.seen[k]))
		found += a.seen[k]
	}
	if found > 0 {
		a.ch.Notes = append(a.ch.Notes, ArmDGroupsNote+strings.Join(counts, ","))
	}
	if len(a.ch.Replaced) == 0 {
		a.ch.Notes = append(a.ch.Notes, "nothing matched (no composite or region of kinds "+strings.Join(cfg.kinds, ", ")+")")
	}
	return a.ch, nil
}

// adRegion is a set of ops in one block to replace.
type adRegion struct {
	kind  string
	g     *graph.Graph
	ops   []*graph.Operation // block order
	set   map[*graph.Operation]bool
	label string // for messages
	// names are the composite's input names (callee port names) of its
	// operands, used to prefer the value-like input among equals.
	names map[*graph.Value]string
}

// compositeKind names the composite a callee graph implements.
func adCompositeKind(g *graph.Graph) string {
	if n, ok := g.CompositeName(); ok {
		return n
	}
	n := g.Name()
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		n = n[i+1:]
	}
	if i := strings.LastIndexByte(n, '_'); i >= 0 {
		if _, err := strconv.Atoi(n[i+1:]); err == nil {
			n = n[:i]
		}
	}
	return n
}

func (a *armd) composites() error {
	syms := a.m.Symbols()
	var invokes []*graph.Operation
	var owners []*graph.Graph
	for _, g := range a.m.Graphs() {
		g.Op.Walk(func(op *graph.Operation) bool {
			if op.Name == "coreai.invoke" {
				invokes = append(invokes, op)
				owners = append(owners, g)
			}
			return true
		})
	}
	replacedCallee := map[string]bool{}
	for i, op := range invokes {
		if op.IsErased() {
			continue
		}
		ref, ok := op.Inherent("callee").(*graph.SymbolRefAttr)
		if !ok {
			continue
		}
		target, ok := syms[ref.Root]
		if !ok || !graph.IsGraphOp(target) {
			continue
		}
		kind, ok := a.cfg.composites[adCompositeKind(&graph.Graph{Op: target})]
		if !ok {
			continue
		}
		r := &adRegion{kind: kind, g: owners[i], ops: []*graph.Operation{op}, set: map[*graph.Operation]bool{op: true},
			label: fmt.Sprintf("%s composite @%s", kind, ref.Root), names: map[*graph.Value]string{}}
		if !a.selected(kind) {
			continue
		}
		for j, p := range (&graph.Graph{Op: target}).Inputs() {
			if j < op.NumOperands() && p.Name != "" {
				if _, dup := r.names[op.Operand(j)]; !dup {
					r.names[op.Operand(j)] = p.Name
				}
			}
		}
		if err := a.replace(r); err != nil {
			return err
		}
		replacedCallee[ref.Root] = true
	}
	if !a.cfg.dropUnused || len(replacedCallee) == 0 {
		return nil
	}
	still := graph.Callees(a.m.Op)
	var names []string
	for n := range replacedCallee {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		g := a.m.Graph(n)
		if still[n] || g == nil || g.Visibility() != "private" {
			continue
		}
		if err := g.Op.Erase(); err == nil {
			a.ch.OpsRemoved++
			a.ch.Notes = append(a.ch.Notes, fmt.Sprintf("deleted composite graph @%s (no callers left)", n))
		}
	}
	return nil
}

func (a *armd) ours(op *graph.Operation) bool {
	l, ok := op.Loc.(*graph.NameLoc)
	return ok && l.Name == adLocName
}

// inlineRegions finds the connected groups of ops in g's body whose
// location matches kind's frames.
func (a *armd) inlineRegions(g *graph.Graph, kind string) []*adRegion {
	frames := a.cfg.regions[kind]
	body := g.Body()
	term := g.Terminator()
	matched := map[*graph.Operation]bool{}
	var order []*graph.Operation
	for _, op := range body.Ops() {
		if op == term || a.cfg.keep[op.Name] || graph.IsGraphOp(op) || a.ours(op) {
			continue
		}
		hit := false
		for _, f := range frames {
			if f.id != "" {
				if ok, _ := path.Match(f.id, op.OpID()); ok && op.OpID() != "" {
					hit = true
				}
				continue
			}
			for _, fl := range graph.BuiltinFileLocs(op.Loc) {
				if f.match(fl) {
					hit = true
				}
			}
		}
		if hit {
			matched[op] = true
			order = append(order, op)
		}
	}
	// An operand-free op (a constant) used outside the matched ops is shared
	// data, not part of a region: replacing it would change its other users.
	for _, op := range order {
		if op.NumOperands() > 0 {
			continue
		}
		for _, r := range op.Results() {
			for _, u := range r.Uses() {
				if !matched[adTopLevel(u.Op, body)] {
					delete(matched, op)
				}
			}
		}
	}
	// Union-find over def-use edges between matched ops.
	parent := map[*graph.Operation]*graph.Operation{}
	var find func(*graph.Operation) *graph.Operation
	find = func(x *graph.Operation) *graph.Operation {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for op := range matched {
		parent[op] = op
	}
	for _, op := range order {
		if !matched[op] {
			continue
		}
		for _, v := range op.Operands() {
			if d := v.DefiningOp(); d != nil && matched[d] {
				ra, rb := find(op), find(d)
				if ra != rb {
					parent[ra] = rb
				}
			}
		}
	}
	byRoot := map[*graph.Operation]*adRegion{}
	var out []*adRegion
	for _, op := range order {
		if !matched[op] {
			continue
		}
		root := find(op)
		r := byRoot[root]
		if r == nil {
			r = &adRegion{kind: kind, g: g, set: map[*graph.Operation]bool{}}
			byRoot[root] = r
			out = append(out, r)
		}
		r.ops = append(r.ops, op)
		r.set[op] = true
	}
	for _, r := range out {
		first := r.ops[0]
		for _, op := range r.ops {
			if op.NumOperands() > 0 {
				first = op
				break
			}
		}
		r.label = fmt.Sprintf("%s region in @%s starting at %s (%d ops)", kind, g.Name(), first.Describe(), len(r.ops))
	}
	return out
}

// adTopLevel returns the ancestor of op that sits directly in block b (op
// itself when it does), or nil.
func adTopLevel(op *graph.Operation, b *graph.Block) *graph.Operation {
	for o := op; o != nil; o = o.ParentOp() {
		if o.Block() == b {
			return o
		}
	}
	return nil
}

// replace swaps region r for pass-throughs and erases it.
func (a *armd) replace(r *adRegion) error {
	body := r.ops[0].Block()
	inside := func(op *graph.Operation) bool { return r.set[adTopLevel(op, body)] }
	// Inputs: values defined outside and read inside, in first-use order.
	var inputs []*graph.Value
	seenIn := map[*graph.Value]bool{}
	for _, op := range r.ops {
		op.Walk(func(o *graph.Operation) bool {
			for _, v := range o.Operands() {
				if d := v.DefiningOp(); (d == nil || !inside(d)) && !seenIn[v] {
					if _, _, isArg := v.BlockArg(); isArg && v.ParentBlock() != body && inside(v.ParentBlock().ParentOp()) {
						continue // an argument of a block nested in the region
					}
					seenIn[v] = true
					inputs = append(inputs, v)
				}
			}
			return true
		})
	}
	b := &adBuilder{m: a.m, style: a.style}
	defer func() { a.style = b.style }()
	var notes []string
	for _, op := range r.ops {
		for ri, res := range op.Results() {
			external := false
			for _, u := range res.Uses() {
				if !inside(u.Op) {
					external = true
				}
			}
			if !external {
				continue
			}
			t := ops.StaticTensor(res.Type())
			if t == nil {
				return fmt.Errorf("%s: result %d of %s has type %s; arm-d can only pass through static tensors (narrow the region with --set arm-d.regions=…)",
					r.label, ri, op.Describe(), res.Type())
			}
			deps := adDeps(res, inputs, inside)
			cands := adNonConst(deps)
			if len(cands) == 0 {
				cands = deps
			}
			c, tier := adPick(cands, t, func(v *graph.Value) int {
				if n, ok := r.names[v]; ok {
					return a.cfg.prefer[n] - 1 // 0 (absent) → -1
				}
				return -1
			})
			if c == nil {
				return fmt.Errorf("%s: result %d of %s (%s) depends on no usable region input, so it has no pass-through; exclude it with --set arm-d.regions=… or arm-d.replace=…",
					r.label, ri, op.Describe(), t)
			}
			b.before, b.loc = op, ops.PassLoc("arm-d", op.Loc)
			v, err := b.derive(c, t)
			if err != nil {
				return fmt.Errorf("%s: result %d of %s: %w", r.label, ri, op.Describe(), err)
			}
			res.ReplaceUsesIf(v, func(u graph.Use) bool { return !inside(u.Op) })
			how := map[int]string{1: "itself", 2: "reshaped", 3: "cast+reshaped", 4: "sliced", 5: "cast+sliced", 6: "tiled", 7: "cast+tiled"}[tier]
			notes = append(notes, fmt.Sprintf("%s %s ← %s %s", adValueName(res), t, adInputName(c, r), how))
		}
	}
	a.ch.OpsAdded += b.added
	for _, op := range r.ops {
		if op.Name != "coreai.constant" {
			a.ch.Replaced = append(a.ch.Replaced, ref(r.g, op))
		}
	}
	for i := len(r.ops) - 1; i >= 0; i-- {
		op := r.ops[i]
		for _, v := range op.Operands() {
			if d := v.DefiningOp(); d == nil || !inside(d) {
				a.fed = append(a.fed, v)
			}
		}
		if err := op.Erase(); err != nil {
			return fmt.Errorf("%s: %w (internal error: a use escaped the region)", r.label, err)
		}
		a.ch.OpsRemoved++
	}
	a.ch.Notes = append(a.ch.Notes, fmt.Sprintf("replaced %s: %s", r.label, strings.Join(notes, "; ")))
	return nil
}

// adValueName names a value for notes: its op id and result index, or the
// block argument index.
func adValueName(v *graph.Value) string {
	if d := v.DefiningOp(); d != nil {
		id := d.OpID()
		if id == "" {
			id = d.Name
		}
		if d.NumResults() > 1 {
			return fmt.Sprintf("%s#%d", id, v.ResultIndex())
		}
		return id
	}
	_, i, _ := v.BlockArg()
	return fmt.Sprintf("arg%d", i)
}

// adInputName names a pass-through source: the composite's input name, or
// the graph input's coreai.name, or adValueName.
func adInputName(v *graph.Value, r *adRegion) string {
	if n, ok := r.names[v]; ok {
		return n
	}
	if b, i, ok := v.BlockArg(); ok && b == r.g.Body() {
		if ins := r.g.Inputs(); i < len(ins) && ins[i].Name != "" {
			return "input " + ins[i].Name
		}
	}
	return adValueName(v)
}

// adDeps lists the inputs (in their order) that res depends on through ops
// inside the region.
func adDeps(res *graph.Value, inputs []*graph.Value, inside func(*graph.Operation) bool) []*graph.Value {
	isInput := map[*graph.Value]bool{}
	for _, v := range inputs {
		isInput[v] = true
	}
	hit := map[*graph.Value]bool{}
	seen := map[*graph.Operation]bool{}
	var visit func(v *graph.Value)
	visit = func(v *graph.Value) {
		if isInput[v] {
			hit[v] = true
			return
		}
		d := v.DefiningOp()
		if d == nil || seen[d] || !inside(d) {
			return
		}
		seen[d] = true
		d.Walk(func(o *graph.Operation) bool {
			for _, x := range o.Operands() {
				visit(x)
			}
			return true
		})
	}
	visit(res)
	var out []*graph.Value
	for _, v := range inputs {
		if hit[v] {
			out = append(out, v)
		}
	}
	return out
}

// adNonConst drops values produced by operand-free ops (constants).
func adNonConst(vs []*graph.Value) []*graph.Value {
	var out []*graph.Value
	for _, v := range vs {
		if d := v.DefiningOp(); d != nil && d.NumOperands() == 0 && len(d.Regions) == 0 {
			continue
		}
		out = append(out, v)
	}
	return out
}

// pruneFed deletes ops left without users whose results only fed removed
// regions, walking up the producers.
func (a *armd) pruneFed() {
	n := 0
	work := a.fed
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		d := v.DefiningOp()
		if d == nil || d.IsErased() || d.Block() == nil || a.cfg.keep[d.Name] || graph.IsGraphOp(d) ||
			d.NumResults() == 0 || d.Name == "coreai.output" || d.Name == "func.return" {
			continue
		}
		used := false
		for _, r := range d.Results() {
			if r.HasUses() {
				used = true
			}
		}
		if used {
			continue
		}
		ops := append([]*graph.Value(nil), d.Operands()...)
		if err := d.Erase(); err != nil {
			continue
		}
		n++
		work = append(work, ops...)
	}
	if n > 0 {
		a.ch.OpsRemoved += n
		a.ch.Notes = append(a.ch.Notes, fmt.Sprintf("pruned %d ops that only fed the replaced regions", n))
	}
}
