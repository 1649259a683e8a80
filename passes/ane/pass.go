package ane

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// fact is a shared result a rule may require: computed once per graph (or
// once per module) by the runner, whichever rule asks first, and read by
// every rule that declares it in Requires. The facts every rule has without
// asking are Pass's embedded anefacts.Graph: the ops in order, the ports,
// the values that are only settings or compressed storage, the state pairs
// and the round trips of composites' call sites.
type fact struct {
	Name string
	Doc  string
}

var (
	// factIslands is anefacts.Graph.Islands: the graph's non-ANE values
	// grouped into islands, each with why the compiler cites it or "".
	factIslands = &fact{Name: "islands", Doc: "the graph's non-ANE (fp32, …) islands and why each is cited (anefacts.Graph.Islands)"}
	// factFP16Scan is the module's fp16 constant scan (anefacts.Scan),
	// shared by every graph so that a resource is read once. A rule that
	// requires it does not run when Options.NoHazards turns the scan off.
	factFP16Scan = &fact{Name: "fp16-scan", Doc: "each float constant's range as fp16 sees it, blobs read once per module (anefacts.Scan)"}
	// factModule is what crosses graphs: the module's graphs by name (a
	// rule that counts through calls follows them) and its entry graphs.
	factModule = &fact{Name: "module", Doc: "the module's graphs by name and its entry graphs, for rules that follow calls or count functions (moduleRun)"}
	// factArchitecture is the architecture the check is for (calib.go),
	// for rules whose limit differs by architecture.
	factArchitecture = &fact{Name: "architecture", Doc: "the --architecture the check is for (calib.go), for per-architecture limits"}
)

// moduleRun is what the rules of every graph of one module share: the
// graphs' facts by name, the architecture, and the results computed once
// per module (the compute-op counts through calls, rule_op_count.go).
type moduleRun struct {
	graphs []*anefacts.Graph
	byName map[string]*anefacts.Graph
	arch   Architecture
	// computeOps memoizes computeOpCount per graph name (-1: being
	// counted, so a call cycle counts once instead of looping).
	computeOps map[string]int
}

func newModuleRun(facts []*anefacts.Graph, arch Architecture) *moduleRun {
	m := &moduleRun{graphs: facts, byName: make(map[string]*anefacts.Graph, len(facts)), arch: arch}
	for _, f := range facts {
		m.byName[f.G.Name()] = f
	}
	return m
}

// Pass is what a rule's Run gets for one graph: the graph's facts, the
// shared results its Requires name, and the calls that record findings
// under the rule.
type Pass struct {
	*anefacts.Graph
	rule *Rule
	out  *graphRun
	// used records the facts asked for (TestRuleRequires compares them
	// with Requires).
	used map[*fact]bool
}

// Islands returns factIslands for this graph.
func (p *Pass) Islands() []*anefacts.Island {
	p.used[factIslands] = true
	if !p.out.islandsDone {
		p.out.islands, p.out.islandsDone = p.Graph.Islands(), true
	}
	return p.out.islands
}

// module returns factModule for this graph's module.
func (p *Pass) module() *moduleRun {
	p.used[factModule] = true
	return p.out.mod
}

// architecture returns factArchitecture.
func (p *Pass) architecture() Architecture {
	p.used[factArchitecture] = true
	return p.out.mod.arch
}

// Scan returns factFP16Scan (never nil in a rule that requires it).
func (p *Pass) Scan() *anefacts.Scan {
	p.used[factFP16Scan] = true
	return p.out.scan
}

// bound is the interval the graph proves for v (hazard_exp.go), remembered
// across the rules of this graph; it reads factFP16Scan.
func (p *Pass) bound(v *graph.Value) interval {
	scan := p.Scan()
	if p.out.bounds == nil {
		p.out.bounds = &bounder{scan: scan}
	}
	return p.out.bounds.bound(v, 0)
}

// Report records a finding of the pass's rule on op (nil: none); fix
// overrides the rule's fixing pass ("" keeps it).
func (p *Pass) Report(op *graph.Operation, fix, detail string) { p.ReportVals(op, fix, detail, nil) }

// ReportVals is Report for a finding about the element type of vals (the
// fixing pass's preview asks whether it retypes them: fixes.go).
func (p *Pass) ReportVals(op *graph.Operation, fix, detail string, vals []*graph.Value) {
	f := Finding{Rule: p.rule, Graph: p.G.Name(), Op: op, Detail: detail, vals: vals}
	via := ""
	if op != nil {
		f.Index = p.Index[op]
		f.OpID = op.OpID()
		f.OpName = op.Name
		f.Source = op.Source()
		via = viaFrame(op.Loc)
	}
	f.setRare(via, fix, "")
	p.out.add(f)
}

// Reserve makes room for n more findings of the pass's rule, for a rule
// that knows how many it will report before it reports them: a list grown
// by append to a finding per op of a large graph ends with up to a quarter
// of it unused, and held both its old and its new array at each growth
// (issue 28's 500k-op chain: 68 MB and 85 MB at the last one).
func (p *Pass) Reserve(n int) {
	l := p.out.list(p.rule.Severity)
	*l = slices.Grow(*l, n)
}

// ReportPort records a finding about a graph port, which has no op: what
// names the port ("input \"x\"") and takes the op name's place in groups.
func (p *Pass) ReportPort(what, detail string) {
	p.out.add(Finding{Rule: p.rule, Graph: p.G.Name(), OpName: what, Detail: detail})
}

