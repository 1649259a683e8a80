package modelio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph/bundle"
)

// A file that is plainly not MLIR is refused as "not a model", saying what
// it is and what anefix reads; a file that starts as MLIR text keeps the
// parser's own error (it is a broken model, not another kind of file).
func TestLoadNotAModel(t *testing.T) {
	cases := []struct {
		name, data string
		want       string // "" : the parse error alone
	}{
		{"README.md", "# anefix\n\nSome text.\n", "is not a model: it is Markdown text"},
		{"x.json", `{"a": [1, 2]}`, "is not a model: it is a JSON file"},
		{"metadata.json", `{"model": "m.aimodel"}`, "an LLM bundle's metadata.json? give the bundle's directory"},
		{"go.mod", "module github.com/x/y\n\ngo 1.26\n", `its first line: "module github.com/x/y"`},
		{"m.plist", "<?xml version=\"1.0\"?>\n<plist/>\n", "is not a model: it is an XML file"},
		{"a.zip", "PK\x03\x04rest", "a zip archive"},
		{"b.bin", "\x00\x01\x02binary", "a binary file but not MLIR bytecode"},
		{"notes.txt", "hello world\n", `text that does not begin as MLIR does (its first line: "hello world")`},
		// Broken MLIR text: the parse error is the message.
		{"broken.mlir", "module {\n  %0 = \n}\n", ""},
		{"broken2.mlir", "// a comment\nfunc.func @f( {\n", ""},
		{"alias.mlir", "#map = oops\n", ""},
	}
	for _, c := range cases {
		p := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p, LoadOptions{})
		if err == nil {
			t.Errorf("%s: loaded", c.name)
			continue
		}
		msg := err.Error()
		if c.want == "" {
			if strings.Contains(msg, "not a model") {
				t.Errorf("%s: broken MLIR called not a model: %v", c.name, err)
			}
			continue
		}
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, bundle.Accepted) || !strings.Contains(msg, "parsing it as MLIR text: ") {
			t.Errorf("%s: %v\nwant %q, what anefix reads and the parse error", c.name, err, c.want)
		}
	}
}
