package pbview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	pb "github.com/anefix/anefix/proto/anefixpb"
)

// op is a test's op: id, op name, source, device, producers (indices).
type op struct {
	id, name, src, dev string
	in                 []int32
	types              []string
	layer              string
	frames             []string
}

// report is a hand-written check report over ops in one graph @main, with
// a blocker finding on the ops listed in blocked (by index).
func report(ops []op, blocked ...int32) *pb.CheckReport {
	rep := &pb.CheckReport{Input: &pb.Input{Path: "t.aimodel"}, Architecture: "h18p", RuleSet: "test",
		Rules: []*pb.Rule{{Id: "element-type", Message: "Incompatible element type", Severity: "blocker", FixPass: "strip-fp32-casts"}}}
	for i, o := range ops {
		rep.Ops = append(rep.Ops, &pb.OpPlacement{OpId: o.id, OpName: o.name, Source: o.src, Device: o.dev, Graph: "main",
			Index: int32(i), Inputs: o.in, ElementTypes: o.types, Layer: o.layer, Frames: o.frames})
	}
	g := &pb.GraphCheck{Name: "main", Entry: true, Ops: int32(len(ops))}
	for _, i := range blocked {
		g.Findings = append(g.Findings, &pb.Finding{Rule: "element-type", FixPass: "strip-fp32-casts", Detail: "f32 operand",
			Op: &pb.OpRef{Graph: "main", Index: i, OpId: ops[i].id, OpName: ops[i].name, Source: ops[i].src}})
	}
	rep.Graphs = []*pb.GraphCheck{g}
	return rep
}

func htmlOf(t *testing.T, rep *pb.CheckReport, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, rep, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// dataOf decodes the page's data element back into a page.
func dataOf(t *testing.T, doc string) page {
	t.Helper()
	_, rest, ok := strings.Cut(doc, `<script type="application/json" id="anefix-data">`)
	data, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatalf("no data element in the page")
	}
	var p page
	if err := json.Unmarshal([]byte(data), &p); err != nil {
		t.Fatalf("data element: %v", err)
	}
	return p
}

// small is four ops of one block (top.py:5 calling blk.py:2), and an op of
// another (top.py:9).
var small = []op{
	{id: "a", name: "coreai.cast", src: "m.py:10", dev: "gpu", types: []string{"f16", "f32"}, layer: "top.py:5", frames: []string{"top.py:5", "blk.py:2"}},
	{id: "b", name: "coreai.mul", src: "m.py:11", dev: "gpu", in: []int32{0}, types: []string{"f32"}, layer: "top.py:5", frames: []string{"top.py:5", "blk.py:2"}},
	{id: "c", name: "coreai.add", src: "m.py:11:4", dev: "ane", in: []int32{0, 1}, layer: "top.py:5", frames: []string{"top.py:5", "blk.py:2"}},
	{id: "d", name: "coreai.constant", src: "m.py:12", dev: "none", layer: "top.py:5", frames: []string{"top.py:5", "blk.py:2"}},
	{id: "e", name: "coreai.write_handle", src: "n.py:1", dev: "unknown", in: []int32{2, 3}, layer: "top.py:9", frames: []string{"top.py:9", "n.py:1"}},
}

