package ane

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/passes"
)

// Verdict is one op's outcome.
type Verdict int

const (
	// Legal: no blocker applies.
	Legal Verdict = iota
	// Illegal: at least one blocker applies.
	Illegal
	// Exempt: an index computation (integer values that only feed axes,
	// shapes and indices), which the element-type and rank rules skip.
	Exempt
)

func (v Verdict) String() string {
	switch v {
	case Illegal:
		return "illegal"
	case Exempt:
		return "exempt"
	}
	return "legal"
}

// Finding is one rule applying to one op.
type Finding struct {
	Rule   *Rule
	Graph  string
	Op     *graph.Operation // nil for findings without an op
	Index  int              // op's pre-order position in its graph
	OpID   string
	OpName string
	Source string // "file:line" of the op's first file location
	// Via is the first caller frame in another file ("file:line"), e.g. the
	// builder line that called into the model code; "" when none.
	Via string
	// Fix overrides Rule.Fix when the fixing pass depends on the case.
	Fix    string
	Detail string // what exactly: the type, the port, the dimension
	// Log names where a compiler diagnostic came from ("stderr:12"); empty
	// for predictions.
	Log string
	// NoFix: the rule's fixing pass would not remove this finding (its
	// preview leaves the values behind it); Detail then says what would.
	NoFix bool
	// vals are the values whose element type the finding is about (the
	// island's or the port's), for fixes.go.
	vals []*graph.Value
}

// FixPass is the pass that removes the finding ("" when none): check names
// one only where the pass, with the options the rule prints, removes it
// (fixes.go asks the pass's own preview).
func (f *Finding) FixPass() string {
	switch {
	case f.NoFix:
		return ""
	case f.Fix != "":
		return f.Fix
	}
	return f.Rule.Fix
}

// OpVerdict is one op's verdict with the IDs of the rules behind it.
type OpVerdict struct {
	Op      *graph.Operation
	Index   int
	Verdict Verdict
	Rules   []string
}

// GraphResult is what the model says about one graph.
type GraphResult struct {
	Name string
	// Entry marks a graph the compiler compiles as a function (public, not
	// called by another graph); composites are checked but not counted.
	Entry    bool
	Verdicts []OpVerdict
	Findings []Finding // blockers and infos, op order
	Suspects []Finding // op order
	// Hazards are the advisory fp16 findings (hazards.go), op order; they
	// never set Blocked.
	Hazards []Finding
	// Blocked is true when a blocker applies to this graph or a graph it
	// invokes.
	Blocked bool
	// RegionsObserved is the prediction under coreai-build 3600.83.1's
	// observed behaviour: 1 when the graph is fully legal, else 0 (the ANE
	// compile of the function fails and it runs on the GPU).
	RegionsObserved int
	// Segments is the number of maximal runs of legal ops in program order:
	// what a compiler that partitions around illegal ops could place.
	Segments int
	// Ops counts the ops examined (constants and the terminator included).
	Ops int
	// Advice are the performance findings (calib.go), op order; they never
	// change a verdict, a prediction or the exit code.
	Advice []Finding
	// PredictedRegions is the region count for Report.Architecture's
	// behaviour (calib.go), meaningful only when RegionsKnown; RegionModel
	// says what the prediction assumed, or why there is none.
	PredictedRegions int
	RegionsKnown     bool
	RegionModel      string
	offANE           map[*graph.Operation]bool
}

// Report is the result of Check.
type Report struct {
	RuleSet  string
	Compiler string
	Graphs   []GraphResult
	// HazardNotes says what the fp16 hazard rules could not read (a blob
	// whose bytes are absent, the scan budget), in first-seen order.
	HazardNotes []string
	// Architecture is the target of GraphResult.PredictedRegions.
	Architecture Architecture
}

// AllAdvice returns every performance finding across graphs.
func (r *Report) AllAdvice() []Finding {
	var out []Finding
	for i := range r.Graphs {
		out = append(out, r.Graphs[i].Advice...)
	}
	return out
}

// PredictedRegions sums the architecture prediction over entry graphs; ok
// is false when any entry graph's count is unknown.
func (r *Report) PredictedRegions() (regions int, ok bool) {
	ok = true
	for i := range r.Graphs {
		if g := &r.Graphs[i]; g.Entry {
			regions += g.PredictedRegions
			ok = ok && g.RegionsKnown
		}
	}
	return regions, ok
}

// Legal reports whether every entry graph is predicted fully legal.
func (r *Report) Legal() bool {
	for i := range r.Graphs {
		if r.Graphs[i].Entry && r.Graphs[i].Blocked {
			return false
		}
	}
	return true
}

// Regions sums the observed-behaviour prediction over entry graphs and
// returns it with the number of entry graphs.
func (r *Report) Regions() (regions, functions int) {
	for i := range r.Graphs {
		if r.Graphs[i].Entry {
			functions++
			regions += r.Graphs[i].RegionsObserved
		}
	}
	return regions, functions
}

