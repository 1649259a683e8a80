package main

import (
	"fmt"
	"strings"
	"testing"
)

// writeSizes records what each Write was handed.
type writeSizes struct {
	b     strings.Builder
	sizes []int
	ends  []bool // whether each write ended a line
}

func (w *writeSizes) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	w.ends = append(w.ends, len(p) > 0 && p[len(p)-1] == '\n')
	return w.b.Write(p)
}

// TestTextChunks checks that a long report reaches the writer in chunks
// of whole lines no bigger than textChunkSize and a line, that every line
// with any byte gets the indent (as the indenting copy it replaces did:
// every piece after a newline split, empty lines included, is prefixed),
// and that with no writer everything is kept.
func TestTextChunks(t *testing.T) {
	var want strings.Builder
	w := &writeSizes{}
	c := &textChunks{w: w, indent: "  "}
	const lines = 20_000
	for i := range lines {
		line := fmt.Sprintf("    x1    t.o at chain.mlir:%d\n          dialect t\n", i)
		// Written in two pieces, the first one ending mid-line.
		fmt.Fprintf(c, "%s", line[:7])
		c.WriteString(line[7:])
		for _, l := range strings.SplitAfter(line, "\n") {
			if l != "" {
				want.WriteString("  " + l)
			}
		}
		c.lineEnd()
	}
	c.WriteString("\nlast")
	want.WriteString("  \n  last")
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.b.String() != want.String() {
		t.Fatalf("chunked text differs from the whole text (%d vs %d bytes)", w.b.Len(), want.Len())
	}
	if len(w.sizes) < want.Len()/textChunkSize {
		t.Errorf("%d writes for %d bytes: the text was held, not handed on in chunks", len(w.sizes), want.Len())
	}
	for i, n := range w.sizes[:len(w.sizes)-1] {
		if n > textChunkSize+200 {
			t.Errorf("write %d is %d bytes, above the chunk size %d and a line", i, n, textChunkSize)
		}
		if !w.ends[i] {
			t.Errorf("write %d ends inside a line: a name could be split between two writes", i)
		}
	}
	var kept textChunks
	kept.WriteString("a\nb")
	kept.lineEnd()
	if err := kept.Flush(); err != nil || kept.String() != "a\nb" {
		t.Errorf("with no writer: %q, %v; want everything kept", kept.String(), err)
	}
}
