package ane

import (
	"cmp"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/ane/compilerlog"
	"github.com/samber/lo"
)

// Group is findings that share a rule, an op name, a source line and a fix:
// 42 casts at the same line of 18 layers are one Group with Count 42.
type Group struct {
	Rule   *Rule
	OpName string
	Source string
	Via    string // the first finding's caller frame (see Finding.Via)
	Fix    string
	Count  int
	// Graphs lists the graphs involved, in first-seen order.
	Graphs []string
	// OpIDs lists the op ids involved, in order, without repeats (ops
	// without an id are counted but not listed).
	OpIDs []string
	// Detail is the first finding's detail.
	Detail string
	first  int
}

// GroupFindings groups fs (in the order given) and returns the groups in
// rule-table order, then by first occurrence.
func GroupFindings(fs []Finding) []Group {
	gr := NewGrouping(fs)
	out := make([]Group, 0, gr.Len())
	for g := range gr.All() {
		out = append(out, g)
	}
	return out
}

// grouping is the groups of a list of findings, made one at a time while
// they are visited (All), in GroupFindings' order. It holds 12 bytes a
// finding and 4 a group beside the findings, where the groups themselves
// are about 150 bytes each: with a finding per op of a large graph, a
// report printed group by group never holds every group at once (issue
// 28's 500k-op chain: 72 MB of groups, plus 112 MB as schema messages).
//
// The findings' positions are sorted by key (rule, op name, source, fix;
// then position, so each group's findings keep their order) and each run
// of equal keys is a group: a map from key to group and a group list grown
// by append were, with a finding per op of a large graph, about 200 bytes
// an op at the peak of check.
type grouping struct {
	fs []Finding
	// pos are the findings' positions sorted by key; runs are where each
	// group starts in pos, in output order, and end where the next one in
	// pos order starts (ends holds that end for each run).
	pos        []int32
	runs, ends []int32
}

// NewGrouping groups fs, which must not change while the Grouping is used.
func NewGrouping(fs []Finding) *grouping {
	gr := &grouping{fs: fs}
	if len(fs) == 0 {
		return gr
	}
	ruleKey := map[*Rule]int32{}
	rk := make([]int32, len(fs))
	for i := range fs {
		k, ok := ruleKey[fs[i].Rule]
		if !ok {
			k = int32(len(ruleKey))
			ruleKey[fs[i].Rule] = k
		}
		rk[i] = k
	}
	sameKey := func(a, b int32) int {
		fa, fb := &fs[a], &fs[b]
		if c := cmp.Compare(rk[a], rk[b]); c != 0 {
			return c
		}
		if c := strings.Compare(fa.OpName, fb.OpName); c != 0 {
			return c
		}
		if c := strings.Compare(fa.Source, fb.Source); c != 0 {
			return c
		}
		return strings.Compare(fa.FixPass(), fb.FixPass())
	}
	pos := make([]int32, len(fs))
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortFunc(pos, func(a, b int32) int {
		if c := sameKey(a, b); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var starts []int32
	for i := range pos {
		if i == 0 || sameKey(pos[i-1], pos[i]) != 0 {
			starts = append(starts, int32(i))
		}
	}
	ends := make([]int32, len(starts))
	for k := range starts {
		ends[k] = int32(len(pos))
		if k+1 < len(starts) {
			ends[k] = starts[k+1]
		}
	}
	// Output order: rule-table order, then first occurrence (a run's first
	// position is its smallest). ends follows its run.
	order := make([]int32, len(starts))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		if c := cmp.Compare(ruleOrder(fs[pos[starts[a]]].Rule), ruleOrder(fs[pos[starts[b]]].Rule)); c != 0 {
			return c
		}
		return cmp.Compare(pos[starts[a]], pos[starts[b]])
	})
	gr.pos = pos
	gr.runs, gr.ends = make([]int32, len(order)), make([]int32, len(order))
	for k, o := range order {
		gr.runs[k], gr.ends[k] = starts[o], ends[o]
	}
	return gr
}

// Len is the number of groups.
func (gr *grouping) Len() int { return len(gr.runs) }

// All visits the groups in order, making each one as it is visited.
func (gr *grouping) All() iter.Seq[Group] {
	return func(yield func(Group) bool) {
		fs := gr.fs
		if len(fs) == 0 {
			return
		}
		// The graph lists of groups in the first finding's graph share one
		// slice (of capacity 1: an append copies it).
		firstGraph := []string{fs[0].Graph}
		var seenID map[string]bool
		for k, start := range gr.runs {
			run := gr.pos[start:gr.ends[k]]
			f0 := &fs[run[0]]
			g := Group{Rule: f0.Rule, OpName: f0.OpName, Source: f0.Source, Via: f0.Via(), Fix: f0.FixPass(), Detail: f0.Detail, first: int(run[0])}
			// Op ids are searched in the list up to 8, then in a set.
			clear(seenID)
			for _, p := range run {
				f := &fs[p]
				g.Count++
				if f.Graph != "" && !slices.Contains(g.Graphs, f.Graph) {
					if len(g.Graphs) == 0 && f.Graph == firstGraph[0] {
						g.Graphs = firstGraph[:1:1]
					} else {
						g.Graphs = append(g.Graphs, f.Graph)
					}
				}
				switch {
				case f.OpID == "":
				case len(g.OpIDs) < 8:
					if !slices.Contains(g.OpIDs, f.OpID) {
						g.OpIDs = append(g.OpIDs, f.OpID)
					}
				default:
					if seenID == nil {
						seenID = map[string]bool{}
					}
					if len(seenID) == 0 {
						for _, id := range g.OpIDs {
							seenID[id] = true
						}
					}
					if !seenID[f.OpID] {
						seenID[f.OpID] = true
						g.OpIDs = append(g.OpIDs, f.OpID)
					}
				}
			}
			if !yield(g) {
				return
			}
		}
	}
}