// AllFindings returns every blocker/info finding across graphs.
func (r *Report) AllFindings() []Finding {
	var out []Finding
	for i := range r.Graphs {
		out = append(out, r.Graphs[i].Findings...)
	}
	return out
}

// AllSuspects returns every suspect finding across graphs.
func (r *Report) AllSuspects() []Finding {
	var out []Finding
	for i := range r.Graphs {
		out = append(out, r.Graphs[i].Suspects...)
	}
	return out
}

// AllHazards returns every fp16 hazard finding across graphs.
func (r *Report) AllHazards() []Finding {
	var out []Finding
	for i := range r.Graphs {
		out = append(out, r.Graphs[i].Hazards...)
	}
	return out
}

// Check runs the rule model over every graph of m. It does not modify m.
func Check(m *graph.Module) (*Report, error) { return CheckWith(m, Options{}) }

// Options choose what Check runs beyond the legality rules; neither changes
// a verdict (tests compare the reports with and without the hazard rules).
type Options struct {
	// NoHazards turns the fp16 hazard rules off (compile, which does not
	// report them).
	NoHazards bool
	// NoHazardBlobs keeps the hazard rules off dense_resource blobs, which
	// they otherwise read in full (1.5 GB for full-scale weights); inline
	// dense constants are still read.
	NoHazardBlobs bool
	// Architecture names the target of the region prediction (calib.go;
	// "" is DefaultArchitecture). It changes no verdict.
	Architecture string
	// States pairs state inputs with their outputs (graph/states.go); the
	// zero value is the default pairing, the one rewrite's default
	// pipeline uses.
	States graph.StateOptions
	// noFixes skips asking the fixing passes' previews (fixes.go), as
	// ElementTypeBlockers must: strip-fp32-casts' preview asks it.
	noFixes bool
}

// CheckWith is Check with options.
func CheckWith(m *graph.Module, o Options) (*Report, error) {
	if m == nil || len(m.Op.Regions) == 0 || len(m.Op.Regions[0].Blocks) == 0 {
		return nil, fmt.Errorf("ane check: empty module")
	}
	arch, err := ParseArchitecture(o.Architecture)
	if err != nil {
		return nil, err
	}
	rep := &Report{RuleSet: RuleSetVersion, Compiler: CompilerVersion, Architecture: arch}
	graphs := m.Graphs()
	entries := map[*graph.Operation]bool{}
	for _, g := range graph.EntryGraphs(m, graph.EntryPublic) {
		entries[g.Op] = true
	}
	byName := map[string]int{}
	var scan *hazardScan
	if !o.NoHazards {
		scan = newHazardScan(m)
		scan.noBlobs = o.NoHazardBlobs
	}
	checkers := make([]*checker, len(graphs))
	for i, g := range graphs {
		checkers[i] = newChecker(g, o.States)
		checkers[i].entry = entries[g.Op]
	}
	roundTrips := calleeRoundTrips(checkers)
	for i, g := range graphs {
		c := checkers[i]
		c.scan = scan
		c.roundTrips = roundTrips[g.Name()]
		c.run()
		byName[g.Name()] = len(rep.Graphs)
		res := c.result()
		res.offANE = c.offANEOps()
		rep.Graphs = append(rep.Graphs, res)
	}
	// A blocker inside an invoked composite blocks its callers (the
	// compiler inlines composites into the function it compiles).
	callees := map[string][]string{}
	for _, g := range graphs {
		callees[g.Name()] = g.Composites()
	}
	var blocked func(name string, seen map[string]bool) bool
	blocked = func(name string, seen map[string]bool) bool {
		i, ok := byName[name]
		if !ok || seen[name] {
			return false
		}
		seen[name] = true
		if rep.Graphs[i].Blocked {
			return true
		}
		for _, c := range callees[name] {
			if blocked(c, seen) {
				return true
			}
		}
		return false
	}
	for i, g := range graphs {
		gr := &rep.Graphs[i]
		if !gr.Blocked {
			for _, c := range callees[g.Name()] {
				if blocked(c, map[string]bool{g.Name(): true}) {
					gr.Blocked = true
				}
			}
		}
		if gr.Entry {
			gr.RegionsObserved = 0
			if !gr.Blocked {
				gr.RegionsObserved = 1
			}
			gr.Segments = segments(g, gr, func(callee string) bool { return blocked(callee, map[string]bool{}) })
		}
	}
	var hasRule func(name string, rules map[*Rule]bool, seen map[string]bool) *Rule
	hasRule = func(name string, rules map[*Rule]bool, seen map[string]bool) *Rule {
		i, ok := byName[name]
		if !ok || seen[name] {
			return nil
		}
		seen[name] = true
		for _, f := range rep.Graphs[i].Findings {
			if rules[f.Rule] {
				return f.Rule
			}
		}
		for _, c := range callees[name] {
			if r := hasRule(c, rules, seen); r != nil {
				return r
			}
		}
		return nil
	}
	calleeOff := func(name string) bool {
		i, ok := byName[name]
		return ok && (len(rep.Graphs[i].offANE) > 0 || blocked(name, map[string]bool{}))
	}
	for i, g := range graphs {
		if gr := &rep.Graphs[i]; gr.Entry {
			predictRegions(arch, g, gr, gr.offANE,
				func(n string, rules map[*Rule]bool) *Rule { return hasRule(n, rules, map[string]bool{}) }, calleeOff)
		}
	}
	if scan != nil {
		rep.HazardNotes = scan.notes()
	}
	if !o.noFixes {
		resolveFixes(m, rep)
	}
	return rep, nil
}

