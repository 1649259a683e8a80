package pbview

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

// dotFill is the fill colour of a device class (the page's colours).
var dotFill = map[string]string{"ane": "#b6e3c6", "gpu": "#f7c58f", "cpu": "#a9c8f0", "none": "#eeeeee", "unknown": "#d8c8f0"}

// dotChange is the fill of a changed op (the page's colours).
var dotChange = map[string]string{"retyped": "#ffe066", "added": "#8ce99a", "removed": "#ffa8a8", "moved": "#91a7ff"}

// DOT writes the report's ops as a Graphviz digraph: one cluster per group
// (the page's groups), a node per op (n<i>, i its place in the report's
// ops) filled by device, a red border on a blocker, dashed on a suspect or
// hazard; an edge per producer. Every string is a quoted DOT string.
func DOT(w io.Writer, rep *pb.CheckReport, o Options) error {
	p := build(pbprint.ForJSON(rep), escapeOptions(o))
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "digraph %s {\n", dotQuote(p.Title))
	b.WriteString("  graph [rankdir=TB, fontname=\"Helvetica\"];\n  node [shape=box, style=filled, fontname=\"Helvetica\", fontsize=10];\n")
	for gi, g := range p.Groups {
		sec := p.Sections[g.Section]
		fmt.Fprintf(b, "  subgraph cluster_%d {\n    label=%s;\n", gi, dotQuote(sec.Name+" > "+g.Name+" @"+sec.Graph))
		for _, i := range g.Ops {
			n := &p.Ops[i]
			id := n.ID
			if id == "" {
				id = fmt.Sprintf("#%d", n.Index)
			}
			label := dotEscape(id) + `\n` + dotEscape(n.Name) + `\n` + dotEscape(n.Device)
			fill := dotFill[n.Class]
			if c, ok := dotChange[n.Change]; ok {
				fill = c
			}
			attrs := fmt.Sprintf("label=\"%s\", fillcolor=%s", label, dotQuote(fill))
			switch {
			case contains(n.Marks, "blocker"):
				attrs += ", color=\"#cc0000\", penwidth=3"
			case contains(n.Marks, "suspect") || contains(n.Marks, "hazard"):
				attrs += ", style=\"filled,dashed\", penwidth=2"
			}
			if n.Source != "" {
				attrs += ", tooltip=" + dotQuote(n.Source)
			}
			fmt.Fprintf(b, "    n%d [%s];\n", i, attrs)
		}
		b.WriteString("  }\n")
	}
	for i := range p.Ops {
		for _, j := range p.Ops[i].Inputs {
			fmt.Fprintf(b, "  n%d -> n%d;\n", j, i)
		}
	}
	b.WriteString("}\n")
	return b.Flush()
}

// dotQuote is s as a DOT quoted string.
func dotQuote(s string) string { return `"` + dotEscape(s) + `"` }

// dotEscape escapes s for the inside of a DOT quoted string: a quote and a
// backslash are escaped (so no name ends the string or starts a label
// escape such as \N), and a control character is written as the text \xNN
// (a raw line break inside a string is legal DOT but not a name's byte
// anyone wants to see as a break).
func dotEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