// countByRule counts findings per rule ID.
func countByRule(fs []Finding) map[string]int {
	return lo.CountValuesBy(fs, func(f Finding) string { return f.Rule.ID })
}

// ---- compiler diagnostics → ops ----

// RuleFor maps a compiler diagnostic kind to the rule-table row it mirrors.
func RuleFor(k compilerlog.Kind) *Rule {
	switch k {
	case compilerlog.KindElementType:
		return RuleElementType
	case compilerlog.KindIOOp:
		return ruleIOOp
	case compilerlog.KindReorder:
		return ruleReorder
	}
	return ruleCompilerOther
}

type opAt struct {
	graph string
	op    *graph.Operation
	index int
}

// MapLog turns each compiler diagnostic into a Finding tied to an op of m:
// first by the op ids the line names, then by its source line (matching the
// last two path elements, any frame of the op's location) and op name.
// Diagnostics that match no op keep their own op id and source, with Op nil.
// One diagnostic gives exactly one Finding, so counts match the log.
func MapLog(m *graph.Module, l *compilerlog.Log) []Finding {
	byID := map[string][]opAt{}
	bySrc := map[string][]opAt{}   // innermost frame
	byFrame := map[string][]opAt{} // any frame
	if m != nil {
		for _, g := range m.Graphs() {
			n := 0
			g.Op.Walk(func(o *graph.Operation) bool {
				if o == g.Op {
					return true
				}
				at := opAt{g.Name(), o, n}
				n++
				if id := o.OpID(); id != "" {
					byID[id] = append(byID[id], at)
				}
				for i, s := range graph.FileLocs(o.Loc) {
					k := srcKey(s.File, s.Line)
					if i == 0 {
						bySrc[k] = append(bySrc[k], at)
					}
					if l := byFrame[k]; len(l) == 0 || l[len(l)-1].op != o {
						byFrame[k] = append(byFrame[k], at)
					}
				}
				return true
			})
		}
	}
	var out []Finding
	for i := range l.Diagnostics {
		d := &l.Diagnostics[i]
		f := Finding{Rule: RuleFor(d.Kind), OpName: d.OpName, Source: d.Source()}
		f.setRare("", "", "stderr:"+strconv.Itoa(d.Line))
		if len(d.OpIDs) > 0 {
			f.OpID = d.OpIDs[0]
		}
		// The rule's message already says what the compiler said; keep the
		// text only for diagnostics the table has no row for.
		if f.Rule == ruleCompilerOther || f.Rule == ruleReorder {
			f.Detail = d.Message
		}
		var cands []opAt
		for _, id := range d.OpIDs {
			if c := preferOps(byID[id], d.OpName); len(c) > 0 {
				cands = c
				break
			}
		}
		how := "op id"
		if len(cands) == 0 && d.File != "" {
			how = "source line"
			k := srcKey(d.File, d.SrcLine)
			if cands = preferOps(bySrc[k], d.OpName); len(cands) == 0 {
				how = "an outer frame's source line"
				cands = preferOps(byFrame[k], d.OpName)
			}
		}
		if len(cands) > 0 {
			c := cands[0]
			f.Graph, f.Op, f.Index = c.graph, c.op, c.index
			f.OpID, f.OpName, f.Source = c.op.OpID(), c.op.Name, c.op.Source()
			f.setRare(viaFrame(c.op.Loc), f.Fix(), f.Log())
			if len(cands) > 1 {
				f.Detail = strings.TrimSpace(f.Detail + " (matched by " + how + "; " + strconv.Itoa(len(cands)) + " candidate ops, first shown)")
			}
		} else if d.File != "" || len(d.OpIDs) > 0 {
			f.Detail = strings.TrimSpace(f.Detail + " (no op in the model matches)")
		}
		out = append(out, f)
	}
	return out
}

// preferOps keeps the candidates named like the diagnostic's op (when it
// names one), else the ones that are not constants (exporters give a
// constant the id of the op it feeds).
func preferOps(cands []opAt, opName string) []opAt {
	if len(cands) == 0 {
		return nil
	}
	var out []opAt
	for _, c := range cands {
		if opName != "" && c.op.Name == opName || opName == "" && c.op.Name != "coreai.constant" {
			out = append(out, c)
		}
	}
	if len(out) == 0 && opName == "" {
		return cands
	}
	return out
}

func srcKey(file string, line int) string {
	return graph.ShortFile(strings.ReplaceAll(file, `\`, "/")) + ":" + strconv.Itoa(line)
}

// Calibrate compares the compiler's element-type and I/O-op diagnostics
// (cited, mapped to ops by MapLog) with check's findings of the same rules
// (predicted), op by op: how many ops were cited but not predicted, and
// predicted but not cited. A diagnostic MapLog matched to no op is always
// "cited only".
func Calibrate(predicted, cited []Finding) (citedOnly, predictedOnly int) {
	type key struct {
		rule string
		op   any
	}
	p, c := map[key]bool{}, map[key]bool{}
	for _, f := range predicted {
		if (f.Rule == RuleElementType || f.Rule == ruleIOOp) && f.Op != nil {
			p[key{f.Rule.ID, f.Op}] = true
		}
	}
	for _, f := range cited {
		if f.Rule == RuleElementType || f.Rule == ruleIOOp {
			k := key{f.Rule.ID, any(f.Op)}
			if f.Op == nil {
				k.op = f.Log()
			}
			c[k] = true
		}
	}
	for k := range c {
		if !p[k] {
			citedOnly++
		}
	}
	for k := range p {
		if !c[k] {
			predictedOnly++
		}
	}
	return citedOnly, predictedOnly
}