// checker holds the per-graph analysis state.
type checker struct {
	g         *graph.Graph
	entry     bool
	ops       []*graph.Operation
	index     map[*graph.Operation]int
	paramOnly map[*graph.Value]bool  // skipped by element-type and rank
	storage   map[*graph.Value]bool  // compressed weights in their storage type (storageSlots)
	indexOnly map[*graph.Value]bool  // feeds parameter operands only
	isInput   map[*graph.Value]int   // block arg → input index
	isOutput  map[*graph.Value][]int // terminator operand → output indices
	inputs    []graph.Port
	outputs   []graph.Port
	states    *graph.StateAnalysis // which output carries each state's new value
	// roundTrips, for a composite, maps each result to the arguments some
	// call site feeds from the state that result is written back into
	// (calleeRoundTrips).
	roundTrips map[int][]int
	term       *graph.Operation
	findings   []Finding
	suspects   []Finding
	hazards    []Finding
	advice     []Finding
	scan       *hazardScan // nil: no hazard rules
	// alsoIllegal holds ops illegal under a rule whose finding sits on
	// another op (the inside of a reported fp32 island).
	alsoIllegal map[*graph.Operation]string
}

func newChecker(g *graph.Graph, so graph.StateOptions) *checker {
	c := &checker{g: g, index: map[*graph.Operation]int{}, paramOnly: map[*graph.Value]bool{}, indexOnly: map[*graph.Value]bool{}, storage: map[*graph.Value]bool{},
		isInput: map[*graph.Value]int{}, isOutput: map[*graph.Value][]int{}, alsoIllegal: map[*graph.Operation]string{}}
	if g.Body() == nil {
		return c
	}
	g.Op.Walk(func(o *graph.Operation) bool {
		if o == g.Op {
			return true
		}
		c.index[o] = len(c.ops)
		c.ops = append(c.ops, o)
		return true
	})
	c.inputs = g.Inputs()
	c.outputs = g.Outputs()
	c.states = graph.States(g, so)
	for i, a := range g.Body().Args() {
		c.isInput[a] = i
	}
	c.term = g.Terminator()
	if c.term != nil {
		for i, v := range c.term.Operands() {
			c.isOutput[v] = append(c.isOutput[v], i)
		}
	}
	return c
}

func (c *checker) run() {
	if c.g.Body() == nil {
		return
	}
	c.computeParamOnly()
	c.computeStorage()
	c.elementTypes()
	c.ioOps()
	c.shapesAndOps()
	c.suspectTiedHead()
	c.suspectStateWrites()
	c.checkHazards()
	c.calibratedRules()
}

func (c *checker) add(r *Rule, op *graph.Operation, fix, detail string) {
	c.addVals(r, op, fix, detail, nil)
}

// addVals adds a finding about the element type of vals.
func (c *checker) addVals(r *Rule, op *graph.Operation, fix, detail string, vals []*graph.Value) {
	f := Finding{Rule: r, Graph: c.g.Name(), Op: op, Fix: fix, Detail: detail, vals: vals}
	if op != nil {
		f.Index = c.index[op]
		f.OpID = op.OpID()
		f.OpName = op.Name
		f.Source = op.Source()
		f.Via = viaFrame(op.Loc)
	}
	switch r.Severity {
	case Suspect:
		c.suspects = append(c.suspects, f)
	case Hazard:
		c.hazards = append(c.hazards, f)
	case Advice:
		c.advice = append(c.advice, f)
	default:
		c.findings = append(c.findings, f)
	}
}

func (c *checker) result() GraphResult {
	gr := GraphResult{Name: c.g.Name(), Entry: c.entry, Ops: len(c.ops)}
	sortFindings(c.findings)
	sortFindings(c.suspects)
	sortFindings(c.hazards)
	gr.Findings, gr.Suspects, gr.Hazards = c.findings, c.suspects, c.hazards
	sortFindings(c.advice)
	gr.Advice = c.advice
	rules := map[*graph.Operation][]string{}
	for _, f := range c.findings {
		if f.Rule.Severity == Blocker {
			gr.Blocked = true
			if f.Op != nil && !slices.Contains(rules[f.Op], f.Rule.ID) {
				rules[f.Op] = append(rules[f.Op], f.Rule.ID)
			}
		}
	}
	for op, id := range c.alsoIllegal {
		gr.Blocked = true
		if !slices.Contains(rules[op], id) {
			rules[op] = append(rules[op], id)
		}
	}
	for i, op := range c.ops {
		v := OpVerdict{Op: op, Index: i}
		switch {
		case len(rules[op]) > 0:
			v.Verdict, v.Rules = Illegal, rules[op]
		case op.Name != "coreai.constant" && c.isIndexOp(op):
			v.Verdict = Exempt
		}
		gr.Verdicts = append(gr.Verdicts, v)
	}
	return gr
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Index != fs[j].Index {
			return fs[i].Index < fs[j].Index
		}
		return ruleOrder(fs[i].Rule) < ruleOrder(fs[j].Rule)
	})
}

