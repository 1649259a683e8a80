package pbview

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	pb "github.com/anefix/anefix/proto/anefixpb"
)

// Layout sizes in CSS pixels: one op is a box of nodeW×nodeH; rows of a
// group's layered drawing are rowH apart and at most perRow ops wide, so a
// layer with hundreds of constants wraps instead of growing sideways.
const (
	nodeW  = 180
	nodeH  = 26
	gapX   = 16
	rowH   = 46
	perRow = 8
	margin = 12
)

// node is one op as the page and the DOT file draw it.
type node struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Graph   string   `json:"graph"`
	Index   int32    `json:"index"`
	Source  string   `json:"src,omitempty"`
	Device  string   `json:"dev"`
	Class   string   `json:"cls"`
	Reason  string   `json:"reason,omitempty"`
	Types   []string `json:"types,omitempty"`
	Region  int32    `json:"region"`
	Segment int32    `json:"segment"`
	// Measured is the device a compiled package measured, when known.
	Measured string `json:"measured,omitempty"`
	// Marks: "fp32" (an f32 element type), "state" (reads or writes a
	// state), "blocker", "suspect", "hazard", "advice".
	Marks []string `json:"marks,omitempty"`
	// Findings indexes page.Findings.
	Findings []int `json:"f,omitempty"`
	// Inputs are node indices (page.Ops) of the producers in the same graph.
	Inputs []int  `json:"in,omitempty"`
	Change string `json:"chg,omitempty"`
	Group  int    `json:"g"`
	layer  string
	frames []string
	X      int `json:"x"`
	Y      int `json:"y"`
}

// section is the groups of one layer (or, without one, one source file)
// of one graph.
type section struct {
	Name   string `json:"name"`
	Graph  string `json:"graph"`
	Groups []int  `json:"groups"`
	Ops    int    `json:"n"`
	// Repeats is how many times the section's first run came back (the
	// layers of a loop); 1 when it did not.
	Repeats int `json:"repeats"`
}

// group is consecutive ops of a section, drawn as one collapsible box.
type group struct {
	Name    string `json:"name"`
	Section int    `json:"sec"`
	Repeat  int    `json:"repeat"`
	run     string
	Ops     []int          `json:"ops"`
	Devices map[string]int `json:"devices"`
	Marks   map[string]int `json:"marks"`
	Changes int            `json:"changes,omitempty"`
	W       int            `json:"w"`
	H       int            `json:"h"`
}