// TestSelfContained: the page loads nothing. No URL of any scheme, no
// element or rule that would fetch (src, href, url(), @import, link).
func TestSelfContained(t *testing.T) {
	page := htmlOf(t, report(small, 0), Options{})
	for _, bad := range []string{"http://", "https://", "//cdn", " src=", " href=", "url(", "@import", "<link", "<iframe", "<img"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	if !strings.Contains(page, "default-src 'none'") {
		t.Errorf("page has no content security policy forbidding loads")
	}
}

// TestHostileNames: names from a model may hold markup, quotes, line
// separators and bytes that are not UTF-8. The page keeps exactly its own
// three script elements, and every name comes back from the data element
// as text: valid UTF-8 as it was, other bytes as \xNN (proto/common.proto).
func TestHostileNames(t *testing.T) {
	cases := []struct{ name, want string }{
		{"</script><script>alert(1)</script>", "</script><script>alert(1)</script>"},
		{"<img src=x onerror=alert(1)>", "<img src=x onerror=alert(1)>"},
		{"a\xffb", `a\xffb`},
		{"line\u2028sep\u2029x", "line\u2028sep\u2029x"},
		{`q"uote'&amp;`, `q"uote'&amp;`},
		{"<!--", "<!--"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			ops := []op{{id: c.name, name: "coreai." + c.name, src: c.name + ":1", dev: "ANE region 0", layer: c.name}}
			page := htmlOf(t, report(ops, 0), Options{Title: c.name, Headline: []string{c.name}, Summary: []string{c.name}, Changes: []Change{{OpID: c.name, Kind: Retyped}}})
			if n := strings.Count(strings.ToLower(page), "<script"); n != 3 {
				t.Errorf("%d <script in the page, want 3", n)
			}
			if n := strings.Count(strings.ToLower(page), "</script"); n != 3 {
				t.Errorf("%d </script in the page, want 3", n)
			}
			if strings.Contains(page, "<!--") {
				t.Errorf("a comment opener reached the page as markup")
			}
			p := dataOf(t, page)
			if got := p.Ops[0].ID; got != c.want {
				t.Errorf("op id %q, want %q", got, c.want)
			}
			if got := p.Title; got != c.want {
				t.Errorf("title %q, want %q", got, c.want)
			}
			if got := p.Header[0]; got != c.want {
				t.Errorf("headline %q, want %q", got, c.want)
			}
			if got := p.Ops[0].Change; got != "retyped" {
				t.Errorf("change %q, want retyped", got)
			}
		})
	}
}

// FuzzHTMLNames: whatever the bytes of a name, the page has exactly its
// three script elements and its data decodes, and the DOT file reads under
// checkDOT with one node per op.
func FuzzHTMLNames(f *testing.F) {
	for _, s := range []string{"", "</script>", "</SCRIPT >", "<!--<script>", "\xff\xfe", "\u2028", "]]>", "\x00\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rep := report([]op{{id: s, name: s, src: s, dev: s, layer: s, frames: []string{s, s}}, {id: s, name: s, src: s, dev: s, in: []int32{0}}}, 0)
		page := htmlOf(t, rep, Options{Title: s, Summary: []string{s}})
		if n := strings.Count(strings.ToLower(page), "</script"); n != 3 {
			t.Fatalf("%d </script in the page for %q, want 3", n, s)
		}
		if strings.Contains(page[strings.Index(page, "<body>"):], "<!--") {
			t.Fatalf("comment opener in the page body for %q", s)
		}
		dataOf(t, page)
		var d bytes.Buffer
		if err := DOT(&d, rep, Options{Title: s}); err != nil {
			t.Fatal(err)
		}
		if n := len(checkDOT(t, d.String())); n != 2 {
			t.Fatalf("%d DOT nodes for %q, want 2", n, s)
		}
	})
}