// ---- parameter operands ----

// isParamSlot reports whether operand i of op carries a setting rather than
// tensor data: axes, shapes, permutations, begin/end/stride, indices,
// conditions, scalar settings (coreaiop.Role.Setting; the roles and their
// sources are in graph/coreaiop). The element-type and rank rules skip such
// operands.
func isParamSlot(op *graph.Operation, i int) bool {
	return coreaiop.OperandRole(op, i).Setting()
}

// isStorageSlot reports whether operand i of op holds compressed weights in
// their storage type (palette indices such as ui4, quantized si8/si4 data,
// their scales and offsets: coreaiop.Storage): the op turns them into a
// compute type, so the element-type rule looks at its result, not at them.
// Linear INT4 is its own rule (RuleLinearInt4). Guess, unconfirmed: that the
// compiler checks these operands' types only through that rule (palettized
// and si8 programs compile; README "Checking on a Mac" cites the reports).
func isStorageSlot(op *graph.Operation, i int) bool {
	return coreaiop.OperandRole(op, i) == coreaiop.Storage
}

func baseOpName(name string) string { return coreaiop.Base(name) }

func isIntegerType(t graph.Type) bool {
	_, ok := graph.ElementType(t).(*graph.IntegerType)
	return ok
}

// computeParamOnly marks values the element-type and rank rules skip:
// values whose every use is a parameter operand, and integer values that
// only feed casts (the int→float conversion of an input such as
// position_ids) or ops whose results are all skipped (index arithmetic such
// as the concat that builds slice_update's begin from in_step). Calibrated
// on the seed: arm D kept the si32 in_step input and the compiler reported
// no element-type warning; no integer input was ever cited. Walks ops
// backwards so users are decided before definitions.
func (c *checker) computeParamOnly() {
	c.markParams(c.indexOnly, false)
	c.markParams(c.paramOnly, true)
}

func (c *checker) markParams(into map[*graph.Value]bool, castsToo bool) {
	decide := func(v *graph.Value) {
		uses := v.Uses()
		if len(uses) == 0 {
			return
		}
		for _, u := range uses {
			if isParamSlot(u.Op, u.Index) {
				continue
			}
			if !isIntegerType(v.Type()) || u.Op == c.term || u.Op.NumResults() == 0 || isStructural(u.Op) {
				return
			}
			if castsToo && u.Op.Name == "coreai.cast" {
				continue
			}
			for _, r := range u.Op.Results() {
				if !into[r] {
					return
				}
			}
		}
		into[v] = true
	}
	for i := len(c.ops) - 1; i >= 0; i-- {
		for _, r := range c.ops[i].Results() {
			decide(r)
		}
	}
	for _, a := range c.g.Body().Args() {
		decide(a)
	}
}

// computeStorage marks the values that only reach storage slots, directly
// or through data-movement ops (coreai-torch reshapes a scalar scale to the
// input's rank before blockwise_shift_scale).
func (c *checker) computeStorage() {
	for i := len(c.ops) - 1; i >= 0; i-- {
		for _, r := range c.ops[i].Results() {
			uses := r.Uses()
			ok := len(uses) > 0
			for _, u := range uses {
				if isStorageSlot(u.Op, u.Index) {
					continue
				}
				if !moveOps[baseOpName(u.Op.Name)] || u.Index != 0 || u.Op.NumResults() == 0 {
					ok = false
					break
				}
				for _, x := range u.Op.Results() {
					ok = ok && c.storage[x]
				}
			}
			if ok {
				c.storage[r] = true
			}
		}
	}
}

// linearInt4 reports whether a blockwise_shift_scale dequantizes linear
// 4-bit integer weights (its data operand is si4/ui4/i4 and does not come
// from a lut_to_dense): the case README "Checking on a Mac" cites.
// si8, f8E4M3FN and palettized (lut_to_dense) inputs are not.
func linearInt4(op *graph.Operation) (string, bool) {
	if op.NumOperands() == 0 {
		return "", false
	}
	v := op.Operand(0)
	t := dataTensor(v.Type())
	if t == nil {
		return "", false
	}
	it, ok := t.Elem.(*graph.IntegerType)
	if !ok || it.Width != 4 {
		return "", false
	}
	for hops := 0; hops < 64; hops++ {
		d := v.DefiningOp()
		if d == nil || d.NumOperands() == 0 {
			break
		}
		if baseOpName(d.Name) == "coreai.lut_to_dense" {
			return "", false
		}
		if !moveOps[baseOpName(d.Name)] {
			break
		}
		v = d.Operand(0)
	}
	return "linear " + t.Elem.String() + " weights " + t.String(), true
}