// finding is one rule applying to one op, with the rule's words.
type finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"sev"`
	Message  string `json:"msg"`
	Fix      string `json:"fix,omitempty"` // how to run the fixing pass (Options.FixCommand)
	Detail   string `json:"detail,omitempty"`
	Source   string `json:"src,omitempty"`
}

// page is everything the HTML page and the DOT file are drawn from.
type page struct {
	Title    string         `json:"title"`
	Header   []string       `json:"header"`
	Summary  []string       `json:"summary,omitempty"`
	Missing  []Change       `json:"missing,omitempty"`
	Lists    []list         `json:"lists"`
	Findings []finding      `json:"findings"`
	Sections []section      `json:"sections"`
	Groups   []group        `json:"groups"`
	Ops      []node         `json:"ops"`
	Devices  map[string]int `json:"devices"`
}

// list is one section of the report's grouped findings (blockers,
// suspects, hazards, advice).
type list struct {
	Title  string   `json:"title"`
	Groups []fgroup `json:"groups"`
}

type fgroup struct {
	Rule    string   `json:"rule"`
	Message string   `json:"msg"`
	Fix     string   `json:"fix,omitempty"`
	OpName  string   `json:"op"`
	Source  string   `json:"src,omitempty"`
	Detail  string   `json:"detail,omitempty"`
	Count   int32    `json:"n"`
	OpIDs   []string `json:"ids"`
}

// deviceClass is the colour class of a device (OpPlacement.device): "ane",
// "gpu", "cpu", "none" (occupies no device) or "unknown" (no published
// compile says, or a device this page does not know).
func deviceClass(dev string) string {
	switch d := strings.ToLower(dev); d {
	case "ane", "gpu", "cpu", "none":
		return d
	}
	return "unknown"
}

// isState is whether an op reads or writes a state: the handle and state
// ops of the coreai dialect, or a finding about a state write.
func isState(opName string) bool {
	_, n, _ := strings.Cut(opName, ".")
	return strings.HasSuffix(n, "_handle") || strings.Contains(n, "state") || n == "create_token"
}

// build turns the report into the page: ops in program order, grouped,
// each group laid out; findings attached to their op by (graph, index).
func build(rep *pb.CheckReport, o Options) *page {
	p := &page{Title: o.Title, Header: header(rep, o.Headline), Summary: o.Summary, Devices: map[string]int{}}
	if p.Title == "" {
		p.Title = "anefix check " + rep.GetInput().GetPath()
	}
	ops := rep.GetOps()
	type key struct {
		graph string
		index int32
	}
	at := make(map[key]int, len(ops))
	for i, op := range ops {
		at[key{op.Graph, op.Index}] = i
	}
	p.Ops = make([]node, len(ops))
	for i, op := range ops {
		n := &p.Ops[i]
		*n = node{ID: op.GetOpId(), Name: op.GetOpName(), Graph: op.GetGraph(), Index: op.GetIndex(), Source: op.GetSource(),
			Device: op.GetDevice(), Class: deviceClass(op.GetDevice()), Reason: op.GetReason(), Types: op.GetElementTypes(),
			Region: op.GetRegion(), Segment: op.GetSegment(), Measured: op.GetMeasuredDevice(), layer: op.GetLayer(), frames: op.GetFrames()}
		for _, in := range op.Inputs {
			if j, ok := at[key{op.Graph, in}]; ok && j != i {
				n.Inputs = append(n.Inputs, j)
			}
		}
		if op.Blocked {
			n.Marks = append(n.Marks, "blocker")
		}
		if hasF32(op.ElementTypes) {
			n.Marks = append(n.Marks, "fp32")
		}
		if isState(op.OpName) {
			n.Marks = append(n.Marks, "state")
		}
		p.Devices[n.Class]++
	}
	rules := map[string]*pb.Rule{}
	for _, r := range rep.GetRules() {
		rules[r.GetId()] = r
	}
	for _, g := range rep.GetGraphs() {
		for _, kind := range []struct {
			mark string
			fs   []*pb.Finding
		}{{"blocker", g.GetFindings()}, {"suspect", g.GetSuspects()}, {"hazard", g.GetHazards()}, {"advice", g.GetAdvice()}} {
			for _, f := range kind.fs {
				i, ok := at[key{f.GetOp().GetGraph(), f.GetOp().GetIndex()}]
				if !ok || f.GetOp().GetGraph() == "" {
					continue
				}
				r := rules[f.GetRule()]
				mark := kind.mark
				if mark == "blocker" && r.GetSeverity() != "" && r.GetSeverity() != "blocker" {
					mark = r.GetSeverity()
				}
				p.Findings = append(p.Findings, finding{Rule: f.GetRule(), Severity: mark, Message: r.GetMessage(),
					Fix: o.fixText(f.GetFixPass()), Detail: f.GetDetail(), Source: f.GetOp().GetSource()})
				n := &p.Ops[i]
				n.Findings = append(n.Findings, len(p.Findings)-1)
				if !contains(n.Marks, mark) {
					n.Marks = append(n.Marks, mark)
				}
			}
		}
	}
	p.Lists = lists(rep, rules)
	p.Missing = applyChanges(p, o.Changes)
	p.Sections, p.Groups = groups(p.Ops)
	return p
}

func hasF32(types []string) bool {
	for _, t := range types {
		if t == "f32" || strings.Contains(t, "xf32>") || strings.HasSuffix(t, "<f32>") {
			return true
		}
	}
	return false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// applyChanges marks the changed ops (by op id, every op carrying it) and
// returns the changes that name no drawn op (a removed op, say), which the
// page lists in its header instead.
func applyChanges(p *page, changes []Change) []Change {
	if len(changes) == 0 {
		return nil
	}
	byID := map[string][]int{}
	for i := range p.Ops {
		if id := p.Ops[i].ID; id != "" {
			byID[id] = append(byID[id], i)
		}
	}
	var missing []Change
	for _, c := range changes {
		is, ok := byID[c.OpID]
		if !ok {
			missing = append(missing, c)
			continue
		}
		for _, i := range is {
			p.Ops[i].Change = string(c.Kind)
		}
	}
	return missing
}

// maxGroup is the most ops one group draws: a longer run is cut in parts,
// so opening any group stays quick on a model of any size.
const maxGroup = 400

// sectionKey is an op's section: the first two frames of its location
// (the top-level statement, and the statement of the block it calls: for a
// decoder, the loop over its layers), else its source file, else
// "(no source)".
func sectionKey(op *node) string {
	if len(op.frames) > 0 {
		return strings.Join(op.frames[:min(len(op.frames), 2)], " > ")
	}
	if f, _, ok := strings.Cut(op.Source, ":"); ok && f != "" {
		return f
	}
	if op.Source != "" {
		return op.Source
	}
	return "(no source)"
}

// runKey is what keeps consecutive ops of a section in one group: the
// third frame (the statement inside a layer), else the last frame, else
// the source.
func runKey(op *node) string {
	switch n := len(op.frames); {
	case n > 2:
		return op.frames[2]
	case n > 0:
		return op.frames[n-1]
	}
	return op.Source
}

// secState follows a section's runs: layers one loop builds share every
// frame of their locations, so a layer is told from the next by its runs:
// when the section's first run key comes back after another, a new repeat
// (layer) begins.
type secState struct {
	first     string
	other     bool
	repeat    int
	lastGroup int
}

// groups gathers ops into sections (per graph and section key, in order of
// first appearance) and, inside a section, into groups of consecutive ops
// of one repeat with one run key (at most maxGroup each), and lays each
// group out.
func groups(ops []node) ([]section, []group) {
	type key struct{ graph, name string }
	at := map[key]int{}
	secs, gs := []section{}, []group{}
	var st []secState
	for i := range ops {
		n := &ops[i]
		k := key{n.Graph, sectionKey(n)}
		rk := runKey(n)
		si, ok := at[k]
		if !ok {
			si = len(secs)
			at[k] = si
			secs = append(secs, section{Name: k.name, Graph: k.graph})
			st = append(st, secState{first: rk, repeat: 1, lastGroup: -1})
		}
		s := &st[si]
		if rk != s.first {
			s.other = true
		} else if s.other {
			s.repeat++
			s.other = false
		}
		last := s.lastGroup
		if last < 0 || gs[last].run != rk || gs[last].Repeat != s.repeat || len(gs[last].Ops) >= maxGroup {
			last = len(gs)
			s.lastGroup = last
			gs = append(gs, group{Name: rk, Section: si, Repeat: s.repeat, run: rk, Devices: map[string]int{}, Marks: map[string]int{}})
			secs[si].Groups = append(secs[si].Groups, last)
		}
		secs[si].Repeats = s.repeat
		g := &gs[last]
		n.Group = last
		g.Ops = append(g.Ops, i)
		g.Devices[n.Class]++
		secs[si].Ops++
		for _, m := range n.Marks {
			g.Marks[m]++
		}
		if n.Change != "" {
			g.Changes++
		}
	}
	for gi := range gs {
		layout(ops, &gs[gi])
	}
	return secs, gs
}

// layout places a group's ops in layers: an op's depth is one more than
// the deepest producer in the same group (0 without one), so every edge
// inside a group points down; ops of one depth sit left to right in
// program order, perRow to a row.
func layout(ops []node, g *group) {
	depth := map[int]int{}
	maxDepth := 0
	for _, i := range g.Ops {
		d := 0
		for _, j := range ops[i].Inputs {
			if pd, ok := depth[j]; ok && pd+1 > d {
				d = pd + 1
			}
		}
		depth[i] = d
		maxDepth = max(maxDepth, d)
	}
	byDepth := make([][]int, maxDepth+1)
	for _, i := range g.Ops {
		byDepth[depth[i]] = append(byDepth[depth[i]], i)
	}
	row, width := 0, 0
	for d, ids := range byDepth {
		if d > 0 {
			// Below its producers: ops sorted by their producers' mean x
			// (ties in program order), which uncrosses most edges.
			bary := make(map[int]float64, len(ids))
			for _, i := range ids {
				sum, n := 0, 0
				for _, j := range ops[i].Inputs {
					if _, ok := depth[j]; ok {
						sum, n = sum+ops[j].X, n+1
					}
				}
				bary[i] = float64(sum) / float64(max(n, 1))
			}
			slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(bary[a], bary[b]) })
		}
		for k, i := range ids {
			col := k % perRow
			if k > 0 && col == 0 {
				row++
			}
			ops[i].X = margin + col*(nodeW+gapX)
			ops[i].Y = margin + row*rowH
			width = max(width, ops[i].X+nodeW+margin)
		}
		if len(ids) > 0 {
			row++
		}
	}
	g.W, g.H = width, margin+row*rowH
}

// header is the report's summary lines, in the order the text report
// gives them.
func header(rep *pb.CheckReport, headline []string) []string {
	if len(headline) > 0 {
		lines := slices.Clone(headline)
		if m := rep.GetRegionModel(); m != "" {
			lines = append(lines, m)
		}
		return lines
	}
	verdict := "NOT LEGAL for the Neural Engine"
	if rep.GetLegal() {
		verdict = "legal for the Neural Engine"
	}
	lines := []string{verdict + " (architecture " + rep.GetArchitecture() + ")"}
	if rep.PredictedRegions != nil {
		lines = append(lines, strconv.Itoa(int(rep.GetPredictedRegions()))+" ANE region(s) predicted over "+
			strconv.Itoa(int(rep.GetFunctions()))+" function(s); "+strconv.Itoa(int(rep.GetSegments()))+" legal segment(s)")
	} else {
		lines = append(lines, "no region count predicted for this architecture; "+
			strconv.Itoa(int(rep.GetFunctions()))+" function(s), "+strconv.Itoa(int(rep.GetSegments()))+" legal segment(s)")
	}
	if m := rep.GetRegionModel(); m != "" {
		lines = append(lines, m)
	}
	if rs := rep.GetRuleSet(); rs != "" {
		lines = append(lines, "rules "+rs+", calibrated to coreai-build "+rep.GetCompilerVersion()+"; a prediction, not a compile")
	}
	return lines
}

// lists is the report's grouped findings, one list per kind.
func lists(rep *pb.CheckReport, rules map[string]*pb.Rule) []list {
	out := []list{}
	for _, l := range []struct {
		title string
		gs    []*pb.FindingGroup
	}{{"Blockers", rep.GetGroups()}, {"Suspects (unconfirmed)", rep.GetSuspects()},
		{"fp16 hazards (advisory)", rep.GetHazards()}, {"Performance advice", rep.GetAdvice()}} {
		if len(l.gs) == 0 {
			continue
		}
		li := list{Title: l.title}
		for _, g := range l.gs {
			msg := g.GetMessage()
			if msg == "" {
				msg = rules[g.GetRule()].GetMessage()
			}
			ids := g.GetOpIds()
			ids = append([]string{}, ids[:min(len(ids), 50)]...)
			li.Groups = append(li.Groups, fgroup{Rule: g.GetRule(), Message: msg, Fix: g.GetFixPass(), OpName: g.GetOpName(),
				Source: g.GetSource(), Detail: g.GetDetail(), Count: g.GetCount(), OpIDs: ids})
		}
		out = append(out, li)
	}
	return out
}