// TestDeterministic: the same report gives the same bytes.
func TestDeterministic(t *testing.T) {
	a := htmlOf(t, report(small, 0, 1), Options{})
	for range 3 {
		if b := htmlOf(t, report(small, 0, 1), Options{}); b != a {
			t.Fatal("two pages of one report differ")
		}
	}
	var d1, d2 bytes.Buffer
	if err := DOT(&d1, report(small, 0), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := DOT(&d2, report(small, 0), Options{}); err != nil {
		t.Fatal(err)
	}
	if d1.String() != d2.String() {
		t.Fatal("two DOT files of one report differ")
	}
}

// TestLayout: positions derived by hand. Sections are the first two frames
// (top.py:5 > blk.py:2, top.py:9 > n.py:1), each one group here. In top.py:5's group, a and d have
// no producer in the group (depth 0, one row, program order), b reads a
// (depth 1), c reads a and b (depth 2).
func TestLayout(t *testing.T) {
	p := dataOf(t, htmlOf(t, report(small), Options{}))
	if len(p.Sections) != 2 || p.Sections[0].Name != "top.py:5 > blk.py:2" || p.Sections[1].Name != "top.py:9 > n.py:1" || len(p.Groups) != 2 {
		t.Fatalf("sections %+v, groups %d; want top.py:5 > blk.py:2 and top.py:9 > n.py:1 of one group each", p.Sections, len(p.Groups))
	}
	col := func(c int) int { return margin + c*(nodeW+gapX) }
	row := func(r int) int { return margin + r*rowH }
	want := map[string][2]int{"a": {col(0), row(0)}, "d": {col(1), row(0)}, "b": {col(0), row(1)}, "c": {col(0), row(2)}, "e": {col(0), row(0)}}
	for _, n := range p.Ops {
		if w := want[n.ID]; n.X != w[0] || n.Y != w[1] {
			t.Errorf("op %s at (%d,%d), want (%d,%d)", n.ID, n.X, n.Y, w[0], w[1])
		}
	}
	if g := p.Groups[0]; g.W != col(1)+nodeW+margin || g.H != row(3) {
		t.Errorf("group 0 is %dx%d, want %dx%d", g.W, g.H, col(1)+nodeW+margin, row(3))
	}
	// A layer of 10 ops without producers wraps after perRow.
	var wide []op
	for range 10 {
		wide = append(wide, op{id: "k", name: "coreai.constant", dev: "none", layer: "L"})
	}
	p = dataOf(t, htmlOf(t, report(wide), Options{}))
	if last := p.Ops[9]; last.X != col(1) || last.Y != row(1) {
		t.Errorf("10th constant at (%d,%d), want (%d,%d)", last.X, last.Y, col(1), row(1))
	}
}

// TestGroups: a section is the first two frames (a loop over layers); in
// it, a new group starts where the third frame (the statement inside the
// layer) changes, and a new repeat where the section's first statement
// comes back: two layers of (attn, mlp) are four groups in repeats 1, 1,
// 2, 2. A group holds at most maxGroup ops.
func TestGroups(t *testing.T) {
	var ops []op
	for _, blk := range []string{"attn.py:1", "mlp.py:1", "attn.py:1", "mlp.py:1"} {
		for range 3 {
			ops = append(ops, op{id: "x", name: "coreai.add", dev: "ane", layer: "top.py:1", frames: []string{"top.py:1", "loop.py:2", blk, "m.py:3"}})
		}
	}
	for range maxGroup + 1 {
		ops = append(ops, op{id: "y", name: "coreai.add", dev: "ane", layer: "top.py:2", frames: []string{"top.py:2", "m.py:4"}})
	}
	p := dataOf(t, htmlOf(t, report(ops), Options{}))
	var got []string
	for _, g := range p.Groups {
		got = append(got, fmt.Sprintf("%d:%s#%d:%d", g.Section, g.Name, g.Repeat, len(g.Ops)))
	}
	want := []string{"0:attn.py:1#1:3", "0:mlp.py:1#1:3", "0:attn.py:1#2:3", "0:mlp.py:1#2:3",
		fmt.Sprintf("1:m.py:4#1:%d", maxGroup), "1:m.py:4#1:1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups (section:run#repeat:ops)\n got %v\nwant %v", got, want)
	}
	if len(p.Sections) != 2 || p.Sections[0].Name != "top.py:1 > loop.py:2" || p.Sections[0].Repeats != 2 || p.Sections[1].Repeats != 1 {
		t.Errorf("sections %+v", p.Sections)
	}
}