func isStructural(op *graph.Operation) bool {
	switch op.Name {
	case "coreai.invoke", "func.call", "coreai.output", "func.return":
		return true
	}
	return false
}

// isIndexOp reports whether op only computes parameter values.
func (c *checker) isIndexOp(op *graph.Operation) bool {
	if op.NumResults() == 0 || op == c.term {
		return false
	}
	for _, r := range op.Results() {
		if !c.paramOnly[r] {
			return false
		}
	}
	return true
}

// ---- element types ----

// aneElem reports whether an element type is one the compiler lists.
func aneElem(t graph.Type) bool {
	switch e := t.(type) {
	case *graph.FloatType:
		return e.Name == "f16" || e.Name == "f8E4M3" || e.Name == "f8E4M3FN"
	case *graph.IntegerType:
		if e.Signedness == graph.Signless {
			return false
		}
		return e.Width == 8 || e.Width == 16
	}
	return false
}

// dataTensor returns the tensor type carried by v (through a state handle),
// or nil for tokens and non-tensor values.
func dataTensor(t graph.Type) *graph.TensorType {
	if o, ok := t.(*graph.OpaqueType); ok {
		return graph.HandleInner(o)
	}
	tt, _ := graph.AsTensor(t)
	return tt
}

// badElem reports whether v is a data value with a non-ANE element type.
func (c *checker) badElem(v *graph.Value) bool {
	if c.paramOnly[v] || c.storage[v] {
		return false
	}
	t := dataTensor(v.Type())
	if t == nil {
		// Scalars (f32, i32) as values are data too.
		switch v.Type().(type) {
		case *graph.FloatType, *graph.IntegerType:
			return !aneElem(v.Type())
		}
		return false
	}
	return !aneElem(t.Elem)
}

// elementTypes implements RuleElementType and SuspectFp32Chain.
//
// Non-ANE values are grouped into islands (an op joins its non-ANE operands
// and results: graph.FloatIslands, whose doc says where this rule's islands
// differ from strip-fp32-casts' and inspect's). The seed's compiler cited the
// casts that open the gated-delta recurrence's fp32 island (six per layer:
// q, k, v, β, g and the state; arm C: 5 layers, 30 warnings) and never the
// builder's fp32 norms or RoPE, which are fp32 islands too; with the
// recurrence gone (arm D) the warnings vanished. What sets the recurrence
// apart is that it is a round trip through the graph's interface: it reads
// a buffer the graph is given (the recurrent state, plain input or state)
// and writes its fp32 result back into the same buffer. So an island is
// reported when it holds a graph input or output itself, or when a buffer
// it reads (through data-movement ops) is a buffer it writes; the other
// islands are listed as fp32-chain suspects (still fp32, never cited).
//
// A finding is placed on the ops that open the island (casts into fp32,
// ops reading an fp32 input), which are what the compiler cites and what
// strip-fp32-casts removes; constants open an island only when nothing else
// does.
func (c *checker) elementTypes() {
	// Parameter and storage slots are not data (graph.IslandOptions says
	// how this rule's islands differ from strip-fp32-casts').
	notData := func(op *graph.Operation, i int) bool { return isParamSlot(op, i) || isStorageSlot(op, i) }
	fi := graph.FloatIslands([]*graph.Graph{c.g}, graph.IslandOptions{Member: c.badElem, SkipOperand: notData, CastsJoin: true, Ties: coreaiop.Ties})
	find := fi.Root
	opVals := map[*graph.Operation][]*graph.Value{}
	var islandOps []*graph.Operation
	for _, op := range c.ops {
		if op == c.term {
			continue
		}
		var bad []*graph.Value
		for i, v := range op.Operands() {
			if !notData(op, i) && c.badElem(v) {
				bad = append(bad, v)
			}
		}
		for _, r := range op.Results() {
			if c.badElem(r) {
				bad = append(bad, r)
			}
		}
		if len(bad) > 0 {
			opVals[op] = bad
			islandOps = append(islandOps, op)
		}
	}
	if len(islandOps) == 0 {
		return
	}
	type island struct {
		why    string
		ops    int
		roots  []*graph.Operation // casts in, ops reading an fp32 input
		consts []*graph.Operation
		types  map[string]bool
		all    []*graph.Operation
		reads  map[int]bool // inputs whose data enters the island
		writes map[int]bool // inputs whose buffer the island's results are written into
		vals   []*graph.Value
		seen   map[*graph.Value]bool
	}
	islands := map[*graph.Value]*island{}
	var order []*graph.Value
	get := func(v *graph.Value) *island {
		r := find(v)
		is := islands[r]
		if is == nil {
			is = &island{types: map[string]bool{}, reads: map[int]bool{}, writes: map[int]bool{}, seen: map[*graph.Value]bool{}}
			islands[r] = is
			order = append(order, r)
		}
		return is
	}
	for _, op := range islandOps {
		is := get(opVals[op][0])
		is.ops++
		is.all = append(is.all, op)
		opens, readsInput := true, false
		for i, v := range op.Operands() {
			if isParamSlot(op, i) || !c.badElem(v) {
				continue
			}
			opens = false
			if _, ok := c.isInput[v]; ok {
				readsInput = true
			}
		}
		for i, v := range op.Operands() {
			if !isParamSlot(op, i) && !c.badElem(v) {
				if in := c.sourceInput(v); in >= 0 {
					is.reads[in] = true
				}
			}
		}
		for _, v := range opVals[op] {
			if is.seen[v] {
				// What follows depends on v alone: once per value
				// (a value read by every layer is met once per reader).
				continue
			}
			is.seen[v] = true
			is.vals = append(is.vals, v)
			is.types[graph.ElementType(dataTensorOrType(v.Type())).String()] = true
			if why := c.portWhy(v); why != "" && is.why == "" {
				is.why = why
			}
			for _, u := range v.Uses() {
				if u.Op.Name == "coreai.cast" && u.Op.NumResults() == 1 && !c.badElem(u.Op.Result(0)) {
					c.writtenInputs(u.Op.Result(0), is.writes)
				}
			}
		}
		switch {
		case op.Name == "coreai.constant":
			is.consts = append(is.consts, op)
		case opens || readsInput:
			is.roots = append(is.roots, op)
		}
	}
	for _, r := range order {
		is := islands[r]
		roots := is.roots
		if len(roots) == 0 {
			roots = is.consts
		}
		if is.why == "" {
			for _, in := range slices.Sorted(maps.Keys(is.reads)) {
				if is.writes[in] {
					is.why = "is a round trip through input " + portName(c.inputs, in) + " (read, updated in fp32, written back)"
					break
				}
			}
		}
		detail := fmt.Sprintf("opens a %s chain of %d ops", joinKeys(is.types), is.ops)
		if is.why != "" {
			for _, op := range is.all {
				c.alsoIllegal[op] = RuleElementType.ID
			}
		}
		for _, op := range roots {
			if is.why != "" {
				c.addVals(RuleElementType, op, "", detail+" that "+is.why, is.vals)
			} else {
				c.addVals(SuspectFp32Chain, op, "", detail+" that ends in casts inside the graph", is.vals)
			}
		}
	}
}