// MarkIllegal makes op illegal under the pass's rule without a finding of
// its own (the inside of a reported fp32 island: the finding sits on the
// ops that open it).
func (p *Pass) MarkIllegal(op *graph.Operation) {
	r := p.out
	i, ok := p.Index[op]
	if !ok {
		return // not an op of this graph: it has no verdict here
	}
	if r.alsoIllegal == nil {
		r.alsoIllegal = make([]string, len(p.Ops))
	}
	if r.alsoIllegal[i] == "" {
		r.alsoMarked++
	}
	r.alsoIllegal[i] = p.rule.ID
}

// graphRun collects what the rules found in one graph.
type graphRun struct {
	facts       *anefacts.Graph
	mod         *moduleRun
	scan        *anefacts.Scan // nil: the fp16 rules are off
	islands     []*anefacts.Island
	islandsDone bool
	bounds      *bounder // the fp16 rules' interval proofs, shared (hazard_exp.go)
	findings    []Finding
	suspects    []Finding
	hazards     []Finding
	advice      []Finding
	// alsoIllegal holds the rule of each op illegal under a rule whose
	// finding sits on another op, by op index (a map entry each cost about
	// 55 bytes an op where every op is inside an island); alsoMarked
	// counts them.
	alsoIllegal []string
	alsoMarked  int
}

func (r *graphRun) add(f Finding) {
	l := r.list(f.Rule.Severity)
	*l = append(*l, f)
}

// list is the list that findings of severity s go to.
func (r *graphRun) list(s severity) *[]Finding {
	switch s {
	case suspect:
		return &r.suspects
	case hazard:
		return &r.hazards
	case advice:
		return &r.advice
	}
	return &r.findings
}

// runRules runs every rule of Rules that has a Run, in table order, over
// one graph. A rule requiring factFP16Scan is skipped when scan is nil.
func runRules(f *anefacts.Graph, scan *anefacts.Scan, mod *moduleRun) *graphRun {
	r := newGraphRun(f, scan, mod)
	if !f.HasBody() {
		return r
	}
	for _, rule := range Rules {
		if rule.Run == nil || (scan == nil && slices.Contains(rule.Requires, factFP16Scan)) {
			continue
		}
		r.run(rule)
	}
	return r
}

func newGraphRun(f *anefacts.Graph, scan *anefacts.Scan, mod *moduleRun) *graphRun {
	return &graphRun{facts: f, scan: scan, mod: mod}
}

// run runs one rule and returns the facts it asked for.
func (r *graphRun) run(rule *Rule) map[*fact]bool {
	p := &Pass{Graph: r.facts, rule: rule, out: r, used: map[*fact]bool{}}
	rule.Run(p)
	return p.used
}

// result turns the findings into the graph's verdicts.
func (r *graphRun) result() graphResult {
	f := r.facts
	gr := graphResult{Name: f.G.Name(), Entry: f.Entry, Ops: len(f.Ops)}
	for _, l := range [][]Finding{r.findings, r.suspects, r.hazards, r.advice} {
		sortFindings(l)
	}
	gr.Findings, gr.Suspects, gr.Hazards, gr.Advice = r.findings, r.suspects, r.hazards, r.advice
	// The rules each op breaks, by op index. Ops breaking the same rules
	// share one list (capacity its length: adding a rule copies it): a map
	// entry and a list per illegal op cost about 80 bytes an op of a graph
	// whose every op is illegal, and a list per op breaking two rules 32
	// (issue 28's chain: no-lowering on every op, element-type on its
	// island).
	gr.Verdicts = make([]opVerdict, len(f.Ops))
	shared := map[string][]string{}
	var key []byte
	addRule := func(op *graph.Operation, id string) {
		i, ok := f.Index[op]
		if !ok {
			return
		}
		v := &gr.Verdicts[i]
		if slices.Contains(v.Rules, id) {
			return
		}
		key = key[:0]
		for _, r := range v.Rules {
			key = append(append(key, r...), 0)
		}
		key = append(key, id...)
		l, ok := shared[string(key)]
		if !ok {
			l = slices.Clip(append(slices.Clip(v.Rules), id))
			shared[string(key)] = l
		}
		v.Rules = l
	}
	for _, f := range r.findings {
		if f.Rule.Severity == blocker {
			gr.Blocked = true
			if f.Op != nil {
				addRule(f.Op, f.Rule.ID)
			}
		}
	}
	for i, id := range r.alsoIllegal {
		if id != "" {
			gr.Blocked = true
			addRule(f.Ops[i], id)
		}
	}
	for i, op := range f.Ops {
		v := &gr.Verdicts[i]
		v.Op, v.Index = op, i
		switch {
		case len(v.Rules) > 0:
			v.Verdict = Illegal
		case op.Name != "coreai.constant" && f.IsIndexOp(op):
			v.Verdict = Exempt
		}
	}
	gr.offANE = offANEOps(f)
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

// EachPortLastAxis calls fn for every input, then every output, of an
// entry graph whose data tensor is static, of rank ≥ 1 and data (not a
// setting), with its last dimension: what the layout advice reads. Port
// findings have no op; what names the port.
func (p *Pass) EachPortLastAxis(fn func(what string, t *graph.TensorType, last int64)) {
	if !p.Entry {
		return
	}
	port := func(v *graph.Value, what string) {
		t := anefacts.DataTensor(v.Type())
		if t == nil || !t.IsStatic() || t.Rank() == 0 || p.ParamOnly[v] || p.IndexOnly[v] {
			return
		}
		fn(what, t, t.Shape[t.Rank()-1])
	}
	for i, a := range p.G.Body().Args() {
		if i < len(p.Inputs) {
			port(a, fmt.Sprintf("input %q", p.Inputs[i].Name))
		}
	}
	if p.Term != nil {
		for i, v := range p.Term.Operands() {
			if i < len(p.Outputs) {
				port(v, fmt.Sprintf("output %q", p.Outputs[i].Name))
			}
		}
	}
}