// TestMarks: classes and marks from the report: device colour class, fp32
// from the element types, state from the op name, blocker from a finding
// carrying its rule, message, fix pass and source.
func TestMarks(t *testing.T) {
	p := dataOf(t, htmlOf(t, report(small, 0), Options{Changes: []Change{{OpID: "c", Kind: Moved}, {OpID: "gone", Kind: Removed}}}))
	type want struct {
		cls   string
		marks []string
	}
	for i, w := range []want{{"gpu", []string{"fp32", "blocker"}}, {"gpu", []string{"fp32"}}, {"ane", nil}, {"none", nil}, {"unknown", []string{"state"}}} {
		n := p.Ops[i]
		if n.Class != w.cls || strings.Join(n.Marks, ",") != strings.Join(w.marks, ",") {
			t.Errorf("op %s: class %s marks %v, want %s %v", n.ID, n.Class, n.Marks, w.cls, w.marks)
		}
	}
	if f := p.Findings[p.Ops[0].Findings[0]]; f.Rule != "element-type" || f.Fix != "the strip-fp32-casts pass" || f.Message != "Incompatible element type" || f.Source != "m.py:10" {
		t.Errorf("finding %+v", f)
	}
	if p.Ops[2].Change != "moved" || len(p.Missing) != 1 || p.Missing[0].OpID != "gone" {
		t.Errorf("changes: op c %q, missing %v", p.Ops[2].Change, p.Missing)
	}
	if p.Devices["gpu"] != 2 || p.Devices["ane"] != 1 || p.Devices["none"] != 1 || p.Devices["unknown"] != 1 {
		t.Errorf("devices %v", p.Devices)
	}
}

// dotToken is one DOT token: an ID (alphanumeric or a number), a quoted string, an
// edge operator or a single punctuation character.
var dotNode = regexp.MustCompile(`^n[0-9]+$`)

var dotToken = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z_0-9]*|[0-9]+|"(?:[^"\\\n\r]|\\.)*"|->|[{}\[\];,=])`)

// checkDOT is a strict reading of the subset of DOT that DOT writes:
// every token is an ID, a quoted string with only \" and \\ (and label
// escapes \n) inside, or punctuation; braces balance; every statement ends
// in ';'; every edge joins declared nodes. It returns the nodes.
func checkDOT(t *testing.T, dot string) map[string]bool {
	t.Helper()
	nodes, depth := map[string]bool{}, 0
	var stmt []string
	s := dot
	for {
		s = strings.TrimLeft(s, " \t\n")
		if s == "" {
			break
		}
		tok := dotToken.FindString(s)
		if tok == "" {
			t.Fatalf("DOT: no token at %q", s[:min(len(s), 40)])
		}
		s = s[len(tok):]
		switch tok {
		case "{":
			depth++
			stmt = nil
		case "}":
			depth--
			if depth < 0 || len(stmt) != 0 {
				t.Fatalf("DOT: unbalanced } or statement %v without ;", stmt)
			}
		case ";":
			if len(stmt) >= 3 && stmt[1] == "->" {
				if !nodes[stmt[0]] || !nodes[stmt[2]] {
					t.Errorf("DOT: edge %v between undeclared nodes", stmt)
				}
			} else if len(stmt) >= 2 && stmt[1] == "[" && dotNode.MatchString(stmt[0]) {
				nodes[stmt[0]] = true
			}
			stmt = nil
		default:
			stmt = append(stmt, tok)
		}
	}
	if depth != 0 {
		t.Fatalf("DOT: %d unclosed braces", depth)
	}
	return nodes
}

// TestDOT: a node per op (hostile names included), valid under checkDOT.
func TestDOT(t *testing.T) {
	ops := append([]op{}, small...)
	ops = append(ops, op{id: "x\"y\\z\n</script>", name: "coreai.\xff", src: "q\"uote:1", dev: "ANE \\N", in: []int32{4}})
	var b bytes.Buffer
	if err := DOT(&b, report(ops, 0, 5), Options{Title: "t\"\n"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "digraph ") {
		t.Fatalf("DOT does not start with digraph: %q", b.String()[:20])
	}
	if nodes := checkDOT(t, b.String()); len(nodes) != len(ops) {
		t.Errorf("%d DOT nodes, want %d", len(nodes), len(ops))
	}
	if n := strings.Count(b.String(), "->"); n != 6 {
		t.Errorf("%d edges, want 6 (a->b, a->c, b->c, c->e, d->e, e->x)", n)
	}
	if !strings.Contains(b.String(), `coreai.\\xff`) {
		t.Errorf("the invalid byte is not shown as \\\\xff")
	}
}