// portWhy describes v when it is itself an entry graph's input or output.
func (c *checker) portWhy(v *graph.Value) string {
	if !c.entry {
		return ""
	}
	if i, ok := c.isInput[v]; ok {
		return "holds graph input " + portName(c.inputs, i)
	}
	if outs, ok := c.isOutput[v]; ok {
		return "holds graph output " + portName(c.outputs, outs[0])
	}
	return ""
}

// moveOps only move, cut or retype data (operand 0 is the data): the op
// table's Moves rows (graph/coreaiop).
var moveOps = coreaiop.MoveOps()

// sourceInput follows v backwards through data-movement ops (operand 0) and
// returns the input index it comes from, or -1.
func (c *checker) sourceInput(v *graph.Value) int {
	for hops := 0; v != nil && hops < 256; hops++ {
		if i, ok := c.isInput[v]; ok {
			return i
		}
		d := v.DefiningOp()
		if d == nil || d.NumOperands() == 0 || !moveOps[baseOpName(d.Name)] {
			return -1
		}
		v = d.Operand(0)
	}
	return -1
}

// writtenInputs follows v forwards through data-movement ops and records
// the inputs whose buffer it is stored into: a slice_update whose
// destination comes from that input, a state output (mapped to its input),
// or a write_handle on an input handle.
//
// In a composite the arguments stand for the inputs: result j is stored
// into argument i when a call site feeds i from a state and writes j back
// into it (roundTrips), since the compiler inlines the composite into the
// function it compiles.
func (c *checker) writtenInputs(v *graph.Value, into map[int]bool) {
	if !c.entry && len(c.roundTrips) == 0 {
		return
	}
	walkForward(v, func(u graph.Use) (follow, stop bool) {
		base := baseOpName(u.Op.Name)
		switch {
		case u.Op == c.term && !c.entry:
			for _, i := range c.roundTrips[u.Index] {
				into[i] = true
			}
		case u.Op == c.term:
			if p, ok := c.states.ForOutput(u.Index); ok {
				into[p.In] = true
			}
		case base == "coreai.write_handle" && u.Index == 1:
			if in := c.sourceInput(u.Op.Operand(0)); in >= 0 {
				into[in] = true
			}
		case base == "coreai.slice_update" && u.Index == 1:
			if in := c.sourceInput(u.Op.Operand(0)); in >= 0 {
				into[in] = true
			}
			return true, false
		case (moveOps[base] || base == "coreai.concat") && !isParamSlot(u.Op, u.Index) && base != "coreai.slice":
			return true, false
		}
		return false, false
	})
}

