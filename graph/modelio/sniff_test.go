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
// parser's own error (it is a broken model, not another kind of file). A
// text file gets the parse error after the message; a binary one does not,
// since that error only echoed its bytes (`?ELF????…` for an executable).
func TestLoadNotAModel(t *testing.T) {
	elf := "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00\xd0#\x00\x00"
	cases := []struct {
		name, data string
		want       string // "" : the parse error alone
		binary     bool
	}{
		{"README.md", "# anefix\n\nSome text.\n", "is not a model: it is Markdown text", false},
		{"x.json", `{"a": [1, 2]}`, "is not a model: it is a JSON file", false},
		{"metadata.json", `{"model": "m.aimodel"}`, "an LLM bundle's metadata.json? give the bundle's directory", false},
		{"go.mod", "module github.com/x/y\n\ngo 1.26\n", `its first line: "module github.com/x/y"`, false},
		{"m.plist", "<?xml version=\"1.0\"?>\n<plist/>\n", "is not a model: it is an XML file", false},
		{"notes.txt", "hello world\n", `text that does not begin as MLIR does (its first line: "hello world")`, false},
		{"a.zip", "PK\x03\x04rest", "a zip archive", true},
		{"b.bin", "\x00\x01\x02binary", "a binary file but not MLIR bytecode", true},
		{"true", elf, "is not a model: it is an ELF executable; ", true},
		// Broken MLIR text: the parse error is the message.
		{"broken.mlir", "module {\n  %0 = \n}\n", "", false},
		{"broken2.mlir", "// a comment\nfunc.func @f( {\n", "", false},
		{"alias.mlir", "#map = oops\n", "", false},
		{"latin1.mlir", "module {\xd10000", "", false}, // not UTF-8, but MLIR text
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
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, bundle.Accepted) {
			t.Errorf("%s: %v\nwant %q and what anefix reads", c.name, err, c.want)
		}
		if parse := strings.Contains(msg, "parsing it as MLIR text: "); parse == c.binary {
			t.Errorf("%s: parse error given: %v, want %v: %q", c.name, parse, !c.binary, msg)
		}
		if want := p + " is not a model: it is "; c.binary && (!strings.HasPrefix(msg, want) || strings.ContainsAny(strings.TrimPrefix(msg, p), "\x00\x7f?\ufffd")) {
			t.Errorf("%s: %q echoes the file's bytes (or does not start %q)", c.name, msg, want)
		}
	}
}
