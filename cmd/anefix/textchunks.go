package main

import (
	"io"
	"strings"
)

// textChunkSize is how much of a text report textChunks holds before it
// hands it on at the next line end.
const textChunkSize = 64 << 10

// textChunks gathers a text report and hands it to w a chunk of whole
// lines at a time (at lineEnd), so a report with a line per op is never
// held whole: issue 28's 500k-op chain prints about 35 MB of check text,
// which was built in one string, then copied by the indenting and by the
// escaping writer (about 250 MB live at rewrite's peak). Chunks end at a
// line end, so safeWriter still sees every name whole. Each line that has
// any byte starts with indent. With w nil it keeps everything (String).
type textChunks struct {
	w       io.Writer
	indent  string
	b       strings.Builder
	midLine bool
	err     error // the first write to w that failed; later writes are dropped
}

func (c *textChunks) WriteString(s string) (int, error) {
	n := len(s)
	for s != "" {
		if !c.midLine && c.indent != "" {
			c.b.WriteString(c.indent)
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			c.b.WriteString(s)
			c.midLine = true
			break
		}
		c.b.WriteString(s[:i+1])
		c.midLine = false
		s = s[i+1:]
	}
	return n, c.err
}

func (c *textChunks) Write(p []byte) (int, error) { return c.WriteString(string(p)) }

// lineEnd hands the text gathered so far on once it passes textChunkSize.
// Callers call it where a line (a name with it) has ended.
func (c *textChunks) lineEnd() {
	if c.w != nil && !c.midLine && c.b.Len() >= textChunkSize {
		c.flush()
	}
}

// Flush hands on what is left and returns the first write error.
func (c *textChunks) Flush() error {
	if c.w != nil {
		c.flush()
	}
	return c.err
}

func (c *textChunks) flush() {
	if c.err == nil && c.b.Len() > 0 {
		_, c.err = io.WriteString(c.w, c.b.String())
	}
	c.b.Reset()
}

// String is what was gathered and not yet handed on.
func (c *textChunks) String() string { return c.b.String() }