// calleeRoundTrips finds, for each composite an entry graph calls, the
// (result, argument) pairs that are a round trip through one of the
// caller's states: the call's argument comes from the state input
// (through data-movement ops) and its result is stored back into that
// state. Guess, marked: one level of calls, the form coreai-torch's
// composites take (a composite calling another is not followed).
func calleeRoundTrips(cs []*checker) map[string]map[int][]int {
	out := map[string]map[int][]int{}
	for _, c := range cs {
		if !c.entry || c.term == nil {
			continue
		}
		for _, op := range c.ops {
			callee, ok := graph.Callee(op)
			if !ok {
				continue
			}
			for j, r := range op.Results() {
				writes := map[int]bool{}
				c.writtenInputs(r, writes)
				for i, a := range op.Operands() {
					if in := c.sourceInput(a); in >= 0 && writes[in] {
						if out[callee] == nil {
							out[callee] = map[int][]int{}
						}
						if !slices.Contains(out[callee][j], i) {
							out[callee][j] = append(out[callee][j], i)
						}
					}
				}
			}
		}
	}
	return out
}

// walkForward calls visit for every use of v and of each op result visit
// asks to follow, visiting each value once and at most 4096 values, and
// stops when visit says so. writtenInputs and storedBack differ only in
// which uses they follow and what they record.
func walkForward(v *graph.Value, visit func(u graph.Use) (follow, stop bool)) {
	seen := map[*graph.Value]bool{}
	work := []*graph.Value{v}
	for len(work) > 0 && len(seen) < 4096 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		for _, u := range x.Uses() {
			follow, stop := visit(u)
			if stop {
				return
			}
			if follow {
				work = append(work, u.Op.Results()...)
			}
		}
	}
}

func dataTensorOrType(t graph.Type) graph.Type {
	if d := dataTensor(t); d != nil {
		return d
	}
	return t
}

func joinKeys(m map[string]bool) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// portName is port i's Label, a name quoted.
func portName(ps []graph.Port, i int) string {
	if i < len(ps) && ps[i].Name != "" {
		return strconv.Quote(ps[i].Name)
	}
	return graph.Port{Index: i}.Label()
}

// ---- graph boundary ----

// ioOps implements RuleIOOp for entry graphs.
func (c *checker) ioOps() {
	if !c.entry {
		return
	}
	for _, op := range c.ops {
		if op == c.term || op.Name == "coreai.constant" {
			continue
		}
		var ports []string
		var bad []*graph.Value
		for i, v := range op.Operands() {
			if idx, ok := c.isInput[v]; ok && !isParamSlot(op, i) && !c.indexOnly[v] {
				ports = append(ports, "input "+portName(c.inputs, idx))
				if c.badElem(v) {
					bad = append(bad, v)
				}
			}
		}
		for _, r := range op.Results() {
			for _, idx := range c.isOutput[r] {
				ports = append(ports, "output "+portName(c.outputs, idx))
				if c.badElem(r) {
					bad = append(bad, r)
				}
			}
		}
		badPort := len(bad) > 0
		if len(ports) == 0 {
			continue
		}
		where := strings.Join(ports, ", ")
		switch base := baseOpName(op.Name); {
		case base == "coreai.expand_dims" || base == "coreai.shrink_dims":
			c.add(RuleIOOp, op, "fold-io-unsqueeze", "rank change on "+where)
		case badPort:
			c.addVals(RuleIOOp, op, "strip-fp32-casts", "non-ANE element type on "+where, bad)
		}
	}
}

// ---- shapes and op kinds ----

func (c *checker) shapesAndOps() {
	for _, op := range c.ops {
		if op == c.term {
			continue
		}
		var rank, dyn string
		check := func(v *graph.Value) {
			t := dataTensor(v.Type())
			if t == nil {
				return
			}
			if !t.IsStatic() && dyn == "" {
				dyn = t.String()
			}
			// A palette's storage (lut_to_dense's LUT has the weight's
			// rank + 2 dimensions, coreai-torch custom_layers.py) is not a
			// tensor the engine computes with: palettized conv2d weights
			// (rank 4, so rank-6 LUTs) are what Apple's iOS builders'
			// 4-bit exports hold, and those compiled 31/31 (inferred:
			// RuleLUT4SmallGroup's records do not print the LUT shape).
			if t.Rank() > 5 && rank == "" && !c.paramOnly[v] && !c.storage[v] {
				rank = t.String()
			}
		}
		for _, v := range op.Operands() {
			check(v)
		}
		for _, r := range op.Results() {
			check(r)
		}
		if rank != "" {
			c.add(RuleRank, op, "", rank)
		}
		if dyn != "" {
			c.add(RuleStatic, op, "", dyn)
		}
		switch d := op.Dialect(); {
		case d == "builtin" || op.Name == "func.call" || op.Name == "func.return":
		case d != "coreai":
			c.add(RuleNoLowering, op, "", "dialect "+d)
		case baseOpName(op.Name) == "coreai.blockwise_shift_scale":
			if detail, ok := linearInt4(op); ok {
				c.add(RuleLinearInt4, op, "", detail)
			}
		case !isKnownCoreAIOp(op.Name):
			c.add(RuleUnverifiedOp, op, "", "")
		}
	}
}

