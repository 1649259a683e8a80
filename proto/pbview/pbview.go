// Package pbview draws a check report (proto anefix.v1.CheckReport with its
// per-op placements, CheckReport.ops) as one self-contained HTML page or as
// a Graphviz DOT file.
//
// The page needs no network and no server: its style, script and data are
// inline, and it loads nothing (no URL of any kind). It draws every op of
// the report, coloured by predicted device, in collapsible groups (the op's
// layer, else its source file, per graph), collapsed at first so that a
// model of 25,000 ops opens at once: a group's drawing is made when it is
// opened. A search box (or the URL fragment #search=TEXT) finds an op by op
// id or by source "file:line", opens its group, scrolls to it and
// highlights it. Clicking an op shows its placement, element types and the
// findings on it (rule, message, fix pass, source).
//
// Layout is a simple layered drawing computed here, deterministically: in a
// group, an op sits one row below its deepest producer in the group, ops of
// one depth in program order. Same report and options, same bytes.
//
// Names come from the model and may hold any bytes. They reach the page
// only as JSON data (proto/common.proto's \xNN rule first, then
// encoding/json, which writes <, > and & as \u escapes, so no string can
// close the script element) and the page's script puts them in the
// document as text nodes, never as markup.
//
// A diff view (anefix diff) passes Options.Changes, drawn highlighted by
// kind, and Options.Summary, shown as a header block.
package pbview

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html"
	"io"

	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

// ChangeKind is how a diff changed an op.
type ChangeKind string

// The change kinds a diff view highlights, each in its own colour.
const (
	Retyped ChangeKind = "retyped"
	Added   ChangeKind = "added"
	Removed ChangeKind = "removed"
	Moved   ChangeKind = "moved"
)

// Change marks the ops with op id OpID (every op carrying it).
type Change struct {
	OpID string     `json:"id"`
	Kind ChangeKind `json:"kind"`
}

// Options are what a caller adds to the report's own content.
type Options struct {
	// Title of the page; empty is "anefix check <input path>".
	Title string
	// Headline is the verdict, shown first (the CLI gives its text
	// report's, so the page says what check says); empty, the page states
	// one from the report's legal and region counts.
	Headline []string
	// Summary lines shown in a header block above the graph (a diff's
	// region counts, say).
	Summary []string
	// Changes are drawn highlighted; a change whose op id names no op of
	// the report (a removed op) is listed in the header instead.
	Changes []Change
	// FixCommand says how to run the pass that fixes a finding (the CLI
	// knows which passes are on by default); nil names the pass alone.
	FixCommand func(pass string) string
}

// fixText is what an op's panel says after "fix:" for pass.
func (o Options) fixText(pass string) string {
	switch {
	case pass == "":
		return ""
	case o.FixCommand != nil:
		return o.FixCommand(pass)
	}
	return "the " + pass + " pass"
}

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// HTML writes the page of rep to w.
func HTML(w io.Writer, rep *pb.CheckReport, o Options) error {
	p := build(pbprint.ForJSON(rep), escapeOptions(o))
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	// No request may leave the page: the policy forbids every load but
	// the inline style and script themselves.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n")
	b.WriteString("<title>" + html.EscapeString(p.Title) + "</title>\n")
	// Errors are collected from the first script on, so a test (or a
	// user, in the page's footer) sees any the page's script raises.
	b.WriteString("<script>window.anefixErrors=[];window.addEventListener('error',function(e){window.anefixErrors.push(String(e.message))});</script>\n")
	b.WriteString("<style>\n" + pageCSS + "</style>\n</head>\n<body>\n")
	b.WriteString("<script type=\"application/json\" id=\"anefix-data\">")
	b.Write(data)
	b.WriteString("</script>\n<script>\n" + pageJS + "</script>\n</body></html>\n")
	_, err = w.Write(b.Bytes())
	return err
}

// escapeOptions applies the \xNN rule to the caller's strings too.
func escapeOptions(o Options) Options {
	o.Title = pbprint.EscapeInvalid(o.Title)
	sum := make([]string, len(o.Summary))
	for i, s := range o.Summary {
		sum[i] = pbprint.EscapeInvalid(s)
	}
	o.Summary = sum
	head := make([]string, len(o.Headline))
	for i, s := range o.Headline {
		head[i] = pbprint.EscapeInvalid(s)
	}
	o.Headline = head
	ch := make([]Change, len(o.Changes))
	for i, c := range o.Changes {
		ch[i] = Change{OpID: pbprint.EscapeInvalid(c.OpID), Kind: c.Kind}
	}
	o.Changes = ch
	return o
}
