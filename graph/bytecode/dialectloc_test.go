package bytecode

import (
	"bytes"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// TestDialectLocRoundTrip: a dialect attribute in textual form used as a
// location (coreai-torch's #debuginfo.location kind; the syntax here is a
// stand-in, the real one is not published) is written as an attribute entry
// and read back as a graph.DialectLoc with the same text, also as a block
// argument's location and inside a fused location; its op id is readable.
func TestDialectLocRoundTrip(t *testing.T) {
	const text = `#debuginfo.location<sources = [{identifiers = ["_to_copy_7"]}]>`
	m := synthModule(1, 16)
	g := m.Graphs()[0]
	op := g.Body().First()
	op.Loc = &graph.DialectLoc{Attr: &graph.OpaqueAttr{Text: text}}
	g.Body().Arg(0).Loc = &graph.FusedLoc{Locs: []graph.Loc{&graph.DialectLoc{Attr: &graph.OpaqueAttr{Text: text}}, &graph.FileLoc{File: "a.py", Line: 3}}}
	data := write(t, m, WriteOptions{})
	m2, src := read(t, data)
	g2 := m2.Graphs()[0]
	dl, ok := g2.Body().First().Loc.(*graph.DialectLoc)
	if !ok || dl.Attr.String() != text || graph.OpID(dl) != "_to_copy_7" {
		t.Fatalf("op location %T %v", g2.Body().First().Loc, g2.Body().First().Loc)
	}
	if fl, ok := g2.Body().Arg(0).Loc.(*graph.FusedLoc); !ok || len(fl.Locs) != 2 || fl.Locs[0].String() != text {
		t.Fatalf("argument location %v", g2.Body().Arg(0).Loc)
	}
	if again := write(t, m2, WriteOptions{Source: src}); !bytes.Equal(again, data) {
		t.Errorf("rewrite is not byte-identical")
	}
	// An encoded dialect attribute cannot be re-encoded into another file.
	enc := &graph.DialectLoc{Attr: &encodedAttr{RawAttr: &graph.RawAttr{Text: "#aicode<bytecode-encoded attribute #4>"}, Dialect: "aicode", src: src.f, index: 0}}
	g2.Body().First().Loc = enc
	if err := Write(&bytes.Buffer{}, m2, WriteOptions{}); err == nil || !strings.Contains(err.Error(), "location") {
		t.Errorf("encoded location in fresh tables: %v, want a location error", err)
	}
}