// ---- suspects ----

// suspectTiedHead flags constants that feed (through shape-only ops) both
// an embedding gather_nd table and a matmul/conv: a tied embedding/head
// held in the graph. The test is passes.IsTiedHeadTable, which
// externalize-constant's default selector uses too (one home).
func (c *checker) suspectTiedHead() {
	for _, op := range c.ops {
		if passes.IsTiedHeadTable(op) {
			c.add(SuspectTiedHead, op, "", "table "+op.Result(0).Type().String())
		}
	}
}

// suspectStateWrites flags slice_updates that update a buffer the graph is
// given and whose result is stored back into it: through write_handle on
// the state's handle (the handle form) or as the output holding the
// state's new value (a state, or a plain input returned under a matching
// output), except the form Apple's dense control compiles with 19/19
// regions: a rank-5 KV-cache state ([layers, B, H·D, 1, S]; the rule
// table's evidence for coreai.rank cites it).
func (c *checker) suspectStateWrites() {
	for _, op := range c.ops {
		if baseOpName(op.Name) != "coreai.slice_update" || !c.entry || op.NumOperands() == 0 || op.NumResults() == 0 {
			continue
		}
		in := c.sourceInput(op.Operand(0))
		if in < 0 || in >= len(c.inputs) {
			continue
		}
		how := c.storedBack(op.Result(0), in)
		if how == "" {
			continue
		}
		p := c.inputs[in]
		t := dataTensor(p.Type)
		if p.IsState && t != nil && t.Rank() == 5 && t.Shape[3] == 1 {
			continue
		}
		kind := "plain input"
		if p.IsState {
			kind = "state"
		}
		c.add(SuspectStateWrite, op, "", fmt.Sprintf("slice_update writes %s %s %s, then %s", kind, portName(c.inputs, in), op.Operand(0).Type(), how))
	}
}

// storedBack follows v forwards through data-movement ops and says how it
// is stored into input in's buffer: "coreai.write_handle stores it" or
// "the graph returns it as output …"; "" when it is not.
func (c *checker) storedBack(v *graph.Value, in int) string {
	how := ""
	walkForward(v, func(u graph.Use) (follow, stop bool) {
		base := baseOpName(u.Op.Name)
		switch {
		case base == "coreai.write_handle" && u.Index == 1:
			if c.sourceInput(u.Op.Operand(0)) == in {
				how = "coreai.write_handle stores it"
				return false, true
			}
		case u.Op == c.term:
			if u.Index < len(c.outputs) && c.outputFor(in, u.Index) {
				how = "the graph returns it as output " + portName(c.outputs, u.Index)
				return false, true
			}
		case (moveOps[base] || base == "coreai.slice_update") && u.Index == 0 && base != "coreai.slice":
			return true, false
		}
		return false, false
	})
	return how
}

// outputFor reports whether output k carries input in's new value (the
// state analysis, graph/states.go).
func (c *checker) outputFor(in, k int) bool {
	p, ok := c.states.ForInput(in)
	return ok && p.Out == k
}

// ---- regions ----

// segments counts maximal runs of legal ops in the entry block's program
// order. Constants are free (they never split a run); the terminator ends
// the last run. A contiguous run of a topological order is convex, so each
// run is a subgraph a partitioning compiler could place as one region.
func segments(g *graph.Graph, gr *GraphResult, calleeBlocked func(string) bool) int {
	illegal := map[*graph.Operation]bool{}
	for _, v := range gr.Verdicts {
		if v.Verdict == Illegal {
			illegal[v.Op] = true
		}
	}
	top := map[*graph.Operation]bool{}
	for _, op := range g.Body().Ops() {
		top[op] = true
	}
	return runs(g, func(o *graph.Operation) bool {
		if illegal[o] {
			return true
		}
		// Only a top-level call of a blocked graph splits a run here.
		c, ok := graph.Callee(o)
		return top[o] && ok && calleeBlocked(c)
	})
}

// ---- op ids ----

// viaFrame returns the first file location after the first one whose file
// differs from it: the caller in the user's builder.
func viaFrame(l graph.Loc) string {
	fl := graph.FileLocs(l)
	for _, x := range fl[min(1, len(fl)):] {
		if x.File != fl[0].File {
			return x.File + ":" + strconv.Itoa(x.Line)
		}
	}
	return ""
}
